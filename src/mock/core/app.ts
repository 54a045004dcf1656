// The mock as one function from request to response. Knows nothing of sockets.
import { type CompiledContract, compileContract } from "../../contract/index.ts";
import type { TokenVerifier } from "./bearer.ts";
import { MovableClock } from "./clock.ts";
import { createCustomer, deleteCustomer, getCustomer, listCustomers, updateCustomer } from "./customers.ts";
import { answerFormat, JSON_FORMAT, problem } from "./format.ts";
import { type MockRequest, type MockResponse, parseParams } from "./http.ts";
import { refuseForeign } from "./local.ts";
import { type MockConfig, type MockContext, matchRoute, type Route, type RoutedRequest } from "./router.ts";
import { CustomerStore, type Journal, type Seed } from "./store.ts";

export const DEFAULT_CONFIG: MockConfig = {
  versions: ["1"],
  scope: "http://BusinessAdmin.Mock.API/Web/WebApi/*",
  ownHosts: [],
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
  const rootRoutes = options.rootRoutes ?? [];

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
    const method = req.method.toUpperCase();
    const [versionSegment = "", ...rest] = segments;
    const version = VERSION_SEGMENT.exec(versionSegment)?.[1];
    if (!version) {
      const root = matchRoute(rootRoutes, segments);
      const rootHandler = root?.route.methods[method];
      if (root && rootHandler) {
        const routed: RoutedRequest = { ...req, ctx, params: root.params, query, format, versionSegment: "" };
        return (root.route.local && refuseForeign(routed, rawPath)) || rootHandler(routed);
      }
      return fail(404, `No call matches ${req.method} ${shortPath(rawPath)}: API paths start with /v<version>.`);
    }
    if (!ctx.config.versions.includes(version)) {
      return fail(
        404,
        `API version ${version} is not served here; served: ${ctx.config.versions.map((v) => `v${v}`).join(", ")}.`,
      );
    }
    const match = matchRoute(routes, rest);
    const handler = match?.route.methods[method];
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
        // HEAD is GET without the body (RFC 9110 9.3.2), with the length GET would send.
        if (req.method.toUpperCase() !== "HEAD") return handle(req);
        const res = handle({ ...req, method: "GET" });
        const length = res.body === undefined ? res.headers["content-length"] : String(Buffer.byteLength(res.body));
        return {
          ...res,
          headers: { ...res.headers, ...(length ? { "content-length": length } : {}) },
          body: undefined,
        };
      } catch (err) {
        // A bug of ours, never the client's fault: say so plainly.
        console.error("bawa mock: internal error", err);
        return problem(ctx.contract, JSON_FORMAT, 500, `bawa mock: internal error: ${(err as Error).message}`);
      }
    },
  };
}

const shortPath = (p: string) => (p.length > 120 ? `${p.slice(0, 120)}...` : p);
