// The control calls' answers hold every name the contract gives, even one that
// is a member of every JavaScript object.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { compileContract, loadContract } from "../../contract/index.ts";
import { CHANGES_HEADER, CLOCK_HEADER, readChangesHeader, readClockHeader } from "../../rules/mock-state.ts";
import { buildMock } from "../index.ts";
import { call, codeFlowTokens, control } from "../testing.ts";

const dir = mkdtempSync(join(tmpdir(), "bawa-control-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("GET /__mock/stats", () => {
  it("counts a resource named __proto__ like any other (it was left out of the answer)", () => {
    const doc = structuredClone(loadContract());
    const collection = doc.paths["/api/{database_id}/Customer"]!;
    const item = doc.paths["/api/{database_id}/Customer/{customer_id}"]!;
    doc.paths["/api/{database_id}/__proto__"] = {
      ...collection,
      post: { ...(collection.post as object), operationId: "createProto" },
    };
    doc.paths["/api/{database_id}/__proto__/{customer_id}"] = {
      parameters: item.parameters,
      get: { ...(item.get as object), operationId: "getProto" },
    };
    const file = join(dir, "proto.yaml");
    writeFileSync(file, stringify(doc));
    const mock = buildMock({ contract: compileContract(file), seedOptions: { strict: false } });
    const auth = { authorization: `Bearer ${codeFlowTokens(mock).access_token}` };
    const created = call(mock, "POST", "/v1/api/DEMO/__proto__", {
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ Name: "Prototype" }),
    });
    expect(created.status, created.text).toBe(200);
    const stats = call(mock, "GET", "/__mock/stats");
    expect(stats.status).toBe(200);
    expect(stats.text).toContain('"__proto__":1');
    expect(Object.hasOwn(stats.json().objectsByCollection, "__proto__")).toBe(true);
    const { objects, objectsByCollection } = stats.json();
    expect(objects).toBe(Object.values(objectsByCollection as Record<string, number>).reduce((a, b) => a + b, 0));
  });
});

describe("what answers name of the control calls' changes (X-Bawa-Changes, X-Bawa-Clock)", () => {
  const named = (mock: ReturnType<typeof buildMock>) => {
    const headers: Record<string, string> = {};
    mock.nameState(headers);
    return headers;
  };

  it("nothing until a change; then counts of the calls that may end tokens and that reset objects", () => {
    const mock = buildMock();
    expect(named(mock)).toEqual({});
    // A refused control call changes nothing, so it is not counted.
    expect(control(mock, "/__mock/rules", '{"accessTokenSeconds": "soon"}').status).toBe(400);
    expect(named(mock)).toEqual({});
    expect(control(mock, "/__mock/tokens/expire", '{"all": true}').status).toBe(200);
    expect(control(mock, "/__mock/scenarios/iso-dates", '{"on": true}').status).toBe(200);
    expect(control(mock, "/__mock/databases/DEMO/reset").status).toBe(200);
    expect(named(mock)).toEqual({ [CHANGES_HEADER]: "tokens=2; objects=1" });
    // The reset of everything resets objects (and the clock, which then is named: it was moved).
    expect(control(mock, "/__mock/clock", '{"advanceSeconds": 60}').status).toBe(200);
    expect(control(mock, "/__mock/reset").status).toBe(200);
    const after = named(mock);
    expect(after[CHANGES_HEADER]).toBe("tokens=2; objects=2");
    expect(Math.abs(readClockHeader(after[CLOCK_HEADER] ?? "")! - Date.now())).toBeLessThan(5_000);
    expect(readChangesHeader(after[CHANGES_HEADER]!)).toEqual({ tokens: 2, objects: 2 });
  });
});
