import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../paths.ts";

const contract = readFileSync(resolve(PROJECT_ROOT, "openapi/openapi.yaml"), "utf8");
const table = readFileSync(resolve(PROJECT_ROOT, "openapi/ASSUMPTIONS.md"), "utf8");
const defined = [...table.matchAll(/^\| (A-[A-Z0-9-]+) \|/gm)].map((m) => m[1]);

describe("written assumptions", () => {
  it("define each id once", () => {
    expect(defined.length).toBeGreaterThan(20);
    expect(new Set(defined).size).toBe(defined.length);
  });

  it("cover every assumption id the contract mentions", () => {
    const used = new Set([...contract.matchAll(/\bA-[A-Z][A-Z0-9-]*[A-Z0-9]\b/g)].map((m) => m[0]));
    const undefinedIds = [...used].filter((id) => !defined.includes(id));
    expect(undefinedIds, "ids used in openapi.yaml but missing from ASSUMPTIONS.md").toEqual([]);
  });
});
