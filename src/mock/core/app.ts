// The mock as one function from request to response. Knows nothing of sockets.
// Route, answer, then let the scenarios reshape the answer and the log record it.
import { type CompiledContract, contractInUse } from "../../contract/index.ts";
import {
  CHANGES_HEADER,
  type Changes,
  CLOCK_HEADER,
  changesHeader,
  clockHeader,
  controlChange,
} from "../../rules/mock-state.ts";
import { formatSuffix, isDataPath, versionOf, withEmptyDatabase } from "../../rules/paths.ts";
import { redact } from "../../rules/redact.ts";
import type { AnswerCode } from "./answer-codes.ts";
import type { TokenVerifier } from "./bearer.ts";
import { type Journal, StorageError } from "./changes.ts";
import { MovableClock } from "./clock.ts";
import { type AllowedOrigins, crossOriginPath, preflight, withCors } from "./cors.ts";
import { declaredStatuses, forcedAnswer } from "./forced.ts";
import { type Answering, answerFormat, encode, JSON_FORMAT, problem, XML_FORMAT } from "./format.ts";
import {
  absoluteForm,
  bodyBytes,
  type MockRequest,
  type MockResponse,
  type Params,
  parseParams,
  single,
} from "./http.ts";
import { refuseForeign } from "./local.ts";
import { RequestLog } from "./request-log.ts";
import { resourceRoutes } from "./resources.ts";
import {
  DEFAULT_CONFIG,
  type MockConfig,
  type MockContext,
  matchRoute,
  type Route,
  type RoutedRequest,
} from "./router.ts";
import { MAX_DELAY_MS, Scenarios, type TransformContext, WRITES } from "./scenarios.ts";
import { ObjectStore, type Seed } from "./store.ts";

export { DEFAULT_CONFIG } from "./router.ts";

export interface MockOptions {
  config?: Partial<MockConfig>;
  /** Whether the process has room for a write (MockContext.room). */
  room?: MockContext["room"];
  seed?: Seed;
  /** Records acknowledged changes (a data directory). */
  journal?: Journal;
  contract?: CompiledContract;
  clock?: MovableClock;
  tokens: TokenVerifier;
  /** The switches and rules in force; their rules object is the context's. */
  scenarios?: Scenarios;
  /** Routes of other parts (the authorization server), served under the version segment too. */
  routes?: readonly Route[];
  /** Routes outside the version segment (mock control, developer portal). */
  rootRoutes?: readonly Route[];
  log?: RequestLog;
  /** The origins a browser page may call from (CORS, A-CORS). */
  allowedOrigins?: () => AllowedOrigins;
}

export interface Mock {
  handle(req: MockRequest): MockResponse;
  /** The answer to a body over the size limit (A-LIMITS), in the negotiated format. */
  tooLarge(req: MockRequest): MockResponse;
  readonly ctx: MockContext;
  readonly clock: MovableClock;
  readonly scenarios: Scenarios;
  readonly log: RequestLog;
  /**
   * Names in an answer's headers, when it was decided, what control calls changed that a judge in
   * front may not have seen (src/rules/mock-state.ts): a moved clock's time, and how often tokens
   * may have ended or objects were reset. The network adapter calls it as soon as an answer is
   * made, before any delay; nothing is added while nothing was changed.
   */
  nameState(headers: Record<string, string>): void;
}

export function createMock(options: MockOptions): Mock {
  const clock = options.clock ?? new MovableClock();
  const changes: Changes = { tokens: 0, objects: 0 };
  const scenarios = options.scenarios ?? new Scenarios([]);
  const log = options.log ?? new RequestLog();
  const contract = options.contract ?? contractInUse();
  const ctx: MockContext = {
    contract,
    config: { ...DEFAULT_CONFIG, ...options.config },
    store: new ObjectStore(contract.resources, options.seed, options.journal),
    clock,
    tokens: options.tokens,
    rules: scenarios.rules,
    allowedOrigins: options.allowedOrigins ?? (() => []),
    room: options.room,
  };
  // The data API: every operation of the contract's resource model (resources.ts).
  const apiRoutes = resourceRoutes(contract.resources, contract.doc);
  const routes = [...(options.routes ?? []), ...apiRoutes];
  const rootRoutes = options.rootRoutes ?? [];

  /** The contract's operationId of a route and method, else `METHOD /path`: how answers name their route. */
  const names = new WeakMap<Route, Map<string, string>>();
  const routeName = (route: Route, method: string) => {
    let byMethod = names.get(route);
    if (!byMethod) {
      byMethod = new Map();
      names.set(route, byMethod);
    }
    let name = byMethod.get(method);
    if (name === undefined) {
      const op = ctx.contract.doc.paths[route.path]?.[method.toLowerCase()] as { operationId?: string } | undefined;
      name = op?.operationId ?? `${method} ${route.path}`;
      // Bounded: methods are what clients send, and a route keeps the names of the first few.
      if (byMethod.size < 16) byMethod.set(method, name);
    }
    return name;
  };

  function route(req: MockRequest, target: Target, accepted: Answering["format"]): MockResponse {
    let format = accepted;
    const fail = (status: number, message: string, code: AnswerCode) =>
      problem({ ctx, format }, status, message, [], {}, { code });
    if (!target.ok) return fail(400, target.message, target.code);
    const { rawPath, query, segments } = target;
    const method = req.method.toUpperCase();
    const unknown = () => fail(404, `No call matches ${req.method} ${shortPath(rawPath)}.`, "route.unknown");
    const serve = (match: ReturnType<typeof matchRoute>, versionSegment: string, local: boolean): MockResponse => {
      if (!match) return unknown();
      const handler = match.route.methods[method];
      const name = routeName(match.route, method);
      if (!handler) {
        const res = fail(404, `No call matches ${req.method} ${shortPath(rawPath)}.`, "route.no-method");
        const allow = Object.keys(match.route.methods);
        res.meta!.route = name;
        res.meta!.allow = allow.includes("GET") ? [...allow, "HEAD"] : allow;
        return res;
      }
      // One shape for every routed request (its properties written out, not spread from the request).
      const routed: RoutedRequest = {
        method: req.method,
        url: req.url,
        headers: req.headers,
        body: req.body,
        remoteAddress: req.remoteAddress,
        ctx,
        params: match.params,
        query,
        format,
        versionSegment,
        operation: match.route.operations?.[method],
      };
      // Every answer below is the handler's own object: its meta is filled in, not copied.
      // The guard decides on the route that matched, never on how the path was spelled.
      const refused = local && match.route.local ? refuseForeign(routed, match.route.path) : undefined;
      if (refused) return withMeta(refused, name, 0, true);
      const prefer = preferred(routed, match.route, method, name);
      const failed = prefer.answer === undefined && !match.route.local ? failedWrite(routed, method, name) : undefined;
      return withMeta(
        prefer.answer ?? failed ?? handler(routed),
        name,
        prefer.delayMs ?? 0,
        match.route.local === true,
      );
    };

    const [first = "", ...afterVersion] = segments;
    const version = versionOf(first);
    const letterOk = version && (ctx.rules.versionLetterEitherCase || version.letter === "v");
    if (!version || !letterOk) {
      const root = matchRoute(rootRoutes, segments);
      if (root) return serve(root, "", true);
      // Without the rule requireVersionSegment, a bare API path is served as the first version (a fault).
      if (!ctx.rules.requireVersionSegment && first.toLowerCase() === "api") {
        return serve(matchRoute(routes, segments), `v${ctx.config.versions[0]}`, false);
      }
      if (!version) {
        return fail(
          404,
          `No call matches ${req.method} ${shortPath(rawPath)}: API paths start with /v<version>.`,
          "route.unknown",
        );
      }
      return unknown();
    }
    if (!ctx.config.versions.includes(version.number)) {
      const served = ctx.config.versions.map((v) => `v${v}`).join(", ");
      return fail(
        404,
        `API version ${version.number} is not served here; served: ${served}. Start the mock with --versions ${[...ctx.config.versions, version.number].join(",")} (BAWA_VERSIONS) to serve it.`,
        "route.version-not-served",
      );
    }
    // A-FORMAT-SUFFIX: `.json` or `.xml` on the last segment of a data path chooses the format, before Accept.
    const suffixed = formatSuffix(afterVersion);
    if (suffixed) format = suffixed.suffix === "json" ? JSON_FORMAT : XML_FORMAT;
    const rest = suffixed?.path ?? afterVersion;
    const match = matchRoute(routes, rest);
    // Errors rule 4: a data path without its database segment is "no database given" (401), not an unknown call.
    const withoutDatabase = !match && isDataPath(rest) ? matchRoute(apiRoutes, withEmptyDatabase(rest)) : undefined;
    return serve(match ?? withoutDatabase, first, false);
  }

  /**
   * `Prefer: code=<status>` or `?__code=<status>` on a data endpoint: the
   * contract's answer for that status, as Prism gives it; `Prefer: delay=<ms>`
   * holds the answer back. A status the operation does not define is 400.
   */
  function preferred(
    req: RoutedRequest,
    r: Route,
    method: string,
    name: string,
  ): { answer?: MockResponse; delayMs?: number } {
    if (!r.operations) return {};
    // Most requests ask for nothing: no Prefer header, no query (the fast way out).
    if (req.headers.prefer === undefined && req.query === NO_PARAMS) return {};
    const invalid = (message: string) => ({ answer: problem(req, 400, message, [], {}, { code: "prefer.invalid" }) });
    if ((req.query.get("__code")?.length ?? 0) > 1) {
      return invalid("__code is given more than once; give the status to force once (or send Prefer: code=<status>).");
    }
    const prefer = parsePrefer(req.headers.prefer, req.query);
    if (!prefer) return {};
    if (prefer.delay !== undefined && !(prefer.delay >= 0 && prefer.delay <= MAX_DELAY_MS)) {
      return invalid(`Prefer: delay=${prefer.raw.delay} is not a number of milliseconds from 0 to ${MAX_DELAY_MS}.`);
    }
    const delay = prefer.delay ? { delayMs: prefer.delay } : {};
    if (prefer.code === undefined) return delay;
    const statuses = declaredStatuses(ctx.contract.doc, r.path, method);
    if (!statuses.includes(prefer.code)) {
      return invalid(
        `Prefer: code=${prefer.raw.code} is not a status ${name} answers with; it answers ${statuses.join(", ")}.`,
      );
    }
    // A success is earned, not forced: the operation answers as it would.
    if (prefer.code < 300) return delay;
    const forced = forcedAnswer(req, prefer.code, `Prefer: code=${prefer.code}`);
    return forced
      ? { answer: forced, ...delay }
      : invalid(`Prefer: code=${prefer.code} can not be produced by this mock.`);
  }

  /** A failure forced on a write (POST /__mock/failures), answered before the write runs, so it changes nothing. */
  function failedWrite(req: RoutedRequest, method: string, name: string): MockResponse | undefined {
    if (scenarios.idle || !WRITES.has(method)) return undefined;
    const status = scenarios.takeFailure(name);
    if (status === undefined) return undefined;
    return forcedAnswer({ ctx, format: req.format, operation: req.operation }, status, "a scenario", {
      forcedFailure: true,
    });
  }

  const operations = new Map(contract.resources.operations.map((o) => [o.operationId, o]));
  const operationOf = (res: MockResponse) =>
    res.meta?.route === undefined ? undefined : operations.get(res.meta.route);
  const transforms = (req: MockRequest): TransformContext => ({
    req,
    reencode: (res, value) => {
      const format = res.meta?.format ?? JSON_FORMAT;
      const schema = res.meta?.schema;
      const body = schema ? encode(ctx.contract, format, schema, value, ctx.rules.jsonNames) : JSON.stringify(value);
      return { ...res, body, meta: { ...res.meta, value } };
    },
    forced: (res, status) => {
      // The forced answer stands in for the real one, for the same caller.
      const { route, client, user, database, resource } = res.meta ?? {};
      const who = Object.fromEntries(
        Object.entries({ route, client, user, database, resource }).filter(([, v]) => v !== undefined),
      );
      const format = res.meta?.format ?? answerFormat(req.headers.accept);
      return forcedAnswer({ ctx, format, operation: operationOf(res) }, status, "a scenario", who) ?? res;
    },
    operation: operationOf,
  });

  /**
   * One request, in named steps: a preflight is answered at once; otherwise route and answer,
   * let the scenarios that are on reshape the answer, add CORS and the X-Bawa-Faults mark, log.
   */
  function handle(req: MockRequest): MockResponse {
    const started = performance.now();
    const format = answerFormat(req.headers.accept);
    const target = parseTarget(req.url, req.headers.host);
    const crossOrigin = target.ok ? crossOriginPath(target.segments) : undefined;
    if (crossOrigin && req.method.toUpperCase() === "OPTIONS" && req.headers["access-control-request-method"]) {
      return preflight(req, crossOrigin, ctx.allowedOrigins());
    }
    let res = route(req, target, format);
    if (
      target.ok &&
      res.status === 200 &&
      target.segments[0]?.toLowerCase() === "__mock" &&
      req.method.toUpperCase() === "POST"
    ) {
      const what = controlChange(`/${target.segments.join("/").toLowerCase()}`);
      if (what) changes[what]++;
    }
    if (!scenarios.idle) res = scenarios.apply(res, transforms(req));
    if (crossOrigin) res = withCors(req, res, crossOrigin, ctx.allowedOrigins);
    const summary = scenarios.summary();
    if (summary) res.headers["x-bawa-faults"] = summary.slice(0, 1000);
    if (!(req.url.startsWith("/__mock") && (req.method === "GET" || req.method === "HEAD"))) {
      record(req, res, performance.now() - started, summary);
    }
    return res;
  }

  function record(req: MockRequest, res: MockResponse, ms: number, summary: string): void {
    const m = res.meta ?? {};
    log.record({
      at: Date.now(),
      mockAt: clock.now(),
      method: req.method,
      // The log is shown on the dashboard and printed: a secret given in the query (a control
      // token, an access_token) is not.
      path: req.url.includes("=") ? redact(req.url) : req.url,
      status: res.status,
      ms: Math.round(ms * 100) / 100,
      route: m.route,
      code: m.code,
      client: m.client,
      user: m.user,
      database: m.database,
      resource: m.resource,
      // A refusal, or an authorization error sent back to the client in a redirect (invalid_scope):
      // the log line says what was wrong, not only "302".
      problem: res.status >= 400 || m.code === "authorize.error-redirect" ? m.problem : undefined,
      ignored: m.ignored,
      scenarios: summary || undefined,
    });
  }

  return {
    ctx,
    clock,
    scenarios,
    log,
    nameState(headers) {
      if (clock.named) {
        const at = clock.now();
        headers[CLOCK_HEADER] = clockHeader(at);
        // RFC 9110's Date is the server's clock.
        headers.date = new Date(at).toUTCString();
      }
      if (changes.tokens > 0 || changes.objects > 0) headers[CHANGES_HEADER] = changesHeader(changes);
    },
    tooLarge: (req) => {
      const res = problem(
        { ctx, format: answerFormat(req.headers.accept) },
        413,
        "The request body is larger than the 1 MiB this service accepts.",
        [],
        {},
        { code: "body.too-large" },
      );
      record(req, res, 0, scenarios.summary());
      return res;
    },
    handle(req) {
      try {
        // HEAD is GET without the body (RFC 9110 9.3.2), with the length GET would send.
        if (req.method.toUpperCase() !== "HEAD") return handle(req);
        const res = handle({ ...req, method: "GET" });
        const bytes = bodyBytes(res);
        const length = bytes === undefined ? res.headers["content-length"] : String(Buffer.byteLength(bytes));
        return {
          ...res,
          headers: { ...res.headers, ...(length ? { "content-length": length } : {}) },
          body: undefined,
        };
      } catch (err) {
        // The data directory could not keep the change: nothing was changed, and the client hears why.
        if (err instanceof StorageError)
          return problem(
            { ctx, format: JSON_FORMAT },
            507,
            `bawa mock: the change was not stored: ${err.message}`,
            [],
            {
              "retry-after": "60",
            },
          );
        // A bug of ours, never the client's fault: say so plainly.
        console.error("bawa mock: internal error", err);
        return problem({ ctx, format: JSON_FORMAT }, 500, `bawa mock: internal error: ${(err as Error).message}`);
      }
    },
  };
}

const shortPath = (p: string) => (p.length > 120 ? `${p.slice(0, 120)}...` : p);

/** The request target, read once: the path as the router, the guard and CORS see it, and the query. */
export type Target =
  | { ok: true; rawPath: string; segments: string[]; query: Params }
  | { ok: false; message: string; code: "request.bad-target" | "request.bad-path" };

/**
 * Reads a request target into decoded path segments. Every spelling of a path is one path:
 * percent-encoding is decoded, dot segments are resolved and empty segments (doubled slashes,
 * one trailing slash) dropped, as RFC 3986 6.2.2 normalises a URI and IIS does before ASP.NET
 * routes it. Case stays: the router compares literals without case, ids exactly (A-PATH-CASE).
 */
export function parseTarget(target: string, host?: string): Target {
  let url = target;
  // The absolute form: its authority is the Host, so it must agree with the header the Host checks read.
  const absolute = absoluteForm(url);
  if (absolute) {
    if (host !== undefined && absolute.authority !== host.toLowerCase()) {
      return {
        ok: false,
        message: `The request target names ${JSON.stringify(absolute.authority.slice(0, 100))}, the Host header ${JSON.stringify(host.slice(0, 100))}; they must agree.`,
        code: "request.bad-target",
      };
    }
    url = absolute.path;
  }
  const q = url.indexOf("?");
  const rawPath = q < 0 ? url : url.slice(0, q);
  if (!rawPath.startsWith("/")) {
    return {
      ok: false,
      message: `The request target ${JSON.stringify(url.slice(0, 200))} is not a path.`,
      code: "request.bad-target",
    };
  }
  const segments: string[] = [];
  for (const raw of rawPath.slice(1).split("/")) {
    let s = raw;
    if (s.includes("%")) {
      try {
        s = decodeURIComponent(s);
      } catch {
        return { ok: false, message: "The path is not valid percent-encoding.", code: "request.bad-path" };
      }
    }
    if (s === "" || s === ".") continue;
    if (s === "..") {
      if (segments.pop() === undefined) {
        return { ok: false, message: "The path climbs above its root (..).", code: "request.bad-path" };
      }
      continue;
    }
    segments.push(s);
  }
  return { ok: true, rawPath, segments, query: q < 0 ? NO_PARAMS : parseParams(url.slice(q + 1)) };
}

/** The parameters of a request without a query string: one map, read and never changed. */
const NO_PARAMS: Params = new Map();

/** Names the route in an answer's meta, the delay Prefer asked for, and whether it is the mock's own page or call. */
function withMeta(res: MockResponse, route: string, delayMs: number, local: boolean): MockResponse {
  res.meta ??= {};
  const { meta } = res;
  meta.route = route;
  if (delayMs > 0) meta.delayMs = delayMs;
  if (local) meta.local = true;
  return res;
}

/** The preferences of RFC 7240 this mock honours, from `Prefer` and Prism's `__code` query parameter. */
function parsePrefer(
  header: string | undefined,
  query: Params,
): { code?: number; delay?: number; raw: { code?: string; delay?: string } } | undefined {
  const raw: { code?: string; delay?: string } = {};
  for (const part of (header ?? "").split(/[,;]/)) {
    const [k, v] = part.split("=").map((s) => s.trim().replace(/^"|"$/g, ""));
    if ((k === "code" || k === "delay") && v !== undefined) raw[k] = v;
  }
  const fromQuery = single(query, "__code");
  if (typeof fromQuery === "string" && fromQuery !== "") raw.code = fromQuery;
  if (raw.code === undefined && raw.delay === undefined) return undefined;
  const number = (v: string | undefined) =>
    v === undefined ? undefined : /^\d{1,9}$/.test(v) ? Number(v) : Number.NaN;
  const out: { code?: number; delay?: number; raw: typeof raw } = { raw };
  const code = number(raw.code);
  const delay = number(raw.delay);
  if (code !== undefined) out.code = code;
  if (delay !== undefined) out.delay = delay;
  return out;
}
