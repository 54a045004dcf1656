// The thin network adapter of bawa proxy: node:http in, node:http(s) out to
// the target. Every request is forwarded as it came (only Host and the
// X-Forwarded-* headers are set, as forwarding needs), every answer returned
// as the target gave it; the proxy answers in its own name only its own control
// calls (the dashboard and GET /__mock/requests, served by the mock's own
// routes and guard) and, when the target can not be reached, a 502 saying so.
// In between, the judge reads each exchange and the recording takes in its
// objects; neither may ever hold up or break the forwarding.
import {
  createServer,
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingMessage,
  type ServerResponse,
} from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import type { AddressInfo } from "node:net";
import { brotliDecompressSync, gunzipSync, inflateSync } from "node:zlib";
import type { CompiledContract } from "../contract/index.ts";
import { createMock } from "../mock/core/app.ts";
import { requestLogRoute } from "../mock/core/control.ts";
import type { AllowedOrigins } from "../mock/core/cors.ts";
import { absoluteForm, bodyBytes } from "../mock/core/http.ts";
import { BODY_LIMIT_BYTES, HEADERS_TIMEOUT_MS } from "../mock/core/limits.ts";
import { CONTROL_COOKIE } from "../mock/core/local.ts";
import { RequestLog } from "../mock/core/request-log.ts";
import { matchRoute } from "../mock/core/router.ts";
import { dashboardRoutes } from "../mock/dashboard/routes.ts";
import { ownHosts } from "../mock/node/listen.ts";
import { basicCredentials, type Exchange, formOf, queryOf, type Violation } from "../rules/exchange.ts";
import { Judge } from "../rules/judge/index.ts";
import { Recording } from "./record.ts";
import { ViolationReport } from "./report.ts";

/** Bodies up to this size are kept to judge and record; a larger answer is passed on unjudged. */
export const JUDGE_LIMIT_BYTES = 64 * 1024 * 1024;
/** How long the target may take to answer. */
const TARGET_TIMEOUT_MS = 120_000;
/** Headers that belong to one connection (RFC 9110 7.6.1), never forwarded. */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

export interface ProxyOptions {
  /** The target's base URL, without the version segment (`https://test.example.com`). */
  target: string;
  host: string;
  port: number;
  contract: CompiledContract;
  /** More Host header values the proxy's own pages answer to (`--allowed-hosts`). */
  allowedHosts?: readonly string[];
  /** The token the proxy's control calls and dashboard require (`--control-token`). */
  controlToken?: string | undefined;
  /** Origins a page may call the proxy's own control calls from (`--cors-origins`); none by default. */
  corsOrigins?: AllowedOrigins;
  /** Where `--record` writes what it saw (mock-data/'s layout); nothing is recorded without it. */
  recordDir?: string | undefined;
  /** How long after a change the recording is written (the last changes are written on close). */
  recordDelayMs?: number;
  /** The proxy's clock (ms). */
  now?: () => number;
}

export interface RunningProxy {
  url: string;
  log: RequestLog;
  judge: Judge;
  report: ViolationReport;
  recording: Recording | undefined;
  /** Stops listening and writes the recording's last changes. */
  close(): Promise<void>;
}

/** Starts the proxy; resolves once its port is open. */
export async function startProxy(options: ProxyOptions): Promise<RunningProxy> {
  const target = new URL(options.target);
  if (target.protocol !== "http:" && target.protocol !== "https:") {
    throw new Error(`the target must be an http or https URL, not ${options.target}`);
  }
  const prefix = target.pathname.replace(/\/+$/, "");
  const shownTarget = `${target.protocol}//${target.host}${prefix}`;
  const now = options.now ?? Date.now;
  const log = new RequestLog();
  const judge = new Judge(options.contract);
  const report = new ViolationReport();
  const recording = options.recordDir ? new Recording(options.contract, judge.places) : undefined;
  if (recording && options.recordDir) recording.load(options.recordDir);
  const flush = () => {
    if (recording?.dirty && options.recordDir) recording.write(options.recordDir, { target: shownTarget });
  };
  let flushTimer: NodeJS.Timeout | undefined;
  const scheduleFlush = () => {
    flushTimer ??= setTimeout(() => {
      flushTimer = undefined;
      try {
        flush();
      } catch (err) {
        console.error(
          `bawa proxy: the recording could not be written to ${options.recordDir}: ${(err as Error).message}`,
        );
      }
    }, options.recordDelayMs ?? 200);
  };

  // The proxy's own pages and control calls are the mock's (its router, guard and dashboard).
  const ownRoutes = [...dashboardRoutes({ proxyOf: shownTarget }), requestLogRoute(log)];
  const own = createMock({
    contract: options.contract,
    tokens: { verify: () => ({ ok: false, description: "bawa proxy issues no tokens" }) },
    rootRoutes: ownRoutes,
    log,
    config: {
      versions: [],
      ownHosts: [],
      ...(options.controlToken ? { controlToken: options.controlToken } : {}),
      corsOrigins: options.corsOrigins ?? [],
    },
    allowedOrigins: () => options.corsOrigins ?? [],
  });
  const isOwn = (url: string) => {
    const segments = url.split("?")[0]!.split("/").slice(1);
    if (segments.length > 1 && segments.at(-1) === "") segments.pop();
    return segments[0]?.toLowerCase() === "__mock" && matchRoute(ownRoutes, segments) !== undefined;
  };

  const agent =
    target.protocol === "https:"
      ? new HttpsAgent({ keepAlive: true, maxSockets: 64 })
      : new HttpAgent({ keepAlive: true, maxSockets: 64 });
  const send = target.protocol === "https:" ? httpsRequest : httpRequest;

  // A request's headers must arrive within the mock's limit; its body may take as long as the target allows.
  const server = createServer({ maxHeaderSize: 64 * 1024, headersTimeout: HEADERS_TIMEOUT_MS }, (req, res) => {
    // The absolute form (RFC 9112 3.2.2), as a client with HTTP_PROXY set sends it: its path is
    // what goes on; anything else that is not a path ("*") the target could not be asked.
    const url = req.url ?? "/";
    if (!url.startsWith("/")) {
      const absolute = absoluteForm(url);
      if (!absolute) {
        res.writeHead(400, { "content-type": "text/plain; charset=utf-8", connection: "close" });
        res.end(`bawa proxy: the request target ${JSON.stringify(url.slice(0, 100))} is not a path\n`);
        return;
      }
      req.url = absolute.path;
    }
    if (isOwn(req.url ?? "/")) answerOwn(req, res);
    else forward(req, res);
  });

  function answerOwn(req: IncomingMessage, res: ServerResponse): void {
    // Its own calls are small JSON; what is over the mock's limit is not kept.
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size <= BODY_LIMIT_BYTES) chunks.push(c);
    });
    req.on("end", () => {
      const answer = own.handle({
        method: req.method ?? "GET",
        url: req.url ?? "/",
        headers: req.headers as Record<string, string | undefined>,
        body: chunks.length ? Buffer.concat(chunks) : undefined,
      });
      const body = bodyBytes(answer);
      res.writeHead(answer.status, {
        ...answer.headers,
        ...(body === undefined ? {} : { "content-length": String(Buffer.byteLength(body)) }),
      });
      res.end(body);
    });
  }

  /**
   * Reads the request's body, then sends it to the target whole: a target that answers before it read
   * a body (a 413 at once) and closes would otherwise cut the answer off while the body still streams.
   * A body larger than the judge keeps is streamed on as it comes.
   */
  function forward(req: IncomingMessage, res: ServerResponse): void {
    const started = now();
    const chunks: Buffer[] = [];
    let size = 0;
    const hold = (c: Buffer) => {
      size += c.length;
      chunks.push(c);
      if (size <= JUDGE_LIMIT_BYTES) return;
      req.off("data", hold);
      req.off("end", whole);
      req.pause();
      const upstream = open(req, res, undefined, started);
      for (const c of chunks.splice(0)) upstream.write(c);
      req.pipe(upstream);
    };
    const whole = () => {
      const body = size > 0 ? Buffer.concat(chunks) : undefined;
      open(req, res, body, started).end(body);
    };
    req.on("data", hold);
    req.on("end", whole);
  }

  /** The request to the target; `body` is the whole body when it was kept. */
  function open(req: IncomingMessage, res: ServerResponse, body: Buffer | undefined, started: number) {
    const headers = forwardedHeaders(req, target);
    const sentBody = req.headers["content-length"] !== undefined || req.headers["transfer-encoding"] !== undefined;
    if (sentBody && body !== undefined) headers["content-length"] = String(body.length);
    else if (sentBody && body === undefined && req.headers["transfer-encoding"] === undefined)
      headers["content-length"] = "0";
    else if (!sentBody || body === undefined) delete headers["content-length"];
    let answered = false;
    const upstream = send(
      `${target.protocol}//${target.host}${prefix}${req.url ?? "/"}`,
      { method: req.method, headers, agent, timeout: TARGET_TIMEOUT_MS },
      (answer) => {
        answered = true;
        receive(req, res, answer, body, started);
      },
    );
    let timedOut = false;
    upstream.on("timeout", () => {
      timedOut = true;
      upstream.destroy(new Error(`no answer within ${TARGET_TIMEOUT_MS / 1000} s`));
    });
    upstream.on("error", (err) => {
      // The target answered before it read a streamed body and closed: its answer stands.
      if (answered) {
        req.unpipe(upstream);
        req.resume();
        return;
      }
      if (res.headersSent) {
        res.destroy();
        return;
      }
      const message = `bawa proxy: the target ${shownTarget} did not answer: ${(err as NodeJS.ErrnoException).code ?? err.message}`;
      const text = JSON.stringify({ Message: message });
      const status = timedOut ? 504 : 502;
      res.writeHead(status, {
        "content-type": "application/json; charset=utf-8",
        "content-length": Buffer.byteLength(text),
        "x-bawa-proxy": "no answer",
      });
      res.end(text);
      log.record(entry(req, status, now() - started, { problem: message }));
    });
    res.on("close", () => {
      if (!res.writableFinished) upstream.destroy();
    });
    return upstream;
  }

  function receive(
    req: IncomingMessage,
    res: ServerResponse,
    answer: IncomingMessage,
    requestBody: Buffer | undefined,
    started: number,
  ): void {
    const chunks: Buffer[] = [];
    let size = 0;
    let passing = false;
    const status = answer.statusCode ?? 502;
    const headers = answeredHeaders(answer, target, prefix, req.headers.host);
    answer.on("data", (c: Buffer) => {
      if (passing) return;
      size += c.length;
      chunks.push(c);
      if (size > JUDGE_LIMIT_BYTES) {
        // Too large to keep: passed on as it comes, judged on its status and headers alone.
        passing = true;
        res.writeHead(status, answer.statusMessage, flat(headers));
        for (const kept of chunks) res.write(kept);
        chunks.length = 0;
        answer.pipe(res);
      }
    });
    answer.on("end", () => {
      const raw = Buffer.concat(chunks);
      const ex: Exchange = {
        method: req.method ?? "GET",
        url: req.url ?? "/",
        requestHeaders: req.headers as Record<string, string | undefined>,
        requestBody,
        status,
        headers: Object.fromEntries(headers.map(([k, v]) => [k.toLowerCase(), v])) as Exchange["headers"],
        body: passing ? undefined : decoded(raw, answer.headers["content-encoding"]),
        at: now(),
      };
      if (ex.headers["set-cookie"] !== undefined) {
        (ex.headers as Record<string, unknown>)["set-cookie"] = headers
          .filter(([k]) => k.toLowerCase() === "set-cookie")
          .map(([, v]) => v);
      }
      let violations: Violation[] = [];
      try {
        violations = judge.judge(ex);
      } catch (err) {
        console.error(
          `bawa proxy: internal error judging ${ex.method} ${ex.url} (a bug of bawa; the answer was passed on):`,
          err,
        );
      }
      try {
        if (recording?.apply(ex)) scheduleFlush();
      } catch (err) {
        console.error(`bawa proxy: internal error recording ${ex.method} ${ex.url} (a bug of bawa):`, err);
      }
      report.add(ex, violations);
      const requestProblem = (e: Exchange) => {
        try {
          return judge.requestProblem(e);
        } catch {
          return undefined;
        }
      };
      if (!passing) {
        const out = headers.filter(([k]) => k.toLowerCase() !== "content-length");
        const bodyless = req.method === "HEAD" || status === 204 || status === 304;
        const length = bodyless ? answer.headers["content-length"] : String(raw.length);
        if (length !== undefined) out.push(["content-length", length]);
        if (violations.length > 0) {
          out.push(["x-bawa-violations", String(violations.length)]);
          // A page on another origin that the target lets read its answers may read the count too.
          const exposed = out.findIndex(([k]) => k.toLowerCase() === "access-control-expose-headers");
          if (exposed >= 0) out[exposed] = [out[exposed]![0], `${out[exposed]![1]}, X-Bawa-Violations`];
        }
        res.writeHead(status, answer.statusMessage, flat(out));
        res.end(raw);
      }
      const place = judge.places.of(ex.method, ex.url);
      const op = place.operation;
      log.record(
        entry(req, status, now() - started, {
          route: place.operationId,
          client: clientOf(ex),
          database: op?.databaseParam ? place.params[op.databaseParam] : undefined,
          problem: passing
            ? `the answer is larger than ${JUDGE_LIMIT_BYTES} bytes: passed on unjudged`
            : requestProblem(ex),
          violations: violations.length ? violations : undefined,
        }),
      );
    });
    answer.on("error", () => res.destroy());
  }

  function entry(
    req: IncomingMessage,
    status: number,
    ms: number,
    more: {
      route?: string | undefined;
      client?: string | undefined;
      database?: string | undefined;
      problem?: string | undefined;
      violations?: Violation[] | undefined;
    },
  ) {
    const at = now();
    return {
      at,
      mockAt: judge.memory.targetTime(at),
      method: req.method ?? "GET",
      path: req.url ?? "/",
      status,
      ms: Math.round(ms * 100) / 100,
      route: more.route,
      client: more.client,
      database: more.database,
      problem: more.problem,
      violations: more.violations,
    };
  }

  await new Promise<void>((done, fail) => {
    server.once("error", fail);
    server.listen(options.port, options.host, () => {
      server.off("error", fail);
      done();
    });
  });
  const { port } = server.address() as AddressInfo;
  own.ctx.config.ownHosts = ownHosts(options.host, port, options.allowedHosts ?? []);
  const host = options.host.includes(":") ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}`,
    log,
    judge,
    report,
    recording,
    close: () =>
      new Promise<void>((done) => {
        clearTimeout(flushTimer);
        flushTimer = undefined;
        server.close(() => {
          agent.destroy();
          flush();
          done();
        });
        server.closeAllConnections();
      }),
  };
}

/** The request's headers for the target: as sent, but Host names the target and X-Forwarded-* the client. */
function forwardedHeaders(req: IncomingMessage, target: URL): Record<string, string | string[]> {
  const listed = new Set(
    String(req.headers.connection ?? "")
      .split(",")
      .map((h) => h.trim().toLowerCase()),
  );
  const out: Record<string, string | string[]> = {};
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i]!;
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower) || listed.has(lower) || lower === "host") continue;
    let value = req.rawHeaders[i + 1]!;
    // The proxy's own dashboard cookie (its control token) is the proxy's, never the target's.
    if (lower === "cookie") {
      value = value
        .split(";")
        .filter((c) => c.trim().split("=")[0] !== CONTROL_COOKIE)
        .join(";");
      if (value.trim() === "") continue;
    }
    const known = out[lower];
    out[lower] = known === undefined ? value : [...[known].flat(), value];
  }
  const forwardedFor = req.headers["x-forwarded-for"];
  const client = req.socket.remoteAddress ?? "";
  out.host = target.host;
  out["x-forwarded-for"] = forwardedFor ? `${forwardedFor}, ${client}` : client;
  out["x-forwarded-host"] = req.headers.host ?? "";
  out["x-forwarded-proto"] = "http";
  return out;
}

/**
 * The answer's headers for the client, as the target sent them, but for what
 * forwarding needs: no hop-by-hop headers, a redirect to the target's own
 * address sent to the proxy's instead (so a browser stays on the proxy, as
 * nginx's proxy_redirect does), and a cookie's Domain of the target dropped
 * (so the browser keeps it for the proxy's address).
 */
function answeredHeaders(
  answer: IncomingMessage,
  target: URL,
  prefix: string,
  host: string | undefined,
): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const base = `${target.protocol}//${target.host}${prefix}`;
  for (let i = 0; i < answer.rawHeaders.length; i += 2) {
    const name = answer.rawHeaders[i]!;
    let value = answer.rawHeaders[i + 1]!;
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower)) continue;
    if (
      lower === "location" &&
      host &&
      (value === base || value.startsWith(`${base}/`) || value.startsWith(`${base}?`))
    ) {
      value = `http://${host}${value.slice(base.length)}`;
    }
    if (lower === "set-cookie") {
      value = value.replace(new RegExp(`;\\s*domain=\\.?${escapeRegExp(target.hostname)}\\s*(?=;|$)`, "i"), "");
    }
    out.push([name, value]);
  }
  return out;
}

/** The client id an OAuth request names (the authorization request's query, the token request's form or Basic header). */
function clientOf(ex: Exchange): string | undefined {
  return (
    queryOf(ex.url).get("client_id") ?? formOf(ex)?.client_id ?? basicCredentials(ex.requestHeaders.authorization)?.id
  );
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const flat = (headers: Array<[string, string]>) => headers.flat();

/** The body as the client reads it, for the judge and the recording (the client gets the bytes as sent). */
function decoded(raw: Buffer, encoding: string | undefined): Buffer | undefined {
  try {
    switch ((encoding ?? "").trim().toLowerCase()) {
      case "":
      case "identity":
        return raw;
      case "gzip":
      case "x-gzip":
        return gunzipSync(raw);
      case "deflate":
        return inflateSync(raw);
      case "br":
        return brotliDecompressSync(raw);
      default:
        return undefined;
    }
  } catch {
    return undefined;
  }
}
