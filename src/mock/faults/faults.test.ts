import { describe, expect, it } from "vitest";
import { requirements } from "../../../conformance/lib/requirements.ts";
import { call, freshMock } from "../testing.ts";
import { applyFaults, FAULTS, faultsNamed } from "./faults.ts";

describe("the fault switches", () => {
  it("break every spec and oauth requirement, and name only listed ones", () => {
    const all = requirements();
    const broken = new Set(FAULTS.flatMap((f) => f.breaks));
    for (const id of broken) expect(all.has(id), id).toBe(true);
    const unbroken = [...all.values()].filter((r) => r.kind !== "assumption" && !broken.has(r.id)).map((r) => r.id);
    expect(unbroken, "spec and oauth requirements no fault breaks").toEqual([]);
  });

  it("have unique names", () => {
    expect(new Set(FAULTS.map((f) => f.name)).size).toBe(FAULTS.length);
  });

  it("refuse an unknown name, naming the known ones", () => {
    expect(() => faultsNamed("expires-in-3600,nope")).toThrow(/unknown fault nope; the faults are: expires-in-3600/);
  });

  it("are off unless applied, and mark every answer when on", () => {
    const { mock, auth } = freshMock();
    expect(call(mock, "GET", "/v1/api/DEMO/Customer/1001", { headers: auth }).headers["x-bawa-faults"]).toBeUndefined();
    const faulty = applyFaults(mock, faultsNamed("field-missing"));
    const res = faulty({
      method: "GET",
      url: "/v1/api/DEMO/Customer/1001",
      headers: { authorization: auth.authorization },
    });
    expect(res.headers["x-bawa-faults"]).toBe("field-missing");
    expect(JSON.parse(res.body!)).not.toHaveProperty("Fax");
  });
});
