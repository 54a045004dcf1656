import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { requirements } from "../../../conformance/lib/requirements.ts";
import type { RequirementId } from "../../rules/generated/requirements.ts";
import type { MockRequest } from "../core/http.ts";
import { DATA_API_RULES, DEFAULT_RULES } from "../core/rules.ts";
import { changesDataAnswersOnly } from "../core/scenarios.ts";
import { type BawaMock, buildMock } from "../index.ts";
import { authorizeThroughScreens, call, codeFlowTokens, DEMO_APP, freshMock, tokenRequest } from "../testing.ts";
import { FAULTS, SWITCHES, switchesNamed, TOLERATED } from "./index.ts";

describe("the switches", () => {
  it("break every spec and oauth requirement, and name only listed ones", () => {
    const all = requirements();
    // A row (`A-REQUIRED · Customer`) breaks its requirement.
    const broken = new Set(FAULTS.flatMap((f) => (f.breaks ?? []).map((row) => row.split(" · ")[0]!)));
    for (const id of broken) expect(all.has(id), id).toBe(true);
    const unbroken = [...all.values()]
      .filter((r) => r.kind !== "assumption" && !broken.has(r.id as RequirementId))
      .map((r) => r.id);
    expect(unbroken, "spec and oauth requirements no fault breaks").toEqual([]);
  });

  it("have unique names; every fault breaks something, every tolerated behaviour says how the suite ends", () => {
    expect(new Set(SWITCHES.map((f) => f.name)).size).toBe(SWITCHES.length);
    for (const f of FAULTS) expect(f.breaks?.length, f.name).toBeGreaterThan(0);
    // What the failure must say, so a check failing for another reason is no catch.
    for (const f of FAULTS) expect(f.says, f.name).toBeInstanceOf(RegExp);
    for (const t of TOLERATED) expect(t.expect?.length, t.name).toBeGreaterThan(0);
  });

  it("change only rules that exist, or reshape answers", () => {
    for (const s of SWITCHES) {
      for (const rule of Object.keys(s.rules ?? {})) expect(DEFAULT_RULES, `${s.name}: ${rule}`).toHaveProperty(rule);
      expect(Object.keys(s.rules ?? {}).length + (s.transforms?.length ?? 0), s.name).toBeGreaterThan(0);
    }
  });

  it("refuse an unknown name, naming the known ones", () => {
    expect(() => switchesNamed("expires-in-3600,nope")).toThrow(
      /unknown switch nope; the switches are: expires-in-3600/,
    );
  });

  it("are off unless switched on, and mark every answer while on", () => {
    const { mock, auth } = freshMock();
    expect(call(mock, "GET", "/v1/api/DEMO/Customer/1001", { headers: auth }).headers["x-bawa-faults"]).toBeUndefined();
    const faulty = buildMock({ contract: mock.ctx.contract, switches: ["field-missing"] });
    const token = codeFlowTokens(faulty).access_token;
    const res = call(faulty, "GET", "/v1/api/DEMO/Customer/1001", { headers: { authorization: `Bearer ${token}` } });
    expect(res.headers["x-bawa-faults"]).toBe("field-missing");
    expect(res.json()).not.toHaveProperty("CollectiveInvoiceSystemId");
  });

  // What the suite's invalid-bodies checks must catch: values fitted into the schema or made up,
  // not refused. A body without any properties at all stays 400 (ERR-3-REQUIRED is not broken).
  it("required-not-enforced and values-fitted store what they should refuse", () => {
    const contract = freshMock().mock.ctx.contract;
    const headersOf = (mock: BawaMock) => ({
      authorization: `Bearer ${codeFlowTokens(mock).access_token}`,
      "content-type": "application/json",
    });
    const loose = buildMock({ contract, switches: ["required-not-enforced"] });
    const headers = headersOf(loose);
    const made = call(loose, "POST", "/v1/api/DEMO/Customer", { headers, body: '{"City":"Zwolle"}' });
    expect(made.status).toBe(200);
    expect(made.json().Name).toBe("x");
    expect(call(loose, "POST", "/v1/api/DEMO/Customer", { headers }).status).toBe(400);
    const fitted = buildMock({ contract, switches: ["values-fitted"] });
    const long = call(fitted, "POST", "/v1/api/DEMO/Customer", {
      headers: headersOf(fitted),
      body: JSON.stringify({ Name: "N".repeat(45), ShortName: "S".repeat(9), CustomerId: "123456789" }),
    });
    // The id keeps its own rule (A-CUSTOMER-IDS): only the other texts are cut.
    expect(long.status).toBe(400);
    const cut = call(fitted, "POST", "/v1/api/DEMO/Customer", {
      headers: headersOf(fitted),
      body: JSON.stringify({ Name: "N".repeat(45), ShortName: "S".repeat(9) }),
    });
    expect(cut.status).toBe(200);
    expect([cut.json().Name, cut.json().ShortName]).toEqual(["N".repeat(40), "S".repeat(8)]);
  });

  // The whole list is cached as bytes without its info objects; a switch that reshapes it must
  // still get them, on the first answer and on the cached ones after it.
  it("reshape the cached whole list from its info objects", () => {
    const { mock, auth } = freshMock();
    const faulty = buildMock({ contract: mock.ctx.contract, switches: ["list-wrapped"] });
    const headers = { authorization: `Bearer ${codeFlowTokens(faulty).access_token}` };
    const expected = call(mock, "GET", "/v1/api/DEMO/CustomerInfoList", { headers: auth }).json();
    expect(expected.length).toBeGreaterThan(1);
    for (let i = 0; i < 2; i++) {
      expect(call(faulty, "GET", "/v1/api/DEMO/CustomerInfoList", { headers }).json()).toEqual({ Items: expected });
    }
  });

  // The fault matrix runs such a behaviour's suite without a browser (src/cli/faults.ts): the walks
  // through the screens must see nothing of it. Every answer (status, headers, body) of a code
  // flow, its exchange and refresh, an implicit flow, a refused login and a denied permission is
  // compared, the random parts (codes, tokens, anti-forgery values, cookies) masked.
  it("that change only the data API's answers change no answer a walk through the screens reads", () => {
    const contract = freshMock().mock.ctx.contract;
    const walks = (switches: string[]) => {
      const mock = buildMock({ contract, switches });
      const seen: string[] = [];
      const recording = {
        handle: (req: MockRequest) => {
          const res = mock.handle(req);
          const mask = (text: string) => text.replace(/[A-Za-z0-9_~.%+/=-]{20,}/g, "*");
          // Not the mark of a mock with a switch on (x-bawa-faults), which the suite never reads.
          const headers = Object.entries(res.headers)
            .filter(([k]) => k !== "x-bawa-faults")
            .map(([k, v]) => `${k}: ${mask(String(v))}`)
            .sort()
            .join("; ");
          seen.push(`${req.method} ${mask(req.url)} → ${res.status} ${headers} ${mask(res.body ?? "")}`);
          return res;
        },
      } as unknown as BawaMock;
      const { refresh_token } = codeFlowTokens(recording);
      tokenRequest(recording, {
        grant_type: "refresh_token",
        refresh_token,
        client_id: DEMO_APP.clientId,
        client_secret: DEMO_APP.clientSecret,
        redirect_uri: DEMO_APP.redirectUri,
      });
      authorizeThroughScreens(recording, { responseType: "token", state: "s/1 2" });
      authorizeThroughScreens(recording, { responseType: "code", decision: "deny" });
      expect(() => authorizeThroughScreens(recording, { responseType: "code", password: "wrong" })).toThrow();
      return seen;
    };
    const plain = walks([]);
    expect(plain.length).toBeGreaterThan(12);
    // The comparison sees a change of the token answers' body, and of their headers.
    expect(walks(["expires-in-3600"])).not.toEqual(plain);
    expect(walks(["token-cacheable"])).not.toEqual(plain);
    const dataOnly = TOLERATED.filter(changesDataAnswersOnly);
    expect(dataOnly.length).toBeGreaterThan(0);
    for (const s of dataOnly) expect(walks([s.name]), s.name).toEqual(plain);
  });

  it("the rules only the data API reads are read nowhere in the authorization server", () => {
    const oauth = join(dirname(fileURLToPath(import.meta.url)), "../core/oauth");
    for (const file of readdirSync(oauth).filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"))) {
      const source = readFileSync(join(oauth, file), "utf8");
      for (const rule of DATA_API_RULES)
        expect(source, `${file} reads ${rule}`).not.toMatch(new RegExp(`\\b${rule}\\b`));
    }
  });

  // The fault switches are data over the core's rules and answer codes: none may
  // re-derive routes from paths or recognise an answer by its wording.
  it("read no paths and no error texts", () => {
    const here = dirname(fileURLToPath(import.meta.url));
    for (const file of readdirSync(here).filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"))) {
      const source = readFileSync(join(here, file), "utf8");
      expect(source, file).not.toMatch(
        /\.url\b|req\.url|\/api\\\/|apiPath|\.test\(res\.body|match\(res\.body|No call matches/,
      );
    }
  });
});
