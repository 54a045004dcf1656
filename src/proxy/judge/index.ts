// Judges exchanges against the description: the contract with our assumptions
// loosened (specView, the form the suite's `spec` checks use), and the rules
// of the description and of OAuth that exchanges can show. Violations name the
// suite's requirement ids (conformance/requirements.yaml), so a violation here
// reads as the suite's finding of that requirement would.
import { type CompiledContract, type Problem, SchemaSet, specView } from "../../contract/index.ts";
import { basicCredentials, type Exchange, formOf, jsonOf, mediaType, queryOf, type Violation } from "../exchange.ts";
import { type Place, Places } from "../places.ts";
import { judgeData } from "./data.ts";
import { Memory } from "./memory.ts";
import { judgeAuthorize, judgeRedirectsAndScreens, judgeToken } from "./oauth.ts";

export type { Violation };

export class Judge {
  readonly memory = new Memory();
  readonly places: Places;
  readonly #spec: SchemaSet;

  constructor(readonly contract: CompiledContract) {
    this.places = new Places(contract);
    this.#spec = new SchemaSet(specView(contract.doc));
  }

  /** The violations one exchange shows, given what came before it. */
  judge(ex: Exchange): Violation[] {
    this.#learnFromControlCalls(ex);
    const place = this.places.of(ex.method, ex.url);
    const method = ex.method.toUpperCase();
    const out: Violation[] = [];
    const ok = ex.status >= 200 && ex.status < 300;
    if (!place.version) {
      if (ok && place.template && place.endpoint !== "other") {
        out.push({
          requirement: "VER-PATH",
          where: "path",
          expected: "404: every path starts with /v<version>",
          found: String(ex.status),
        });
      }
    } else if (place.endpoint === "authorize" && method === "GET") {
      out.push(...judgeAuthorize(ex, this.memory));
    } else if (place.endpoint === "token" && method === "POST") {
      out.push(...judgeToken(ex, this.memory, this.#spec));
    } else if (place.endpoint === "data") {
      out.push(...judgeData(ex, place, this.memory, { spec: this.#spec, contract: this.contract }));
    }
    out.push(...judgeRedirectsAndScreens(ex, place, this.memory));
    if (place.version) out.push(...this.#versionLetter(ex, place));
    return out;
  }

  /**
   * What a request itself breaks of the contract (the spec view): the client's side of the exchange,
   * shown in the request log beside the answer, never counted as the service's violation.
   */
  requestProblem(ex: Exchange): string | undefined {
    const place = this.places.of(ex.method, ex.url);
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
      problems = this.#spec.check(place.operation.collection.request.schema, body.value);
      what = "body";
    }
    if (problems.length === 0) return undefined;
    const listed = problems.slice(0, 3).map((p) => `${what}${p.field ? `.${p.field}` : ""} ${p.message}`);
    return `request: ${listed.join("; ")}${problems.length > 3 ? `; ${problems.length - 3} more` : ""}`;
  }

  /** VER-CASE: a GET answered with one letter of the version segment is answered with the other too. */
  #versionLetter(ex: Exchange, place: Place): Violation[] {
    if (!place.template || !place.version) return [];
    const key = `${place.version.slice(1)} /${place.segments.join("/")}`;
    const letter = place.version[0]!;
    const method = ex.method.toUpperCase();
    if (method === "DELETE" && ex.status < 300) this.memory.answeredPaths.delete(key);
    if (method !== "GET") return [];
    if (ex.status < 400) {
      this.memory.answeredPaths.set(key, letter);
      return [];
    }
    const before = this.memory.answeredPaths.get(key);
    if (ex.status !== 404 || before === undefined || before === letter) return [];
    return [
      {
        requirement: "VER-CASE",
        where: "path",
        expected: `the answer /${before}${place.version.slice(1)} gets, with /${letter}${place.version.slice(1)} too`,
        found: "404",
      },
    ];
  }

  /**
   * A bawa mock as the target: its clock may be moved and its tokens expired
   * through the proxy, which the rules of time and tokens must know of.
   */
  #learnFromControlCalls(ex: Exchange): void {
    const path = ex.url.split("?")[0]!.toLowerCase();
    if (!path.startsWith("/__mock/") || ex.status !== 200) return;
    if (path === "/__mock/clock") {
      const now = (jsonOf(ex.body)?.value as { now?: unknown } | undefined)?.now;
      const at = typeof now === "string" ? Date.parse(now) : Number.NaN;
      if (Number.isFinite(at)) this.memory.clockOffset = at - ex.at;
    } else if (
      path.startsWith("/__mock/tokens/") ||
      path === "/__mock/rules" ||
      path.startsWith("/__mock/scenarios/")
    ) {
      this.memory.forgetTokens();
    } else if (path === "/__mock/reset" || /^\/__mock\/databases\/[^/]+\/reset$/.test(path)) {
      this.memory.forgetObjects();
    }
  }
}
