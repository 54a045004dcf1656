// The validators the build keeps (contract.ts, VALIDATOR_CACHE_DIR): Ajv's own code for them,
// loaded instead of compiled. They must answer exactly as the compiled ones do, errors and
// filled-in defaults included, and the compiled command line must find them.
import { execFileSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { resolve } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { describe, expect, it } from "vitest";
import { everyObject } from "../mock/core/store.ts";
import { loadSeed, PROJECT_SEED_DIR } from "../mock/seed.ts";
import { PROJECT_ROOT } from "../paths.ts";
import { propertiesOf, valueFor } from "../rules/bodies.ts";
import { contractInUse, loadValidatorCode, SchemaSet, specView, VALIDATOR_CACHE_DIR } from "./index.ts";

const contract = contractInUse();
const names = Object.keys(contract.doc.components.schemas);
const SETS = {
  answers: contract.answers,
  "request bodies": contract.requests,
  "the judge's view of the description": new SchemaSet(specView(contract.doc)),
};

/** Values that break one rule or another: types, null, lengths, dates, patterns, integers JSON can not carry. */
const ODD = [
  null,
  "",
  "x",
  "x".repeat(300),
  "02/30/2024",
  "2024-03-01",
  "3/1/2024",
  0,
  -1,
  1.5,
  1e20,
  9e28,
  true,
  [],
  {},
];

// The project's seed as the mock loads it: its customers are the realistic part of the samples.
const seed = Object.values(loadSeed(contract, PROJECT_SEED_DIR).objects.Customer ?? {}).flatMap((objects) =>
  everyObject(objects()),
);

/** Data for a named schema: the seed's objects, one made of valueFor, and each with one property odd, or gone. */
function samplesOf(name: string): unknown[] {
  const properties = propertiesOf(contract, name);
  const made = Object.fromEntries(Object.entries(properties).map(([k, p]) => [k, valueFor(p)]));
  const bases = [made, ...seed.slice(0, 3)];
  const out: unknown[] = [...bases, ...ODD, { ...made, NotInTheContract: 1 }];
  for (const base of bases) {
    for (const key of Object.keys(properties)) {
      const { [key]: _, ...without } = base;
      out.push(without);
      for (const odd of ODD) out.push({ ...base, [key]: odd });
    }
  }
  return out;
}

describe("validators kept by the build", () => {
  for (const [label, set] of Object.entries(SETS)) {
    it(`answer every sample as Ajv's compile does (${label})`, () => {
      const kept = loadValidatorCode(set.standaloneCode());
      expect(Object.keys(kept).sort()).toEqual([...names].sort());
      let failures = 0;
      const differ: string[] = [];
      for (const name of names) {
        const compiled = set.compiledNow(name);
        for (const sample of samplesOf(name)) {
          // Each its own copy: the request bodies' validators fill in defaults.
          const [a, b] = [structuredClone(sample), structuredClone(sample)];
          const ok = kept[name]!(a);
          const same = ok === compiled(b) && isDeepStrictEqual(kept[name]!.errors ?? null, compiled.errors ?? null);
          if (!same || !isDeepStrictEqual(a, b)) differ.push(`${name}: ${JSON.stringify(sample)}`);
          if (!ok) failures++;
        }
      }
      expect(differ.slice(0, 5)).toEqual([]);
      // The samples reach the refusals, not only the passes.
      expect(failures).toBeGreaterThan(100);
    });
  }

  it("are what the compiled command line loads for the project's contract, and only for it", () => {
    // dist's module, as bin/bawa.js and the suite's workers run it (this file runs the sources,
    // whose key differs: their own text is part of it). A schema edited after the build is
    // compiled as edited: here a property's maxLength, made 1. Until then no process loads Ajv's
    // compiler (30-50 ms of a start).
    const script = `
      const c = await import(${JSON.stringify(resolve(PROJECT_ROOT, "dist/src/contract/index.js"))});
      const contract = c.compileContract(c.PROJECT_CONTRACT_PATH, { eager: false });
      const sets = [contract.answers, contract.requests, new c.SchemaSet(c.specView(contract.doc))];
      c.warmContract(contract);
      const { createRequire } = await import("node:module");
      const compiler = Object.keys(createRequire(import.meta.url).cache).filter((k) => /[\\/]ajv[\\/]dist[\\/](2020|core)\\.js$/.test(k));
      const doc = structuredClone(contract.doc);
      const [key, p] = Object.entries(doc.components.schemas.Customer.properties).find(([, p]) => p.maxLength > 1);
      p.maxLength = 1;
      const edited = new c.SchemaSet(doc);
      const sample = JSON.parse(process.argv[1]);
      console.log(JSON.stringify({
        kept: sets.map((s) => s.kept),
        compiler,
        edited: edited.kept,
        before: contract.answers.validator("Customer")({ ...sample, [key]: "xy" }),
        after: edited.validator("Customer")({ ...sample, [key]: "xy" }),
      }));`;
    const sample = JSON.stringify(samplesOf("Customer")[1]);
    // Without the user's cache folder (user-cache.ts), which would keep the edit's code once compiled.
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", script, sample], {
      encoding: "utf8",
      env: { ...process.env, BAWA_CACHE_DIR: "off" },
    });
    expect(JSON.parse(out)).toEqual({
      kept: [true, true, true],
      compiler: [],
      edited: false,
      before: true,
      after: false,
    });
    expect(readdirSync(VALIDATOR_CACHE_DIR)).toHaveLength(3);
  });
});
