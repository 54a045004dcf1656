// The mock as one function from request to response. Knows nothing of sockets.
import { type CompiledContract, compileContract } from "../../contract/index.ts";
import type { TokenVerifier } from "./bearer.ts";
import { MovableClock } from "./clock.ts";
import { createCustomer, deleteCustomer, getCustomer, listCustomers, updateCustomer } from "./customers.ts";
import { answerFormat, JSON_FORMAT, problem } from "./format.ts";
import { type MockRequest, type MockResponse, parseParams } from "./http.ts";
import { type MockConfig, type MockContext, matchRoute, type Route } from "./router.ts";
import { CustomerStore, type Journal, type Seed } from "./store.ts";

export const DEFAULT_CONFIG: MockConfig = {
  versions: ["1"],
  scope: "http://BusinessAdmin.Mock.API/Web/WebApi/*",
};

const API_ROUTES: readonly Route[] = [
  { path: "/api/{database_id}/CustomerInfoList", methods: { GET: listCustomers } },
  { path: "/api/{database_id}/Customer", methods: { POST: createCustomer } },
  {
    path: "/api/{database_id}/Customer/{customer_id}",
    methods: { GET: getCustomer, PUT: updateCustomer, DELETE: deleteCustomer },
  },
];

export interface MockOptions {
  config?: Partial<MockConfig>;
  seed?: Seed;
  /** Records acknowledged changes (a data directory). */
  journal?: Journal;
  contract?: CompiledContract;
  clock?: MovableClock;
  tokens: TokenVerifier;
  /** Routes of other parts (the authorization server), served under the version segment too. */
  routes?: readonly Route[];
  /** Routes outside the version segment (mock control, developer portal). */
  rootRoutes?: readonly Route[];
  /** Restores other parts' state on POST /__mock/reset. */
  onReset?: () => void;
}

export interface Mock {
  handle(req: MockRequest): MockResponse;
  /** The answer to a body over the size limit (A-LIMITS), in the negotiated format. */
  tooLarge(req: MockRequest): MockResponse;
  readonly ctx: MockContext;
  readonly clock: MovableClock;
}

const VERSION_SEGMENT = /^[vV](\d+)$/;

export function createMock(options: MockOptions): Mock {
  const clock = options.clock ?? new MovableClock();
  const ctx: MockContext = {
    contract: options.contract ?? compileContract(),
    config: { ...DEFAULT_CONFIG, ...options.config },
    store: new CustomerStore(options.seed, options.journal),
    clock,
    tokens: options.tokens,
  };
  const routes = [...(options.routes ?? []), ...API_ROUTES];
  const rootRoutes = [...controlRoutes(ctx, clock, options.onReset), ...(options.rootRoutes ?? [])];

  function handle(req: MockRequest): MockResponse {
    const format = answerFormat(req.headers.accept);
    const fail = (status: number, message: string) => problem(ctx.contract, format, status, message);
    const q = req.url.indexOf("?");
    const rawPath = q < 0 ? req.url : req.url.slice(0, q);
    const query = parseParams(q < 0 ? "" : req.url.slice(q + 1));
    if (!rawPath.startsWith("/"))
      return fail(400, `The request target ${JSON.stringify(req.url.slice(0, 200))} is not a path.`);

    const raw = rawPath.split("/").slice(1);
    if (raw.length > 1 && raw.at(-1) === "") raw.pop();
    let segments: string[];
    try {
      segments = raw.map((s) => (s.includes("%") ? decodeURIComponent(s) : s));
    } catch {
      return fail(400, "The path is not valid percent-encoding.");
    }
    const [versionSegment = "", ...rest] = segments;
    const version = VERSION_SEGMENT.exec(versionSegment)?.[1];
    if (!version) {
      const root = matchRoute(rootRoutes, segments);
      const rootHandler = root?.route.methods[req.method.toUpperCase()];
      if (root && rootHandler)
        return rootHandler({ ...req, ctx, params: root.params, query, format, versionSegment: "" });
      return fail(404, `No call matches ${req.method} ${shortPath(rawPath)}: API paths start with /v<version>.`);
    }
    if (!ctx.config.versions.includes(version)) {
      return fail(
        404,
        `API version ${version} is not served here; served: ${ctx.config.versions.map((v) => `v${v}`).join(", ")}.`,
      );
    }
    const match = matchRoute(routes, rest);
    const handler = match?.route.methods[req.method.toUpperCase()];
    if (!match || !handler) return fail(404, `No call matches ${req.method} ${shortPath(rawPath)}.`);
    return handler({ ...req, ctx, params: match.params, query, format, versionSegment });
  }

  return {
    ctx,
    clock,
    tooLarge: (req) =>
      problem(
        ctx.contract,
        answerFormat(req.headers.accept),
        413,
        "The request body is larger than the 1 MiB this service accepts.",
      ),
    handle(req) {
      try {
        return handle(req);
      } catch (err) {
        // A bug of ours, never the client's fault: say so plainly.
        console.error("bawa mock: internal error", err);
        return problem(ctx.contract, JSON_FORMAT, 500, `bawa mock: internal error: ${(err as Error).message}`);
      }
    },
  };
}

const shortPath = (p: string) => (p.length > 120 ? `${p.slice(0, 120)}...` : p);

/** POST /__mock/reset, GET and POST /__mock/clock: outside the version segment, not part of the contract. */
function controlRoutes(ctx: MockContext, clock: MovableClock, onReset?: () => void): Route[] {
  const now = () => controlJson(200, { now: new Date(clock.now()).toISOString() });
  return [
    {
      path: "/__mock/reset",
      methods: {
        POST: () => {
          ctx.store.reset();
          onReset?.();
          return controlJson(200, { reset: true, now: new Date(clock.now()).toISOString() });
        },
      },
    },
    {
      path: "/__mock/clock",
      methods: {
        GET: now,
        POST: (req) => {
          const body = readControlJson(req);
          const seconds = (body as { advanceSeconds?: unknown } | undefined)?.advanceSeconds;
          if (typeof seconds !== "number" || !Number.isFinite(seconds) || seconds < 0) {
            return controlJson(400, {
              Message: 'Send JSON {"advanceSeconds": <seconds, 0 or more>}, for example {"advanceSeconds": 7200}.',
            });
          }
          clock.advance(seconds);
          return now();
        },
      },
    },
  ];
}

/** A JSON answer of the mock's own control calls (not part of the contract). */
export function controlJson(status: number, value: unknown): MockResponse {
  return {
    status,
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" },
    body: JSON.stringify(value),
  };
}

/** The JSON body of a control call, or undefined when it is absent or not JSON. */
export function readControlJson(req: MockRequest): unknown {
  try {
    return JSON.parse(req.body?.toString("utf8") || "null") ?? undefined;
  } catch {
    return undefined;
  }
}
