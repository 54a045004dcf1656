import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { requirements } from "../../../conformance/lib/requirements.ts";
import type { RequirementId } from "../../rules/generated/requirements.ts";
import { DEFAULT_RULES } from "../core/rules.ts";
import { buildMock } from "../index.ts";
import { call, codeFlowTokens, freshMock } from "../testing.ts";
import { FAULTS, SWITCHES, switchesNamed, TOLERATED } from "./index.ts";

describe("the switches", () => {
  it("break every spec and oauth requirement, and name only listed ones", () => {
    const all = requirements();
    const broken = new Set(FAULTS.flatMap((f) => f.breaks ?? []));
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
