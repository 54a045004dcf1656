// The thin network adapter: node:http in, the core's handle() out. Whatever
// arrives, the process keeps running and answers: a failure of ours is logged
// as our bug and answered 500, never a crash.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { type AddressInfo, createServer as createNetServer, isIP, type Socket } from "node:net";
import { hostname, networkInterfaces } from "node:os";
import { bodyBytes, type MockRequest, type MockResponse } from "../core/http.ts";
import { BODY_LIMIT_BYTES, HEADERS_TIMEOUT_MS, KEEP_ALIVE_MS, REQUEST_TIMEOUT_MS } from "../core/limits.ts";
import { TurnQueue } from "./turn.ts";

export { BODY_LIMIT_BYTES };

/** How often expired state is dropped (the core decides what has expired, on its own clock). */
const SWEEP_INTERVAL_MS = 30_000;
/**
 * How much of a body over the limit is read and dropped before the 413, so that the client reads
 * it, and how long a pause in that body ends the wait (a body that stalls is answered anyway).
 */
const DRAIN_LIMIT_BYTES = 16 * 1024 * 1024;
const DRAIN_PAUSE_MS = 300;

export interface Handle {
  handle(req: MockRequest): MockResponse;
  /** The answer to a body over the limit, in the format the client asked for. */
  tooLarge(req: MockRequest): MockResponse;
  /** Told the Host header values that address this server, once it listens. */
  listensAt?(hosts: readonly string[]): void;
  /** Drops expired state; called on a timer while the server listens. */
  sweep?(): void;
  /** Names in an answer what control calls changed (a moved clock, ended tokens): src/mock/core/app.ts. */
  nameState?(headers: Record<string, string>): void;
}

export interface ListenOptions {
  host: string;
  port: number;
  bodyLimit?: number;
  /** More Host header values to accept as this server's own (`--allowed-hosts`). */
  allowedHosts?: readonly string[];
  /** Time for a request's headers, and for the whole request (A-LIMITS defaults; tests shorten them). */
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
}

export interface Listening {
  server: Server;
  url: string;
  close(): Promise<void>;
}

/** Starts listening; resolves once the port is open. */
export function listen(app: Handle, options: ListenOptions): Promise<Listening> {
  const limit = options.bodyLimit ?? BODY_LIMIT_BYTES;
  const turn = new TurnQueue();
  const name = app.nameState?.bind(app);
  const send = (res: ServerResponse, answer: () => MockResponse) => sendAnswer(res, answer, turn, name);
  const fail = (res: ServerResponse, err: unknown) => failed(res, err, name);
  const server = createServer(
    {
      maxHeaderSize: 16 * 1024,
      headersTimeout: options.headersTimeoutMs ?? HEADERS_TIMEOUT_MS,
      requestTimeout: options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS,
      keepAliveTimeout: KEEP_ALIVE_MS,
      // Node checks the two timeouts above only this often (default 30 s).
      connectionsCheckingInterval: 1_000,
    },
    (req, res) => {
      const request = (body: Buffer | undefined): MockRequest => ({
        method: req.method ?? "GET",
        url: req.url ?? "/",
        headers: req.headers as Record<string, string | undefined>,
        body,
        remoteAddress: req.socket.remoteAddress,
      });
      // Most calls carry no body: handled with the others of this turn, without waiting for the
      // stream's end (or behind a request before it on its connection not answered yet). At
      // once instead, GET Customer/{id} took 1.5–2.5 µs more CPU an answer (two A/B runs).
      if (req.headers["content-length"] === undefined && req.headers["transfer-encoding"] === undefined) {
        req.resume();
        const run = () => send(res, () => app.handle(request(undefined)));
        if (lines.get(req.socket)?.length) placeInLine(req.socket, res, fail)(run);
        else turn.later(run, (err) => fail(res, err));
        return;
      }
      const ready = placeInLine(req.socket, res, fail);
      readBody(req, limit, (body) => {
        if (body === "too-large") {
          res.shouldKeepAlive = false;
          ready(() => send(res, () => app.tooLarge(request(undefined))));
        } else {
          // A request with a body (a write, most often) is handled with the others of this turn.
          turn.later(
            () => ready(() => send(res, () => app.handle(request(body)))),
            (err) => fail(res, err),
          );
        }
      });
    },
  );
  // A client that half-closes after its request (socket.end) still gets a delayed answer
  // (Prefer: delay): node otherwise ends such a socket as soon as the client's FIN arrives.
  (server as Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
  // A client that sends garbage gets a 400 from node itself; keep serving everyone else.
  server.on("clientError", (err: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    const status =
      err.code === "HPE_HEADER_OVERFLOW"
        ? "431 Request Header Fields Too Large"
        : err.code === "ERR_HTTP_REQUEST_TIMEOUT"
          ? "408 Request Timeout"
          : "400 Bad Request";
    socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
  });
  const sweeper = app.sweep ? setInterval(() => app.sweep?.(), SWEEP_INTERVAL_MS) : undefined;
  sweeper?.unref();
  return new Promise((resolvePromise, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      const { port } = server.address() as AddressInfo;
      app.listensAt?.(ownHosts(options.host, port, options.allowedHosts ?? []));
      const host = options.host.includes(":") ? `[${options.host}]` : options.host;
      resolvePromise({
        server,
        url: `http://${host}:${port}`,
        close: () =>
          new Promise<void>((done) => {
            clearInterval(sweeper);
            server.close(() => done());
            turn.flush();
            server.closeAllConnections();
          }),
      });
    });
  });
}

/** Per connection, its requests read but not yet answered, in the order they came. */
const lines = new WeakMap<Socket, Array<{ res: ServerResponse; run?: () => void }>>();

/**
 * The requests of one connection are handled in the order they came, whatever each waits for (its
 * body, the end of the turn): a client that pipelines a GET after a POST reads what the POST
 * created (RFC 9112 9.3.2 lets only safe requests run out of order). Gives the request its place;
 * the function it returns is called once the request is ready, and runs it when every request
 * before it on the connection has run. Behind an answer that closes the connection (a 413)
 * nothing more runs: no answer could reach the client, so a pipelined write is not carried out.
 */
function placeInLine(
  socket: Socket,
  res: ServerResponse,
  fail: (res: ServerResponse, err: unknown) => void,
): (run: () => void) => void {
  let line = lines.get(socket);
  if (!line) {
    line = [];
    lines.set(socket, line);
  }
  const place: { res: ServerResponse; run?: () => void } = { res };
  line.push(place);
  return (run) => {
    place.run = run;
    while (line[0]?.run) {
      const next = line.shift()!;
      // Each request's failure is its own: the ones behind it on the connection still run.
      try {
        next.run!();
      } catch (err) {
        fail(next.res, err);
      }
      if (!next.res.shouldKeepAlive) {
        line.length = 0;
        break;
      }
    }
  };
}

type Name = Handle["nameState"];

/**
 * Writes the core's answer, after the delay it asks for (Prefer: delay, a
 * latency scenario), or with the turn's other writes. A throw anywhere in
 * between is our bug: logged, answered 500, never a crash.
 */
function sendAnswer(res: ServerResponse, answer: () => MockResponse, turn: TurnQueue, name: Name): void {
  try {
    const response = answer();
    // Named when it was decided, not when it is written: a token taken on the clock before a move
    // in the same turn (or during a delay) was taken at that time.
    name?.(response.headers);
    const delay = response.meta?.delayMs ?? 0;
    if (delay > 0) setTimeout(() => write(res, response), delay);
    else turn.send(write, res, response);
  } catch (err) {
    failed(res, err, name);
  }
}

function write(res: ServerResponse, response: MockResponse): void {
  try {
    // The answer is this request's own (the core makes every answer anew): its headers are completed in place.
    const { headers } = response;
    const body = bodyBytes(response);
    if (body !== undefined) headers["content-length"] = String(Buffer.byteLength(body));
    res.writeHead(response.status, headers);
    res.end(body);
  } catch (err) {
    failed(res, err);
  }
}

function failed(res: ServerResponse, err: unknown, name?: Name): void {
  console.error("bawa mock: internal error (a bug of bawa; please report it with the request that caused it):", err);
  if (res.headersSent) {
    res.destroy();
    return;
  }
  // Whatever was thrown, an Error or not.
  const body = JSON.stringify({
    Message: `bawa mock: internal error: ${err instanceof Error ? err.message : String(err)}`,
  });
  const headers: Record<string, string> = {
    "content-type": "application/json; charset=utf-8",
    "content-length": String(Buffer.byteLength(body)),
  };
  name?.(headers);
  // A failed writeHead may have set the status message already.
  res.writeHead(500, "Internal Server Error", headers);
  res.end(body);
}

/**
 * Reads a body up to the limit. Past the limit it answers at once and reads
 * the rest only to discard it (a client that stalls is dropped by the
 * request timeout); nothing over the limit is kept.
 */
function readBody(req: IncomingMessage, limit: number, done: (body: Buffer | undefined | "too-large") => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let answered = false;
  const declared = Number(req.headers["content-length"] ?? 0);
  let tooLarge = declared > limit;
  let pause: NodeJS.Timeout | undefined;
  const finish = (body: Buffer | undefined | "too-large") => {
    clearTimeout(pause);
    if (answered) return;
    answered = true;
    done(body);
  };
  const drain = () => {
    clearTimeout(pause);
    pause = setTimeout(() => finish("too-large"), DRAIN_PAUSE_MS);
  };
  if (declared > DRAIN_LIMIT_BYTES) {
    req.resume();
    finish("too-large");
    return;
  }
  if (tooLarge) drain();
  req.on("data", (chunk: Buffer) => {
    if (answered) return;
    size += chunk.length;
    if (tooLarge) {
      // An answer written while the client still sends its body is lost to most clients (they
      // see the connection close before they read it): the rest is read and dropped first, up to
      // a bound past which the client is told at once and the connection closes.
      if (size > DRAIN_LIMIT_BYTES) finish("too-large");
      else drain();
    } else if (size > limit) {
      tooLarge = true;
      chunks.length = 0;
      drain();
    } else {
      chunks.push(chunk);
    }
  });
  req.on("end", () => finish(tooLarge ? "too-large" : size === 0 ? undefined : Buffer.concat(chunks)));
  req.on("error", () => {
    clearTimeout(pause);
    answered = true; // the client went away; nobody is left to answer
  });
}

/**
 * The Host header values that reach a server listening on `host:port`: the
 * loopback names for a loopback address, every interface address and the
 * machine's name for a wildcard address, plus what the user allowed.
 */
export function ownHosts(host: string, port: number, allowed: readonly string[]): string[] {
  const bracket = (h: string) => (isIP(h) === 6 ? `[${h}]` : h);
  const names = new Set<string>([host]);
  const loopback = host === "localhost" || host.startsWith("127.") || host === "::1";
  const wildcard = host === "0.0.0.0" || host === "::";
  if (loopback || wildcard) for (const n of ["localhost", "127.0.0.1", "::1"]) names.add(n);
  if (wildcard) {
    for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) names.add(a.address);
  }
  if (!loopback) names.add(hostname());
  const hosts = new Set<string>();
  for (const n of names) {
    hosts.add(`${bracket(n).toLowerCase()}:${port}`);
    if (port === 80) hosts.add(bracket(n).toLowerCase());
  }
  for (const a of allowed) hosts.add(/:\d+$/.test(a) ? a.toLowerCase() : `${a.toLowerCase()}:${port}`);
  return [...hosts];
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
