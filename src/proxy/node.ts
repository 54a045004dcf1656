// The thin network adapter of bawa proxy: node:http in, node:http(s) out to
// the target. Every request is forwarded as it came, with its body framed by
// its real length (or chunked) whatever its method (only Host, the
// X-Forwarded-* headers, and an Origin or Referer that names the proxy are
// set, as forwarding needs), every answer returned as the target gave it. The
// proxy answers in its own name only its own control calls (the dashboard and
// GET /__mock/requests, served by the mock's own routes and guard), a request
// target it can not forward faithfully (400), a mock's control call or portal
// page that the mock's guard would refuse at the proxy's address, and a 502
// when the target can not be reached. Each client address has a share of the
// upstream pool (fair.ts). In between, the judge reads each exchange and the
// recording takes in its objects; neither may ever hold up or break the
// forwarding, and what either shows passes one redaction (redact.ts).
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
  STATUS_CODES,
} from "node:http";
import type { AddressInfo } from "node:net";
import { PassThrough, Readable } from "node:stream";
import { brotliDecompress, gunzip, inflate, type ZlibOptions } from "node:zlib";
import { type Dispatcher, Pool } from "undici";
import type { CompiledContract } from "../contract/index.ts";
import { createMock, parseTarget, type Target } from "../mock/core/app.ts";
import { requestLogRoute } from "../mock/core/control.ts";
import type { AllowedOrigins } from "../mock/core/cors.ts";
import { JSON_FORMAT } from "../mock/core/format.ts";
import { absoluteForm, bodyBytes, type MockResponse } from "../mock/core/http.ts";
import { BODY_LIMIT_BYTES, HEADERS_TIMEOUT_MS } from "../mock/core/limits.ts";
import { CONTROL_COOKIE, refuseForeign } from "../mock/core/local.ts";
import { RequestLog } from "../mock/core/request-log.ts";
import { matchRoute, type RoutedRequest } from "../mock/core/router.ts";
import { dashboardRoutes } from "../mock/dashboard/routes.ts";
import { ownHosts } from "../mock/node/listen.ts";
import { TurnQueue } from "../mock/node/turn.ts";
import { basicCredentials, type Exchange, formOf, jsonOf, queryOf, type Violation } from "../rules/exchange.ts";
import { Judge } from "../rules/judge/index.ts";
import { isObject } from "../rules/judge/step.ts";
import { escapeRegExp, redact, redactViolation } from "../rules/redact.ts";
import { FairGate, PER_CLIENT, POOL_SIZE } from "./fair.ts";
import { Recording, RecordingWriter } from "./record.ts";
import { ViolationReport } from "./report.ts";
import { type LocalCall, localCall, targetProblem } from "./request-target.ts";

/**
 * Bodies up to this size are kept to judge and record (a compressed answer: up to this size
 * decompressed); a larger request or answer is passed on as it came, its body not read.
 */
export const JUDGE_LIMIT_BYTES = 64 * 1024 * 1024;
/** Addresses a proxy may listen on without a control token: the mock's control calls stay local. */
const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/i;
/** How long the target may take to accept a connection, to begin its answer, and between its chunks. */
export const TARGET_TIMEOUT_MS = 120_000;
/** The body of a request that has none. */
const NO_BODY = Buffer.alloc(0);
/** Statuses whose answer ends at its headers, whatever Content-Length says (RFC 9112 6.3). */
const NO_BODY_STATUS: ReadonlySet<number> = new Set([204, 304]);
/** undici's error for an answer whose body is not as long as its Content-Length said. */
const LENGTH_MISMATCH = "UND_ERR_RES_CONTENT_LENGTH_MISMATCH";
/** A request without a Connection header lists no more headers of its connection. */
const NONE_LISTED: ReadonlySet<string> = new Set();
/**
 * Request headers the proxy writes itself: the target's Host, the body's length (as read), the
 * X-Forwarded-* of this hop (a client's X-Forwarded-For is continued), and no Expect: node:http
 * answered a client's 100-continue, and the body goes on whole.
 */
const SET_BY_PROXY = new Set([
  "host",
  "content-length",
  "expect",
  "x-forwarded-for",
  "x-forwarded-host",
  "x-forwarded-proto",
]);
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
  /** Count what of the contract the traffic exercised, for the report's coverage (`--report`). */
  coverage?: boolean;
  /** How long after a change the recording is written at the soonest (the last changes are written on close). */
  recordDelayMs?: number;
  /** The largest body kept to judge ({@link JUDGE_LIMIT_BYTES}). */
  judgeLimitBytes?: number;
  /** How long the target may take ({@link TARGET_TIMEOUT_MS}); past it the client gets a 504. */
  targetTimeoutMs?: number;
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

/**
 * A refusal's own words, for the log (the target's 401 or 400 otherwise shows no reason there): a
 * JSON error's Message, or an OAuth error with its description; redacted, cut to 300 characters.
 */
function refusalOf(ex: Exchange): string | undefined {
  if (ex.status < 400) return undefined;
  const v = jsonOf(ex.body)?.value;
  if (!isObject(v)) return undefined;
  const words =
    typeof v.Message === "string"
      ? v.Message
      : typeof v.error === "string"
        ? [v.error, v.error_description].filter((w) => typeof w === "string").join(": ")
        : undefined;
  return words ? redact(words).slice(0, 300) : undefined;
}

/** Starts the proxy; resolves once its port is open. */
export async function startProxy(options: ProxyOptions): Promise<RunningProxy> {
  const target = new URL(options.target);
  if (target.protocol !== "http:" && target.protocol !== "https:") {
    throw new Error(`the target must be an http or https URL, not ${options.target}`);
  }
  if (!LOOPBACK.test(options.host) && !options.controlToken) {
    // Its guard stands in for the mock's on the mock's control calls and portal: off loopback, only with a token.
    throw new Error(`a proxy on the non-loopback address ${options.host} needs a control token (--control-token)`);
  }
  const prefix = target.pathname.replace(/\/+$/, "");
  const shownTarget = `${target.protocol}//${target.host}${prefix}`;
  const now = options.now ?? Date.now;
  const judgeLimit = options.judgeLimitBytes ?? JUDGE_LIMIT_BYTES;
  const targetTimeout = options.targetTimeoutMs ?? TARGET_TIMEOUT_MS;
  const log = new RequestLog();
  const judge = new Judge(options.contract);
  const report = new ViolationReport(options.coverage ? { contractDoc: options.contract.doc } : {});
  const recording = options.recordDir ? new Recording(options.contract, judge.places) : undefined;
  if (recording && options.recordDir) recording.load(options.recordDir);
  const writer =
    recording && options.recordDir
      ? new RecordingWriter(recording, options.recordDir, {
          target: shownTarget,
          ...(options.recordDelayMs === undefined ? {} : { minDelayMs: options.recordDelayMs }),
        })
      : undefined;

  // The proxy's own pages and control calls are the mock's (its router, guard and dashboard).
  // Answers judged whole and answers that broke a rule, since the start: the dashboard's log keeps
  // the last 500 entries, and a proxy that found nothing must say that it looked. (The report's
  // own counts take every exchange, read or not: its `exchanges` is what the proxy passed on.)
  const tally = { judged: 0, violated: 0 };
  const ownRoutes = [
    ...dashboardRoutes({ proxyOf: shownTarget }),
    requestLogRoute(log, () => ({ judged: tally.judged, violated: tally.violated })),
  ];
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
  const isOwn = (parsed: Target) =>
    parsed.ok && parsed.segments[0]?.toLowerCase() === "__mock" && matchRoute(ownRoutes, parsed.segments) !== undefined;

  // undici's pool, not node:http's client: half the CPU per exchange (decision 0037).
  const pool = new Pool(target.origin, {
    connections: POOL_SIZE,
    // One limit for each wait, as node:http's socket timeout was: undici's own are 10 s to connect
    // and 300 s for the headers and between chunks.
    connect: { timeout: targetTimeout },
    headersTimeout: targetTimeout,
    bodyTimeout: targetTimeout,
  });
  const gate = new FairGate(POOL_SIZE, PER_CLIENT);

  // The answers that ended in one turn are judged and written one after the other (turn.ts).
  const turn = new TurnQueue();

  // A request's headers must arrive within the mock's limit; its body may take as long as the target allows.
  const server = createServer({ maxHeaderSize: 64 * 1024, headersTimeout: HEADERS_TIMEOUT_MS }, (req, res) => {
    const started = now();
    // The absolute form (RFC 9112 3.2.2), as a client with HTTP_PROXY set sends it: its path is
    // what goes on; anything else that is not a path ("*") the target could not be asked.
    const url = req.url ?? "/";
    if (!url.startsWith("/")) {
      const absolute = absoluteForm(url);
      if (!absolute) {
        refuse(req, res, started, `the request target ${JSON.stringify(url.slice(0, 100))} is not a path`);
        return;
      }
      req.url = absolute.path;
    }
    // What the judge reads is what the target gets, and nothing outside the target's prefix.
    const problem = targetProblem(req.url ?? "/");
    if (problem) {
      refuse(req, res, started, problem);
      return;
    }
    // Read once, as the mock reads a path: the proxy's own calls, and a mock's behind it.
    const parsed = parseTarget(req.url ?? "/");
    if (isOwn(parsed)) {
      answerOwn(req, res);
      return;
    }
    const local = localCall(parsed);
    const refused = local ? guard(req, local, parsed) : undefined;
    if (refused) {
      req.resume();
      write(res, { ...refused, headers: { ...refused.headers, "x-bawa-proxy": "refused" } });
      const why = refused.meta?.problem || `the guard of a mock's ${local} refused it at the proxy`;
      log.record(entry(req, refused.status, now() - started, { problem: why }));
      return;
    }
    forward(req, res, started);
  });

  /** A request target the proxy does not forward: 400, saying why, and the connection closed. */
  function refuse(req: IncomingMessage, res: ServerResponse, started: number, problem: string): void {
    req.resume();
    res.writeHead(400, { "content-type": "text/plain; charset=utf-8", connection: "close", "x-bawa-proxy": "refused" });
    res.end(`bawa proxy: ${redact(problem)}\n`);
    log.record(entry(req, 400, now() - started, { problem }));
  }

  /**
   * The guard of a bawa mock's control calls and portal (local.ts), applied at the proxy for the
   * proxy's own addresses and token: forwarded, such a call reaches the mock with the target's Host,
   * which its own guard lets through.
   */
  function guard(req: IncomingMessage, local: LocalCall, parsed: Target): MockResponse | undefined {
    const routed: RoutedRequest = {
      method: req.method ?? "GET",
      url: req.url ?? "/",
      headers: req.headers as Record<string, string | undefined>,
      body: undefined,
      remoteAddress: req.socket.remoteAddress,
      ctx: own.ctx,
      params: {},
      query: parsed.ok ? parsed.query : new Map(),
      format: JSON_FORMAT,
      versionSegment: "",
    };
    return refuseForeign(routed, local === "control" ? "/__mock" : "/portal");
  }

  function answerOwn(req: IncomingMessage, res: ServerResponse): void {
    // Its own calls are small JSON; what is over the mock's limit is not kept.
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size <= BODY_LIMIT_BYTES) chunks.push(c);
    });
    req.on("end", () => {
      write(
        res,
        own.handle({
          method: req.method ?? "GET",
          url: req.url ?? "/",
          headers: req.headers as Record<string, string | undefined>,
          body: chunks.length ? Buffer.concat(chunks) : undefined,
        }),
      );
    });
  }

  /** Waits for the client's turn at the target (fair.ts), unread, then reads and forwards the request. */
  function forward(req: IncomingMessage, res: ServerResponse, started: number): void {
    let admitted = false;
    const withdraw = gate.enter(req.socket.remoteAddress ?? "", (release) => {
      admitted = true;
      if (res.destroyed || res.writableEnded) release();
      else read(req, res, started, release);
    });
    // A client that leaves while it waits gives up its place.
    if (!admitted) res.once("close", withdraw);
  }

  /**
   * Reads the request's body, then sends it to the target whole: a target that answers before it read
   * a body (a 413 at once) and closes would otherwise cut the answer off while the body still streams.
   * A body larger than the judge keeps is streamed on as it comes, with its framing.
   */
  function read(req: IncomingMessage, res: ServerResponse, started: number, release: () => void): void {
    // Without Content-Length or Transfer-Encoding a request has no body (RFC 9112 6.3), as most
    // calls: sent on at once, without waiting for the stream's end.
    if (req.headers["content-length"] === undefined && req.headers["transfer-encoding"] === undefined) {
      req.resume();
      open(req, res, { streamed: false, body: NO_BODY }, started, release);
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let opened = false;
    res.on("close", () => {
      if (!opened) release();
    });
    const hold = (c: Buffer) => {
      size += c.length;
      chunks.push(c);
      if (size <= judgeLimit) return;
      req.off("data", hold);
      req.off("end", whole);
      req.pause();
      opened = true;
      const rest = new PassThrough();
      for (const c of chunks.splice(0)) rest.write(c);
      req.pipe(rest);
      // A target that answered before it read the whole body leaves the rest unread: drained.
      rest.once("close", () => {
        req.unpipe(rest);
        req.resume();
      });
      open(req, res, { streamed: true, stream: rest }, started, release);
    };
    const whole = () => {
      opened = true;
      open(req, res, { streamed: false, body: Buffer.concat(chunks) }, started, release);
    };
    req.on("data", hold);
    req.on("end", whole);
  }

  /** The request to the target: its body read whole, or streamed on when it is too large to keep. */
  function open(
    req: IncomingMessage,
    res: ServerResponse,
    sent: { streamed: false; body: Buffer } | { streamed: true; stream: PassThrough },
    started: number,
    release: () => void,
  ): void {
    const headers = forwardedHeaders(req, target, prefix, own.ctx.config.ownHosts);
    // A body keeps its framing on every method: its length, or chunks when it came in chunks and is
    // streamed on (undici frames a stream without a length so).
    const chunked = req.headers["transfer-encoding"] !== undefined;
    if (!sent.streamed) {
      if (chunked || req.headers["content-length"] !== undefined)
        headers.push("content-length", String(sent.body.length));
    } else if (!chunked) {
      headers.push("content-length", req.headers["content-length"]!);
    }
    // Read through a stream of its own: undici sends a stream that has ended already (a body just
    // past the limit, read whole by now) with a length instead of the chunks it came in.
    const kept = sent.streamed || sent.body.length === 0 ? undefined : sent.body;
    const body = sent.streamed ? Readable.from(sent.stream, { objectMode: false }) : (kept ?? null);
    const request = { body: kept, notRead: sent.streamed };
    let flow: Dispatcher.DispatchController | undefined;
    let left = false;
    // undici's own timers rest while a streamed body is still being sent and while the answer is
    // held back for a slow client: the proxy keeps the limit itself there, and only there.
    let idle: NodeJS.Timeout | undefined;
    let timedOut = false;
    const expire = () => {
      timedOut = true;
      flow?.abort(new Error(`no answer within ${targetTimeout / 1000} s`));
    };
    let over = false;
    const watch = {
      go: () => {
        if (over) return;
        if (idle) idle.refresh();
        else idle = setTimeout(expire, targetTimeout);
      },
      stop: () => {
        clearTimeout(idle);
        idle = undefined;
      },
      /** The exchange is over: nothing starts the limit again. */
      end: () => {
        over = true;
        watch.stop();
      },
    };
    if (sent.streamed) {
      watch.go();
      req.on("data", watch.go);
    }
    res.on("close", () => {
      if (res.writableFinished) return;
      left = true;
      // Not started yet (connecting, or queued in the pool): its share goes now (the gate's release
      // counts once), the request when it starts.
      if (!flow) release();
      flow?.abort(new Error("the client closed its connection"));
    });
    let answer: Receiving | undefined;
    let dispatching = true;
    pool.dispatch(
      // As sent: no URL parser between the judge's path and the target's (it would resolve dot segments).
      { path: `${prefix}${req.url ?? "/"}`, method: req.method ?? "GET", headers, body },
      {
        onRequestStart(controller) {
          flow = controller;
          if (left || timedOut)
            controller.abort(new Error(left ? "the client closed its connection" : "no answer in time"));
        },
        onResponseStart(controller, status, parsed, message) {
          // An informational answer (103 Early Hints) is not the answer: node:http's client passed none on either.
          if (status < 200) return;
          if (sent.streamed) req.off("data", watch.go);
          watch.stop();
          const phrase = reasonPhrase(message);
          const answered: Answered = {
            status,
            message: phrase,
            // node:http writes the status's standard phrase in place of none (`unknown` for a status it does not know).
            phraseProblem:
              phrase === undefined && message
                ? `the target's reason phrase ${JSON.stringify(message)} can not be sent on (not UTF-8, or a control character): the client got "${status} ${STATUS_CODES[status] ?? "unknown"}"`
                : undefined,
            rawHeaders: rawHeadersOf(controller.rawHeaders, parsed),
            connection: joined(parsed.connection),
            encoding: joined(parsed["content-encoding"]),
            length: joined(parsed["content-length"]),
          };
          answer = receive(req, res, answered, request, started, { flow: controller, watch });
        },
        onResponseData(_controller, chunk) {
          answer?.data(chunk);
        },
        onResponseEnd() {
          watch.end();
          release();
          // What throws here would reach undici's client as an error event no one listens to.
          try {
            answer?.end();
          } catch (err) {
            internalError(req, res, err);
          }
        },
        onResponseError(_controller, err) {
          watch.end();
          release();
          try {
            // A 204 or 304 ends at its headers whatever its Content-Length says (RFC 9112 6.3; a
            // 304's names what it stands for, RFC 9110 8.6). undici 7 counts the body that never
            // comes as a broken answer and closes the connection, but the answer is whole.
            if (answer && NO_BODY_STATUS.has(answer.status) && (err as NodeJS.ErrnoException).code === LENGTH_MISMATCH)
              answer.end();
            else failed(err);
          } catch (e) {
            internalError(req, res, e);
          }
        },
      },
    );
    dispatching = false;

    /** No answer from the target: 502 or 504 saying why, or the connection closed when one was under way. */
    function failed(err: Error): void {
      const code = (err as NodeJS.ErrnoException).code;
      // undici refused the request before sending it: a header the proxy should have left out.
      const refused = dispatching && (code === "UND_ERR_INVALID_ARG" || code === "UND_ERR_NOT_SUPPORTED");
      const late =
        timedOut ||
        code === "UND_ERR_HEADERS_TIMEOUT" ||
        code === "UND_ERR_BODY_TIMEOUT" ||
        code === "UND_ERR_CONNECT_TIMEOUT";
      const why = late
        ? `no answer within ${targetTimeout / 1000} s`
        : (err as NodeJS.ErrnoException).syscall && code
          ? code
          : err.message === "bad response"
            ? "an answer it could not read (bad response: a 100 Continue it was not asked for is one)"
            : err.message;
      // The answer was under way: what the client has of it is all there is. The log says so (a
      // frontend's broken download left no line), unless the client itself went.
      if (answer || res.headersSent || left) {
        res.destroy();
        if (!left)
          log.record(
            entry(req, answer?.status ?? res.statusCode, now() - started, {
              problem: `bawa proxy: the answer of the target ${shownTarget} ${late ? `was not whole within ${targetTimeout / 1000} s (the target stopped sending, or the client took it slower than it came)` : `broke off: ${why}`}; the client's connection was closed`,
            }),
          );
        return;
      }
      const message = refused
        ? `bawa proxy: the request can not be sent on: ${err.message}`
        : `bawa proxy: the target ${shownTarget} did not answer: ${why}`;
      if (refused) console.error(`${message} (a bug of bawa: it should have left that out)`);
      const text = JSON.stringify({ Message: message });
      const status = refused ? 400 : late ? 504 : 502;
      res.writeHead(status, {
        "content-type": "application/json; charset=utf-8",
        "content-length": Buffer.byteLength(text),
        "x-bawa-proxy": refused ? "refused" : "no answer",
        // A body still coming would be read as the next request: the connection ends with this answer.
        ...(req.complete ? {} : { connection: "close" }),
      });
      res.end(text);
      log.record(entry(req, status, now() - started, { problem: message }));
    }
  }

  /** Takes in the target's answer as it comes: held whole to be judged, or passed on when too large. */
  function receive(
    req: IncomingMessage,
    res: ServerResponse,
    answer: Answered,
    request: { body: Buffer | undefined; notRead: boolean },
    started: number,
    { flow, watch }: { flow: Dispatcher.DispatchController; watch: { go(): void; stop(): void } },
  ): Receiving {
    const chunks: Buffer[] = [];
    let size = 0;
    let passing = false;
    const { status } = answer;
    const headers = answeredHeaders(answer.rawHeaders, target, prefix, req.headers.host, answer.connection);
    // A request body too large to keep was not read: the exchange can not be judged as the client sent it.
    const { notRead } = request;
    /**
     * The target waits while a client slower than it has not taken what was passed on; the limit
     * runs from each part the target sent and each the client took.
     */
    const keepPace = (ready: boolean) => {
      watch.go();
      if (ready) return;
      flow.pause();
      res.once("drain", () => {
        watch.go();
        flow.resume();
      });
    };
    const data = (c: Buffer) => {
      if (passing) {
        keepPace(res.write(c));
        return;
      }
      size += c.length;
      chunks.push(c);
      if (size > judgeLimit) {
        // Too large to keep: passed on as it comes, judged on its status and headers alone.
        passing = true;
        res.writeHead(status, answer.message, flat(headers));
        let ready = true;
        for (const kept of chunks) ready = res.write(kept);
        chunks.length = 0;
        keepPace(ready);
      }
    };
    return { status, data, end };
    function end(): void {
      if (passing) res.end();
      const raw = Buffer.concat(chunks);
      const judged = (reading: Decoded) =>
        turn.later(
          () => finish(reading),
          (err) => internalError(req, res, err),
        );
      if (passing) judged({});
      else {
        const reading = decoded(raw, answer.encoding, judgeLimit);
        // An answer as it came (most are) is judged in this turn; a compressed one once decompressed.
        if (reading instanceof Promise) void reading.then(judged);
        else judged(reading);
      }
      function finish({ body, over }: Decoded): void {
        const ex: Exchange = {
          method: req.method ?? "GET",
          url: req.url ?? "/",
          requestHeaders: req.headers as Record<string, string | undefined>,
          requestBody: request.body,
          status,
          headers: judgedHeaders(headers),
          body,
          at: now(),
        };
        let violations: Violation[] = [];
        let broke = false;
        try {
          if (!notRead) {
            violations = judge.judge(ex).map(redactViolation);
            // Judged whole: its body read, and an address of the API (a favicon or a page the
            // contract does not have is read for no rule). One judged on its headers alone may
            // still break a rule.
            const place = judge.placeOf(ex);
            if (!passing && !over && (place.template !== undefined || place.endpoint === "data")) tally.judged++;
            if (violations.length > 0) tally.violated++;
          }
        } catch (err) {
          broke = true;
          console.error(
            `bawa proxy: internal error judging ${ex.method} ${redact(ex.url)} (a bug of bawa; the answer was passed on):`,
            err,
          );
        }
        try {
          if (!notRead && recording?.apply(ex)) writer?.changed();
        } catch (err) {
          console.error(`bawa proxy: internal error recording ${ex.method} ${redact(ex.url)} (a bug of bawa):`, err);
        }
        report.add(ex, violations, judge.placeOf(ex));
        if (!passing) {
          // Names and values in turn, as writeHead takes them.
          const out: string[] = [];
          for (const [k, v] of headers) if (k.toLowerCase() !== "content-length") out.push(k, v);
          const bodyless = req.method === "HEAD" || status === 204 || status === 304;
          const length = bodyless ? answer.length : String(raw.length);
          if (length !== undefined) out.push("content-length", length);
          if (violations.length > 0) {
            out.push("x-bawa-violations", String(violations.length));
            // A page on another origin that the target lets read its answers may read the count too.
            for (let i = 0; i < out.length; i += 2) {
              if (out[i]!.toLowerCase() !== "access-control-expose-headers") continue;
              out[i + 1] += ", X-Bawa-Violations";
              break;
            }
          }
          // With the turn's other answers, once all are judged (TurnQueue.send says why).
          turn.send(writePassedOn, res, { status, message: answer.message, headers: out, body: raw });
        }
        // The answer is held for the end of the turn: a bug in its log entry must not cost the
        // client that answer (the turn's failure would close the connection before it is written).
        try {
          const place = judge.placeOf(ex);
          const op = place.operation;
          const problem = notRead
            ? `the request body is larger than ${judgeLimit} bytes: forwarded, not read (the exchange is not judged)`
            : passing
              ? `the answer is larger than ${judgeLimit} bytes: passed on unjudged`
              : over
                ? `the answer decompresses to more than ${judgeLimit} bytes: passed on as it came, its body not read`
                : broke
                  ? "not judged: an internal error of bawa (the proxy's output shows it)"
                  : (requestProblem(ex) ?? refusalOf(ex));
          log.record(
            entry(req, status, now() - started, {
              route: place.operationId,
              client: clientOf(ex) ?? judge.clientOfToken(ex),
              database: op?.databaseParam ? place.params[op.databaseParam] : undefined,
              problem:
                answer.phraseProblem && problem
                  ? `${answer.phraseProblem}; ${problem}`
                  : (answer.phraseProblem ?? problem),
              violations: violations.length ? violations : undefined,
            }),
          );
        } catch (err) {
          console.error(`bawa proxy: internal error logging ${ex.method} ${redact(ex.url)} (a bug of bawa):`, err);
        }
      }
    }
  }

  /** What a request itself breaks of the contract, shown beside the answer; never a reason not to log it. */
  function requestProblem(ex: Exchange): string | undefined {
    try {
      return judge.requestProblem(ex);
    } catch {
      return undefined;
    }
  }

  /** A request-log entry: everything it shows passes the redaction. */
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
      path: redact(req.url ?? "/"),
      status,
      ms: Math.round(ms * 100) / 100,
      route: more.route,
      client: more.client,
      database: more.database,
      problem: redact(more.problem),
      violations: more.violations?.map(redactViolation),
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
        server.close(() => {
          void pool.destroy();
          writer?.close();
          done();
        });
        // The answers already in are judged, recorded and written before the connections go.
        turn.flush();
        server.closeAllConnections();
      }),
  };
}

/** A judged answer as the proxy passes it on: the target's status and body, its headers completed. */
interface PassedOn {
  status: number;
  message: string | undefined;
  /** Names and values in turn, as writeHead takes them. */
  headers: string[];
  body: Buffer;
}

function writePassedOn(res: ServerResponse, a: PassedOn): void {
  try {
    res.writeHead(a.status, a.message, a.headers);
    res.end(a.body);
  } catch (err) {
    console.error(`bawa proxy: internal error passing an answer on (a bug of bawa):`, err);
    res.destroy();
  }
}

/** A bug of bawa's while answering: said, and the client's connection closed (its answer can not be trusted). */
function internalError(req: IncomingMessage, res: ServerResponse, err: unknown): void {
  console.error(
    `bawa proxy: internal error answering ${req.method ?? "GET"} ${redact(req.url ?? "/")} (a bug of bawa):`,
    err,
  );
  res.destroy();
}

/** A mock's answer (the proxy's own pages, a guard's refusal) written to the client. */
function write(res: ServerResponse, answer: MockResponse): void {
  const body = bodyBytes(answer);
  res.writeHead(answer.status, {
    ...answer.headers,
    ...(body === undefined ? {} : { "content-length": String(Buffer.byteLength(body)) }),
  });
  res.end(body);
}

/**
 * The request's headers for the target: as sent, but Host names the target, X-Forwarded-* the
 * client, and an Origin or Referer that names the proxy (the address this request was sent to,
 * one of the proxy's own) names the target instead, as a browser on the target would send them:
 * a server that compares Origin with Host (a CSRF defence) sees its own page. No other Origin is
 * touched, so a page of another site still looks like one.
 */
function forwardedHeaders(req: IncomingMessage, target: URL, prefix: string, proxyHosts: readonly string[]): string[] {
  const listed = listedIn(req.headers.connection);
  const host = req.headers.host?.toLowerCase();
  const proxyOrigin = host !== undefined && proxyHosts.includes(host) ? `http://${host}` : undefined;
  // Names and values in turn, each as the client wrote it (a repeated header stays repeated).
  const out: string[] = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i]!;
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower) || listed.has(lower) || SET_BY_PROXY.has(lower)) continue;
    let value = req.rawHeaders[i + 1]!;
    // The proxy's own dashboard cookie (its control token) is the proxy's, never the target's.
    if (lower === "cookie") {
      value = value
        .split(";")
        .filter((c) => c.trim().split("=")[0] !== CONTROL_COOKIE)
        .join(";");
      if (value.trim() === "") continue;
    }
    if (proxyOrigin !== undefined && lower === "origin" && value.toLowerCase() === proxyOrigin) value = target.origin;
    if (proxyOrigin !== undefined && lower === "referer" && value.toLowerCase().startsWith(`${proxyOrigin}/`)) {
      value = `${target.origin}${prefix}${value.slice(proxyOrigin.length)}`;
    }
    out.push(name, value);
  }
  const forwardedFor = req.headers["x-forwarded-for"];
  const client = req.socket.remoteAddress ?? "";
  out.push(
    "host",
    target.host,
    "x-forwarded-for",
    forwardedFor ? `${forwardedFor}, ${client}` : client,
    "x-forwarded-host",
    req.headers.host ?? "",
    "x-forwarded-proto",
    "http",
  );
  return out;
}

/** The headers a Connection header lists (lower case): they belong to that connection alone (RFC 9110 7.6.1). */
function listedIn(connection: string | undefined): ReadonlySet<string> {
  return connection === undefined ? NONE_LISTED : new Set(connection.split(",").map((h) => h.trim().toLowerCase()));
}

/**
 * The answer's headers for the client, as the target sent them, but for what
 * forwarding needs: no hop-by-hop headers (those the target's Connection lists
 * too), a redirect to the target's own
 * address sent to the proxy's instead (so a browser stays on the proxy, as
 * nginx's proxy_redirect does), and a cookie's Domain of the target dropped
 * (so the browser keeps it for the proxy's address).
 */
function answeredHeaders(
  rawHeaders: readonly string[],
  target: URL,
  prefix: string,
  host: string | undefined,
  connection: string | undefined,
): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const base = `${target.protocol}//${target.host}${prefix}`;
  const listed = listedIn(connection);
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    let value = rawHeaders[i + 1]!;
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower) || listed.has(lower)) continue;
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
    (ex.url.includes("?") ? queryOf(ex.url).get("client_id") : undefined) ??
    formOf(ex)?.client_id ??
    basicCredentials(ex.requestHeaders.authorization)?.id
  );
}

/** The answer's headers as the judge reads them: lower-case names, the last of a repeated one, every Set-Cookie. */
function judgedHeaders(headers: ReadonlyArray<[string, string]>): Exchange["headers"] {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of headers) {
    const lower = name.toLowerCase();
    const known = out[lower];
    const kept = lower !== "set-cookie" ? value : Array.isArray(known) ? [...known, value] : [value];
    // A header named __proto__ is a header like any other, not the object's prototype.
    if (lower === "__proto__") Object.defineProperty(out, lower, { value: kept, enumerable: true, writable: true });
    else out[lower] = kept;
  }
  return out as Exchange["headers"];
}

const flat = (headers: Array<[string, string]>) => headers.flat();

/** The target's answer as it began: its status line and headers. */
interface Answered {
  status: number;
  /** The reason phrase as the client can be sent it (reasonPhrase). */
  message: string | undefined;
  /** Why the target's own phrase was not passed on, and what was, for the log. */
  phraseProblem: string | undefined;
  /** Names and values in turn, as the target wrote them. */
  rawHeaders: string[];
  /** Its Connection header, every one joined: the headers it lists are not passed on. */
  connection: string | undefined;
  encoding: string | undefined;
  length: string | undefined;
}

/** What takes in an answer's body as it comes, and its end. */
interface Receiving {
  status: number;
  data(chunk: Buffer): void;
  end(): void;
}

/** The answer's headers as written (undici's raw pairs, latin1 as node:http reads them); the parsed ones when it has none. */
function rawHeadersOf(raw: Dispatcher.DispatchController["rawHeaders"], parsed: IncomingHttpHeaders): string[] {
  if (Array.isArray(raw)) return raw.map((x: Buffer | string) => (typeof x === "string" ? x : x.toString("latin1")));
  const out: string[] = [];
  for (const [name, value] of Object.entries(parsed)) {
    for (const v of Array.isArray(value) ? value : [value ?? ""]) out.push(name, v);
  }
  return out;
}

/** What node:http writes in a status line (latin1): a tab, visible ASCII and obs-text (RFC 9112 4). */
const SENDABLE_PHRASE = /^[\t\x20-\x7e\x80-\xff]*$/;

/**
 * The target's reason phrase as the client can be sent it. undici reads it as UTF-8, and node:http
 * refuses to write a character past 0xff or a control character (ERR_INVALID_CHAR), which left the
 * client with no answer. Its UTF-8 bytes, one latin1 character each, are the bytes the target sent;
 * a phrase that was not UTF-8 (undici read it as U+FFFD) or holds a control character can not be
 * passed on, and the status's standard phrase goes instead (clients ignore it, RFC 9112 4).
 */
function reasonPhrase(message: string | undefined): string | undefined {
  if (message === undefined || /^[\t\x20-\x7e]*$/.test(message)) return message;
  const bytes = Buffer.from(message, "utf8").toString("latin1");
  return !message.includes("\ufffd") && SENDABLE_PHRASE.test(bytes) ? bytes : undefined;
}

/** A parsed header's value, a repeated one's values joined as node:http joins them. */
const joined = (value: string | string[] | undefined): string | undefined =>
  Array.isArray(value) ? value.join(", ") : value;

/** An answer's body as the judge reads it; none when it can not be read, `over` when it is too large. */
type Decoded = { body?: Buffer; over?: boolean };

/**
 * The body as the client reads it, for the judge and the recording (the client gets the bytes as
 * sent): decompressed off the event loop, and only up to `limit` bytes, so a small answer that
 * expands a thousandfold costs neither time on the loop nor memory past the limit (`over`).
 */
function decoded(raw: Buffer, encoding: string | undefined, limit: number): Decoded | Promise<Decoded> {
  type Inflate = (buf: Buffer, options: ZlibOptions, done: (err: Error | null, out: Buffer) => void) => void;
  const inflateWith = (fn: Inflate) =>
    new Promise<Decoded>((done) =>
      fn(raw, { maxOutputLength: Math.max(1, limit) }, (err, out) => {
        if (!err) done({ body: out });
        else done((err as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE" ? { over: true } : {});
      }),
    );
  switch ((encoding ?? "").trim().toLowerCase()) {
    case "":
    case "identity":
      return { body: raw };
    case "gzip":
    case "x-gzip":
      return inflateWith(gunzip);
    case "deflate":
      return inflateWith(inflate);
    case "br":
      return inflateWith(brotliDecompress as Inflate);
    default:
      return {};
  }
}
