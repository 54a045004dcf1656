// The judge: every rule of the description and of OAuth that exchanges show,
// as one declared pipeline of named steps (step.ts), read against the contract
// as the description supports it (specView) and what earlier exchanges showed
// (memory.ts). bawa proxy judges every exchange it forwards with it, and the
// conformance suite every exchange it sends, so the two can not disagree.
// Violations name the suite's requirement ids (conformance/requirements.yaml).
import { type CompiledContract, type Problem, SchemaSet, specView } from "../../contract/index.ts";
import { bindProperties } from "../binding.ts";
import {
  basicCredentials,
  type Exchange,
  fingerprint,
  formOf,
  jsonOf,
  mediaType,
  queryOf,
  type Violation,
} from "../exchange.ts";
import { REQUIREMENT_KINDS, type RequirementId } from "../generated/requirements.ts";
import { Memory } from "../memory.ts";
import { CHANGES_HEADER, CLOCK_HEADER, controlChange, readChangesHeader, readClockHeader } from "../mock-state.ts";
import { oauthFacts } from "../oauth.ts";
import { type Place, Places } from "../places.ts";
import { AUTHORIZE } from "./authorize.ts";
import { bearerParts } from "./bearer.ts";
import { DATA, NO_DATABASE, READ_ONLY_PATHS } from "./data.ts";
import { PAGES, RESULTS } from "./redirects.ts";
import { type Group, group, isObject, type Judged, violation } from "./step.ts";
import { TOKEN } from "./token.ts";

export type { Violation };
export type Kind = "spec" | "oauth" | "assumption";

/** A violation as the judge reports it: with its kind, and the resource it concerns. */
export interface Judgement extends Violation {
  /**
   * The requirement's kind, or `assumption` when what it concerns rests on one (a resource whose
   * path or operation carries `x-assumption`): a conforming implementation of the description
   * alone is never judged by it in a run of spec and oauth.
   */
  kind: Kind;
  /** The assumption it rests on (`A-ADMINISTRATIONS`), when that made it one. */
  assumption?: string;
  /** The resource of the contract a data call reached (`Customer`, `CustomerInfoList`). */
  resource?: string;
}

/** The target's control calls a bawa mock answers: the judge follows its clock, tokens and resets. */
const CONTROL = group<Judged & { path: string }>({
  name: "a bawa mock's control calls",
  read: (j) => {
    const path = j.ex.url.split("?")[0]!.toLowerCase();
    return path.startsWith("/__mock/") && j.ex.status === 200 ? { ...j, path } : undefined;
  },
  steps: [
    {
      name: "follow a moved clock, forget tokens a control call may have ended, objects a reset removed",
      reports: [],
      run: ({ path, ex, memory }) => {
        // A moved clock's answer names the time itself (judged at it: Memory.judging): nothing to place.
        if (path === "/__mock/clock" && ex.headers[CLOCK_HEADER] === undefined) {
          const now = (jsonOf(ex.body)?.value as { now?: unknown } | undefined)?.now;
          const at = typeof now === "string" ? Date.parse(now) : Number.NaN;
          if (!Number.isFinite(at)) return undefined;
          // A POST moved the clock by its advanceSeconds: before it, the clock read that much less.
          const advanced =
            ex.method.toUpperCase() === "POST"
              ? (jsonOf(ex.requestBody)?.value as { advanceSeconds?: unknown } | undefined)?.advanceSeconds
              : 0;
          if (typeof advanced !== "number" || !Number.isFinite(advanced)) {
            // Moved by an amount the exchange does not show: what was kept can not be placed.
            memory.forgetTokens();
            memory.clockOffset = at - ex.at;
            return undefined;
          }
          memory.clockRead(at - advanced * 1000, ex.at);
          memory.clockOffset += advanced * 1000;
        } else {
          const change = controlChange(path);
          if (change === "tokens") memory.forgetTokens();
          else if (change === "objects") memory.forgetObjects();
        }
        return undefined;
      },
    },
  ],
});

/** Versioning 1: every path of the API starts with the version segment. */
const VERSION_REQUIRED = group<Judged>({
  name: "a path without the version segment",
  read: (j) => (j.place.version ? undefined : j),
  steps: [
    {
      name: "every path starts with /v<version>",
      reports: ["VER-PATH"],
      run: ({ place, ok, ex }) =>
        ok && place.template && place.endpoint !== "other"
          ? [violation("VER-PATH", "path", "404: every path starts with /v<version>", String(ex.status))]
          : [],
    },
  ],
});

/** Endpoints: the version segment is written with a lowercase or uppercase v; both appear. */
const VERSION_LETTER = group<Judged>({
  name: "the version letter",
  read: (j) => (j.place.version ? j : undefined),
  steps: [
    {
      name: "a GET answered with one letter of the version segment is answered with the other",
      reports: ["VER-CASE"],
      run: ({ place, method, ex, memory }) => {
        if (!place.template || !place.version) return [];
        const key = `${place.version.slice(1)} /${place.segments.join("/")}`;
        const letter = place.version[0]!;
        if (method === "DELETE" && ex.status < 300) memory.answeredPaths.delete(key);
        if (method !== "GET") return [];
        if (ex.status < 400) {
          memory.answeredPaths.set(key, letter);
          return [];
        }
        const before = memory.answeredPaths.get(key);
        if (ex.status !== 404 || before === undefined || before === letter) return [];
        const number = place.version.slice(1);
        return [
          violation("VER-CASE", "path", `the answer /${before}${number} gets, with /${letter}${number} too`, "404"),
        ];
      },
    },
  ],
});

/** The judge's pipeline: which exchanges each group reads, in the order its steps run. */
export const PIPELINE: ReadonlyArray<Group<Judged>> = [
  CONTROL,
  VERSION_REQUIRED,
  // Exchanges of the versioned API only: each group's reading says which it takes.
  { ...AUTHORIZE, read: (j) => (j.place.version ? AUTHORIZE.read(j) : undefined) },
  { ...TOKEN, read: (j) => (j.place.version ? TOKEN.read(j) : undefined) },
  { ...NO_DATABASE, read: (j) => (j.place.version ? NO_DATABASE.read(j) : undefined) },
  { ...READ_ONLY_PATHS, read: (j) => (j.place.version ? READ_ONLY_PATHS.read(j) : undefined) },
  { ...DATA, read: (j) => (j.place.version ? DATA.read(j) : undefined) },
  PAGES,
  RESULTS,
  VERSION_LETTER,
];

export interface JudgeOptions {
  /** The kinds of requirement judged; violations of others are not reported. Default: spec and oauth. */
  kinds?: readonly Kind[];
  /** The most the objects it remembers may weigh together (OBJECTS_BYTES in memory.ts). */
  objectsBytes?: number;
}

export class Judge {
  readonly memory: Memory;
  readonly places: Places;
  readonly #spec: SchemaSet;
  readonly #kinds: ReadonlySet<Kind>;

  constructor(
    readonly contract: CompiledContract,
    options: JudgeOptions = {},
  ) {
    this.memory = new Memory(options.objectsBytes === undefined ? {} : { objectsBytes: options.objectsBytes });
    this.places = new Places(contract);
    this.#spec = new SchemaSet(specView(contract.doc));
    this.#kinds = new Set(options.kinds ?? ["spec", "oauth"]);
  }

  // A WeakMap, not the few slots of src/recent.ts: a slot would hold the exchange, and with it
  // its bodies (up to 64 MB each), until later exchanges take it. A place is small; what the
  // WeakMap keeps of places through the young generation did not show over HTTP.
  readonly #placed = new WeakMap<Exchange, Place>();

  /** Where an exchange went, read once however many readers ask (the judge, the log, the recording). */
  placeOf(ex: Exchange): Place {
    let place = this.#placed.get(ex);
    if (!place) {
      place = this.places.of(ex.method, ex.url);
      this.#placed.set(ex, place);
    }
    return place;
  }

  /**
   * The client a request's bearer token was issued to, when the judge saw it issued (a data call
   * names no client of its own; bawa proxy's log shows this one).
   */
  clientOfToken(ex: Exchange): string | undefined {
    const { token } = bearerParts(ex.requestHeaders.authorization);
    return token ? this.memory.access.get(fingerprint(token))?.clientId : undefined;
  }

  /** The violations one exchange shows, given what came before it. */
  judge(ex: Exchange): Judgement[] {
    const place = this.placeOf(ex);
    // A bawa mock whose clock was moved names the time it decided each answer at: the exchange is
    // judged at that time (memory.ts, judging). Without it, a clock moved at the mock or on its
    // dashboard left the judge on the proxy's clock: a token refused after the move looked alive
    // (a false DATA-BEARER), one taken past its lifetime looked fresh (decision 0039).
    const named = ex.headers[CLOCK_HEADER];
    this.memory.judging(ex.at, typeof named === "string" ? readClockHeader(named) : undefined);
    // And what its control calls changed there, seen or not: tokens ended, objects reset.
    const changes = ex.headers[CHANGES_HEADER];
    const shown = typeof changes === "string" ? readChangesHeader(changes) : undefined;
    if (shown) this.memory.changesShown(shown);
    const judged: Judged = {
      ex,
      place,
      method: ex.method.toUpperCase(),
      ok: ex.status >= 200 && ex.status < 300,
      memory: this.memory,
      contract: this.contract,
      spec: this.#spec,
      facts: oauthFacts(this.contract),
    };
    const resource = place.endpoint === "data" ? place.operation?.resource : undefined;
    const assumption = place.endpoint === "data" ? place.assumption : undefined;
    const out: Judgement[] = [];
    for (const g of PIPELINE) {
      const reading = g.read(judged);
      if (reading === undefined) continue;
      for (const step of g.steps) {
        for (const found of step.run(reading) ?? []) {
          const kind: Kind = assumption ? "assumption" : REQUIREMENT_KINDS[found.requirement];
          if (!this.#kinds.has(kind)) continue;
          // Not `{ ...found, kind, ...assumption, ...resource }` (members after a leading spread,
          // see Judged in step.ts); the fields keep their order.
          out.push(
            Object.assign({}, found, {
              kind,
              ...(assumption ? { assumption } : {}),
              ...(resource ? { resource } : {}),
            }),
          );
        }
      }
    }
    return out;
  }

  /**
   * What a request itself breaks of the contract (the spec view): the client's side of the exchange,
   * shown in the request log beside the answer, never counted as the service's violation.
   */
  requestProblem(ex: Exchange): string | undefined {
    const place = this.placeOf(ex);
    if (!place.version) return undefined;
    let problems: Problem[] = [];
    let what = "";
    if (place.endpoint === "authorize" && ex.method.toUpperCase() === "GET") {
      const q = queryOf(ex.url);
      problems = ["client_id", "redirect_uri", "scope", "response_type"]
        .filter((k) => !q.get(k))
        .map((field) => ({ field, message: "is required" }));
      what = "query";
    } else if (place.endpoint === "token" && ex.method.toUpperCase() === "POST") {
      const form = formOf(ex);
      if (!form) return "request: the token request is not a form (application/x-www-form-urlencoded)";
      const basic = basicCredentials(ex.requestHeaders.authorization);
      const params = { ...(basic ? { client_id: basic.id, client_secret: basic.secret } : {}), ...form };
      const schema = { authorization_code: "AuthorizationCodeGrant", refresh_token: "RefreshTokenGrant" }[
        form.grant_type ?? ""
      ];
      problems = schema
        ? this.#spec.check(schema, params)
        : [{ field: "grant_type", message: "must be authorization_code or refresh_token" }];
      what = "form";
    } else if (place.operation?.collection.request && ["POST", "PUT"].includes(ex.method.toUpperCase())) {
      const body =
        mediaType(ex.requestHeaders["content-type"]) === "application/json" ? jsonOf(ex.requestBody) : undefined;
      if (!body) return undefined;
      const c = place.operation.collection;
      // Judged as the service reads it: JSON names bound without case, as Json.NET binds them
      // (A-NAMES), so `{"name": ...}` gives Name. The mock's own binding, so the two can not differ.
      const bound = isObject(body.value)
        ? bindProperties(body.value, c.request!.properties, c.nested, true)
        : { value: body.value, problems: [] };
      problems = this.#spec.check(c.request!.schema, bound.value);
      if (bound.problems.length > 0) problems = [...bound.problems, ...problems];
      what = "body";
    }
    if (problems.length === 0) return undefined;
    const listed = problems.slice(0, 3).map((p) => `${what}${p.field ? `.${p.field}` : ""} ${p.message}`);
    return `request: ${listed.join("; ")}${problems.length > 3 ? `; ${problems.length - 3} more` : ""}`;
  }

  /** Every step of the pipeline with the requirements it reports: what the README's table of rules is made from. */
  static steps(): Array<{ group: string; step: string; reports: readonly RequirementId[] }> {
    return PIPELINE.flatMap((g) => g.steps.map((s) => ({ group: g.name, step: s.name, reports: s.reports })));
  }
}
