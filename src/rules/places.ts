// Where a request went, read from the contract: the version segment, the
// contract's path and operation it matches, and what kind of endpoint that is
// (the authorization endpoint, the token endpoint, a data call). Paths are
// read as the mock routes them (paths.ts). The judge does not know which
// versions a target serves, so any `/v<digits>` is a version segment.
import type { CompiledContract, Operation } from "../contract/index.ts";
import { assumptionOf } from "../contract/resources.ts";
import {
  formatSuffix,
  isDataPath,
  type PathMatch,
  PathMatcher,
  pathSegments,
  versionOf,
  withEmptyDatabase,
} from "./paths.ts";

export type Endpoint = "authorize" | "token" | "data" | "other";

export interface Place {
  /** The version segment as sent (`v1`, `V221`); undefined when the path has none. */
  version: string | undefined;
  /** The path's decoded segments after the version segment (all of them when there is none). */
  segments: string[];
  endpoint: Endpoint;
  /** The contract's path the request matches, with its parameters. */
  template: string | undefined;
  params: Record<string, string>;
  /** The methods the matched path declares (upper case); shared by every place of the path. */
  methods: readonly string[];
  /** The contract's operationId of the method, when the path declares it. */
  operationId: string | undefined;
  /** The resource model's operation (data calls of a declared method). */
  operation: Operation | undefined;
  /** A data path whose database segment is empty or missing (Errors, rule 4). */
  noDatabase: boolean;
  /** The format a `.json` or `.xml` suffix chose. */
  suffix: "json" | "xml" | undefined;
  /**
   * The assumption the matched path or operation rests on (its `x-assumption`): a resource the
   * description does not show, such as `AdministrationInfoList` (A-ADMINISTRATIONS).
   */
  assumption: string | undefined;
}

interface Template {
  path: string;
  methods: Record<string, string | undefined>;
  /** The keys of `methods`, and the resource model's operation of each: read once, not per request. */
  methodList: readonly string[];
  operations: Record<string, Operation | undefined>;
  /** `x-assumption` of the path item, and of each method's operation. */
  assumption: string | undefined;
  assumptions: Record<string, string | undefined>;
  /** The parameter of a data path's database segment (`{Database}` in /api/{Database}/...), if it is one. */
  databaseParam: string | undefined;
}

type Match = PathMatch<Template> | undefined;

/** Reads where requests go, for one contract. */
export class Places {
  readonly #templates: PathMatcher<Template>;
  readonly #authorize: string;
  readonly #token: string;

  constructor(readonly contract: CompiledContract) {
    const operations = new Map(contract.resources.operations.map((o) => [`${o.method} ${o.path}`, o]));
    const templates = Object.entries(contract.doc.paths).map(([path, item]): Template => {
      const methods: Record<string, string | undefined> = {};
      const assumptions: Record<string, string | undefined> = {};
      const ops: Record<string, Operation | undefined> = {};
      for (const [m, op] of Object.entries(item)) {
        if (["get", "put", "post", "delete", "patch", "head", "options"].includes(m)) {
          const method = m.toUpperCase();
          methods[method] = (op as { operationId?: string }).operationId;
          assumptions[method] = assumptionOf(op);
          ops[method] = operations.get(`${method} ${path}`);
        }
      }
      const first = path.split("/")[2];
      return {
        path,
        methods,
        methodList: Object.freeze(Object.keys(methods)),
        operations: ops,
        assumption: assumptionOf(item),
        assumptions,
        databaseParam: first?.startsWith("{") ? first.slice(1, -1) : undefined,
      };
    });
    this.#templates = new PathMatcher(templates, (t) => t.path);
    const urls = oauthUrls(contract);
    this.#authorize = urls.authorize.toLowerCase();
    this.#token = urls.token.toLowerCase();
  }

  /** The place of a request target (path and query, as a client sends it). */
  of(method: string, url: string): Place {
    // Escapes that do not decode are read as sent: such a path matches nothing the contract has.
    const segments = pathSegments(url) ?? pathSegments(url.replaceAll("%", "%25"))!;
    const version = versionOf(segments[0]) ? segments[0] : undefined;
    const rest = version ? segments.slice(1) : segments;
    const place: Place = {
      version,
      segments: rest,
      endpoint: "other",
      template: undefined,
      params: {},
      methods: [],
      operationId: undefined,
      operation: undefined,
      noDatabase: false,
      suffix: undefined,
      assumption: undefined,
    };
    const data = isDataPath(rest);
    const suffixed = formatSuffix(rest);
    const path = suffixed?.path ?? rest;
    // Errors rule 4: a data path whose database segment is empty or left out is "no database given".
    const emptyDatabase = (m: Match) => m?.entry.databaseParam !== undefined && m.params[m.entry.databaseParam] === "";
    let match = this.#templates.match(path);
    if (!match && data) {
      const without = this.#templates.match(withEmptyDatabase(path));
      if (emptyDatabase(without)) match = without;
    }
    place.noDatabase = data && emptyDatabase(match);
    if (suffixed) place.suffix = suffixed.suffix;
    if (!match) {
      place.endpoint = data ? "data" : "other";
      return place;
    }
    const m = method.toUpperCase() === "HEAD" ? "GET" : method.toUpperCase();
    const lower = match.entry.path.toLowerCase();
    place.template = match.entry.path;
    place.params = match.params;
    place.methods = match.entry.methodList;
    place.operationId = match.entry.methods[m];
    place.operation = match.entry.operations[m];
    place.assumption = match.entry.assumption ?? match.entry.assumptions[m];
    place.endpoint =
      lower === this.#authorize ? "authorize" : lower === this.#token ? "token" : data ? "data" : "other";
    return place;
  }
}

/**
 * The paths of the authorization and token endpoints, from the contract's
 * OAuth 2.0 security scheme (`authorizationUrl`, `tokenUrl`).
 */
export function oauthUrls(contract: CompiledContract): { authorize: string; token: string } {
  const schemes = (contract.doc.components.securitySchemes ?? {}) as Record<
    string,
    { flows?: Record<string, { authorizationUrl?: string; tokenUrl?: string }> }
  >;
  const flows = Object.values(schemes).flatMap((s) => Object.values(s.flows ?? {}));
  const path = (u: string | undefined, fallback: string) => {
    const p = u ? new URL(u, "http://x/").pathname : fallback;
    return p.startsWith("/") ? p : `/${p}`;
  };
  return {
    authorize: path(flows.find((f) => f.authorizationUrl)?.authorizationUrl, "/OAuth/Authorize"),
    token: path(flows.find((f) => f.tokenUrl)?.tokenUrl, "/OAuth/Token"),
  };
}
