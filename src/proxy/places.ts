// Where a request went, read from the contract: the version segment, the
// contract's path and operation it matches, and what kind of endpoint that is
// (the authorization endpoint, the token endpoint, a data call). Matching
// follows the service's routing: literal segments without case, one trailing
// slash allowed (A-PATH-CASE), a `.json` or `.xml` suffix on a data path
// (A-FORMAT-SUFFIX). The proxy does not know which versions a target serves,
// so any `/v<digits>` is a version segment.
import type { CompiledContract, Operation } from "../contract/index.ts";

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
  /** The methods the matched path declares (upper case). */
  methods: string[];
  /** The contract's operationId of the method, when the path declares it. */
  operationId: string | undefined;
  /** The resource model's operation (data calls of a declared method). */
  operation: Operation | undefined;
  /** A data path whose database segment is empty or missing (Errors, rule 4). */
  noDatabase: boolean;
  /** The format a `.json` or `.xml` suffix chose. */
  suffix: "json" | "xml" | undefined;
}

interface Template {
  path: string;
  parts: string[];
  literals: number;
  methods: Record<string, string | undefined>;
}

type Match = { template: Template; params: Record<string, string> } | undefined;

const VERSION = /^[vV]\d+$/;

/** Reads where requests go, for one contract. */
export class Places {
  readonly #templates: Template[];
  readonly #operations: Map<string, Operation>;
  readonly #authorize: string;
  readonly #token: string;

  constructor(readonly contract: CompiledContract) {
    this.#templates = Object.entries(contract.doc.paths)
      .map(([path, item]) => {
        const parts = path.split("/").slice(1);
        const methods: Record<string, string | undefined> = {};
        for (const [m, op] of Object.entries(item)) {
          if (["get", "put", "post", "delete", "patch", "head", "options"].includes(m)) {
            methods[m.toUpperCase()] = (op as { operationId?: string }).operationId;
          }
        }
        return { path, parts, literals: parts.filter((p) => !p.startsWith("{")).length, methods };
      })
      .sort((a, b) => b.literals - a.literals);
    this.#operations = new Map(contract.resources.operations.map((o) => [`${o.method} ${o.path}`, o]));
    const urls = oauthUrls(contract);
    this.#authorize = urls.authorize.toLowerCase();
    this.#token = urls.token.toLowerCase();
  }

  /** The place of a request target (path and query, as a client sends it). */
  of(method: string, url: string): Place {
    const q = url.indexOf("?");
    const raw = (q < 0 ? url : url.slice(0, q)).split("/").slice(1);
    if (raw.length > 1 && raw.at(-1) === "") raw.pop();
    let segments: string[];
    try {
      segments = raw.map((s) => (s.includes("%") ? decodeURIComponent(s) : s));
    } catch {
      segments = raw;
    }
    const version = VERSION.test(segments[0] ?? "") ? segments[0] : undefined;
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
    };
    const data = rest[0]?.toLowerCase() === "api";
    const suffix = data ? /^(.+)\.(json|xml)$/i.exec(rest.at(-1) ?? "") : null;
    const path = suffix ? [...rest.slice(0, -1), suffix[1]!] : rest;
    // Errors rule 4: a data path whose database segment is empty or left out is "no database given".
    const emptyDatabase = (m: Match) => {
      const first = m?.template.parts[1];
      return first?.startsWith("{") === true && m!.params[first.slice(1, -1)] === "";
    };
    let match = this.#match(path);
    if (!match && data) {
      const without = this.#match(["api", "", ...path.slice(1)]);
      if (emptyDatabase(without)) match = without;
    }
    place.noDatabase = data && emptyDatabase(match);
    if (suffix) place.suffix = suffix[2]!.toLowerCase() as "json" | "xml";
    if (!match) {
      place.endpoint = data ? "data" : "other";
      return place;
    }
    const m = method.toUpperCase() === "HEAD" ? "GET" : method.toUpperCase();
    const lower = `/${match.template.parts.join("/")}`.toLowerCase();
    place.template = match.template.path;
    place.params = match.params;
    place.methods = Object.keys(match.template.methods);
    place.operationId = match.template.methods[m];
    place.operation = this.#operations.get(`${m} ${match.template.path}`);
    place.endpoint =
      lower === this.#authorize ? "authorize" : lower === this.#token ? "token" : data ? "data" : "other";
    return place;
  }

  #match(segments: readonly string[]): Match {
    for (const t of this.#templates) {
      if (t.parts.length !== segments.length) continue;
      const params: Record<string, string> = {};
      const ok = t.parts.every((p, i) => {
        const s = segments[i]!;
        if (p.startsWith("{")) {
          params[p.slice(1, -1)] = s;
          return true;
        }
        return p.toLowerCase() === s.toLowerCase();
      });
      if (ok) return { template: t, params };
    }
    return undefined;
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
