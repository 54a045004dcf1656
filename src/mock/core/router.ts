// Routes of the versioned API. Literal segments match case-insensitively and
// one trailing slash is allowed, as in ASP.NET routing (A-PATH-CASE).
import type { CompiledContract, Operation } from "../../contract/index.ts";
import { PathMatcher } from "../../rules/paths.ts";
import type { TokenVerifier } from "./bearer.ts";
import type { MovableClock } from "./clock.ts";
import type { AllowedOrigins } from "./cors.ts";
import type { Format } from "./format.ts";
import type { MockRequest, MockResponse, Params } from "./http.ts";
import type { Rules } from "./rules.ts";
import type { ObjectStore } from "./store.ts";

export interface MockConfig {
  /** API versions served, digits only (A-VERSIONS). */
  versions: readonly string[];
  /** The single scope value. */
  scope: string;
  /**
   * Host header values that address this mock (`127.0.0.1:4010`, ...); the
   * portal and control calls refuse others. Empty when unknown (in process).
   */
  ownHosts: readonly string[];
  /**
   * When set, the control calls and the dashboard answer only with this token
   * (header X-Bawa-Control-Token or the dashboard's cookie): a mock on a
   * non-loopback address can not be switched into a fault by a stray request.
   */
  controlToken?: string | undefined;
  /**
   * The origins a browser page may call from: those of the active applications'
   * redirect URIs, every origin, or a list (`--cors-origins`).
   */
  corsOrigins: "registered" | "*" | readonly string[];
}

/** The configuration of a mock started without options (here, not in app.ts: the suite's settings read it without the mock). */
export const DEFAULT_CONFIG: MockConfig = {
  versions: ["1"],
  scope: "http://BusinessAdmin.Mock.API/Web/WebApi/*",
  ownHosts: [],
  corsOrigins: "registered",
};

/** Everything a handler may read or change: state, clock and configuration; no network. */
export interface MockContext {
  contract: CompiledContract;
  config: MockConfig;
  /** The objects of every collection of the contract's resource model. */
  store: ObjectStore;
  clock: MovableClock;
  tokens: TokenVerifier;
  /** The rules in force now (the scenarios change them in place). */
  rules: Rules;
  /** The origins a browser page may call from (CORS, A-CORS). */
  allowedOrigins(): AllowedOrigins;
  /**
   * Whether the process has room for a write of a body of `bytes`: the reason it has not, else
   * undefined (the adapter's look at its heap, src/mock/node/memory.ts; none in a test's mock).
   */
  room?: ((bytes: number) => string | undefined) | undefined;
}

export interface RoutedRequest extends MockRequest {
  ctx: MockContext;
  /** Decoded path parameters, by the contract's names. */
  params: Readonly<Record<string, string>>;
  query: Params;
  /** The negotiated format of the answer. */
  format: Format;
  /** The version segment as sent, for example `V1`. */
  versionSegment: string;
  /** The resource model's operation this request reaches, when it reaches one. */
  operation?: Operation | undefined;
}

export type Handler = (req: RoutedRequest) => MockResponse;

export interface Route {
  /** Literal segments, or `{name}` for a parameter. */
  path: string;
  methods: Readonly<Partial<Record<string, Handler>>>;
  /** The mock's own pages and control calls: only at its own address and from its own pages (local.ts). */
  local?: boolean;
  /** The resource model's operations of this path, by method (the data API). */
  operations?: Readonly<Partial<Record<string, Operation>>>;
}

export interface Match {
  route: Route;
  params: Record<string, string>;
}

const matchers = new WeakMap<readonly Route[], PathMatcher<Route>>();

/**
 * Finds the route of already-decoded path segments (after the version segment), with the one
 * matcher the rules read paths with (src/rules/paths.ts), built once per list of routes.
 */
export function matchRoute(routes: readonly Route[], segments: readonly string[]): Match | undefined {
  let matcher = matchers.get(routes);
  if (!matcher) {
    matcher = new PathMatcher(routes, (r) => r.path);
    matchers.set(routes, matcher);
  }
  const found = matcher.match(segments);
  return found && { route: found.entry, params: found.params };
}
