// The thin network adapter: node:http in, the core's handle() out.
import { createServer, type IncomingMessage, type Server } from "node:http";
import { type AddressInfo, createServer as createNetServer } from "node:net";
import type { MockRequest, MockResponse } from "../core/http.ts";

export const BODY_LIMIT_BYTES = 1024 * 1024; // A-LIMITS

export interface Handle {
  handle(req: MockRequest): MockResponse;
  /** The answer to a body over the limit, in the format the client asked for. */
  tooLarge(req: MockRequest): MockResponse;
}

export interface Listening {
  server: Server;
  url: string;
  close(): Promise<void>;
}

/** Starts listening; resolves once the port is open. */
export function listen(app: Handle, options: { host: string; port: number; bodyLimit?: number }): Promise<Listening> {
  const limit = options.bodyLimit ?? BODY_LIMIT_BYTES;
  const server = createServer({ maxHeaderSize: 16 * 1024 }, (req, res) => {
    const respond = (body: Buffer | undefined | "too-large") => {
      const request: MockRequest = {
        method: req.method ?? "GET",
        url: req.url ?? "/",
        headers: flatHeaders(req),
        body: body === "too-large" ? undefined : body,
      };
      const response = body === "too-large" ? app.tooLarge(request) : app.handle(request);
      const headers: Record<string, string> = { ...response.headers };
      if (response.body !== undefined) headers["content-length"] = String(Buffer.byteLength(response.body));
      if (body === "too-large") headers.connection = "close";
      res.writeHead(response.status, headers);
      res.end(response.body);
    };
    // Most calls carry no body: answer them at once, without waiting for the stream's end.
    if (req.headers["content-length"] === undefined && req.headers["transfer-encoding"] === undefined) {
      req.resume();
      respond(undefined);
    } else {
      void readBody(req, limit).then(respond);
    }
  });
  // A client that sends garbage gets a 400 from node itself; keep serving everyone else.
  server.on("clientError", (err: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    const status = err.code === "HPE_HEADER_OVERFLOW" ? "431 Request Header Fields Too Large" : "400 Bad Request";
    socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
  });
  return new Promise((resolvePromise, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      const { port } = server.address() as AddressInfo;
      const host = options.host.includes(":") ? `[${options.host}]` : options.host;
      resolvePromise({
        server,
        url: `http://${host}:${port}`,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}

/** Node joins repeated request headers itself; only set-cookie stays a list, which requests do not send. */
function flatHeaders(req: IncomingMessage): Record<string, string | undefined> {
  return req.headers as Record<string, string | undefined>;
}

function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined | "too-large"> {
  return new Promise((done) => {
    const declared = Number(req.headers["content-length"] ?? 0);
    if (declared > limit) {
      req.resume();
      return done("too-large");
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) over = true;
      else chunks.push(chunk);
    });
    req.on("end", () => done(over ? "too-large" : size === 0 ? undefined : Buffer.concat(chunks)));
    req.on("error", () => done(undefined));
  });
}

/** A loopback port that was free a moment ago (for child processes that must be told their port). */
export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createNetServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => done(port));
    });
    server.on("error", fail);
  });
}
