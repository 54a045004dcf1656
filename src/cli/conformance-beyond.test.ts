// What a run says beyond its verdict: what of the contract it exercised, its
// findings as SARIF at the contract's lines, and what changed since an
// earlier run, with a gate that fails only on what got worse.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { CONTRACT_PATH, compileContract } from "../contract/index.ts";
import { PROJECT_ROOT } from "../paths.ts";
import { type CoverageReport, declaredOperations } from "../rules/coverage.ts";
import { type BawaRun, conformanceHarness } from "./conformance-testing.ts";

// SARIF's schema is JSON Schema draft 4: Ajv's draft-04 build (a CommonJS module whose export is the class).
const Ajv04 = createRequire(import.meta.url)("ajv-draft-04") as typeof import("ajv-draft-04").default;
const h = conformanceHarness();

interface SummaryJson {
  verdict: string;
  coverage: CoverageReport;
  sinceBaseline?: { newlyFailing: string[]; fixed: string[]; stillFailing: string[] };
  requirements: Array<{ row: string; verdict: string }>;
}
const summaryOf = (output: string) =>
  JSON.parse(readFileSync(join(h.dir, output, "summary.json"), "utf8")) as SummaryJson;

/** Turns the mock's fault switches on for one run, and off again. */
async function withFaults(faults: string[], run: () => Promise<BawaRun>): Promise<BawaRun> {
  const turn = (on: boolean) =>
    Promise.all(
      faults.map((f) =>
        fetch(`${h.url}/__mock/scenarios/${f}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ on }),
        }),
      ),
    );
  for (const res of await turn(true)) expect(res.status).toBe(200);
  try {
    return await run();
  } finally {
    await turn(false);
  }
}

const NARROW = "CUST-FIELDS|VER-PATH|OAUTH-NO-STORE";
const declared = declaredOperations(compileContract().doc);
let clean: BawaRun;
let worse: BawaRun;

beforeAll(async () => {
  // A whole run against the mock as it is: the baseline of the narrowed runs below.
  clean = await h.bawa(["--output", "clean", "--sarif", "clean.sarif"]);
  // One fault: the first number property of each object written as a string (CUST-FIELDS).
  worse = await withFaults(["field-wrong-type"], () =>
    h.bawa([
      "--grep",
      NARROW,
      "--output",
      "worse",
      "--baseline",
      "clean/summary.json",
      "--fail-on",
      "new",
      "--sarif",
      "worse.sarif",
    ]),
  );
}, 300_000);

describe("contract coverage", () => {
  it("a whole run exercises every operation of the contract, each with the statuses it saw", () => {
    expect(clean.code, clean.out).toBe(0);
    const { coverage } = summaryOf("clean");
    expect(coverage.operations.map((o) => o.key).sort()).toEqual(declared.map((o) => o.key).sort());
    for (const o of coverage.operations) {
      expect(o.exchanges, `${o.method} ${o.path}`).toBeGreaterThan(0);
      expect(o.seen.statuses.length, `${o.method} ${o.path}`).toBeGreaterThan(0);
    }
    expect(clean.out).toMatch(
      new RegExp(`Contract coverage: ${declared.length} of ${declared.length} operations exercised`),
    );
    const html = readFileSync(join(h.dir, "clean/matrix.html"), "utf8");
    expect(html).toContain('<section id="coverage"><h2>Contract coverage</h2>');
  });

  it("a run without the checks that replace an object reports PUT never exercised, first", () => {
    const { coverage } = summaryOf("worse");
    const never = coverage.operations.filter((o) => o.exchanges === 0);
    const put = declared.find((o) => o.method === "PUT" && o.path.includes("/Customer/"))!;
    expect(never.map((o) => o.key)).toContain(put.key);
    // Never exercised come first.
    expect(coverage.operations.slice(0, never.length)).toEqual(never);
    expect(worse.out).toContain(`never exercised: ${put.method} ${put.path}`);
  });
});

describe("--baseline and --fail-on new", () => {
  it("a run that newly fails a row fails the gate and says which", () => {
    expect(worse.code, worse.out).toBe(1);
    const { sinceBaseline } = summaryOf("worse");
    expect(sinceBaseline?.newlyFailing).toEqual(["CUST-FIELDS"]);
    expect(sinceBaseline?.stillFailing).toEqual([]);
    expect(worse.out).toContain("newly failing: CUST-FIELDS");
  });

  it("the same failures as the baseline pass the gate; one more fails it", async () => {
    const same = await withFaults(["field-wrong-type"], () =>
      h.bawa(["--grep", NARROW, "--output", "same", "--baseline", "worse/summary.json", "--fail-on", "new"]),
    );
    expect(same.code, same.out).toBe(0);
    expect(summaryOf("same").sinceBaseline).toMatchObject({ newlyFailing: [], stillFailing: ["CUST-FIELDS"] });
    // Without --fail-on new the same run fails, as any failure does.
    const any = await withFaults(["field-wrong-type"], () =>
      h.bawa(["--grep", NARROW, "--output", "any", "--baseline", "worse/summary.json"]),
    );
    expect(any.code, any.out).toBe(1);
    const more = await withFaults(["field-wrong-type", "token-cacheable"], () =>
      h.bawa(["--grep", NARROW, "--output", "more", "--baseline", "worse/summary.json", "--fail-on", "new"]),
    );
    expect(more.code, more.out).toBe(1);
    expect(summaryOf("more").sinceBaseline?.newlyFailing).toEqual(["OAUTH-NO-STORE"]);
  }, 180_000);

  it.each([
    [["--fail-on", "new"], /--fail-on new needs --baseline/],
    [["--fail-on", "worse"], /--fail-on must be any or new, not "worse"/],
    [["--baseline", "nowhere.json"], /--baseline: cannot read the baseline .*nowhere\.json/],
    [["--baseline", "clean/matrix.md"], /--baseline: cannot read the baseline/],
  ])("%j is refused before anything runs (exit 2)", async (args, message) => {
    const run = await h.bawa(args);
    expect(run.code, run.out).toBe(2);
    expect(run.out).toMatch(message);
  });
});

describe("--sarif", () => {
  const schema = JSON.parse(readFileSync(resolve(PROJECT_ROOT, "conformance/schemas/sarif-2.1.0.json"), "utf8"));
  // The schema's language pattern is not valid with the u flag ("]?" alone): read it as JavaScript does without.
  const validate = new Ajv04({ allErrors: true, strict: false, unicodeRegExp: false }).compile(schema);
  const sarif = (file: string) => JSON.parse(readFileSync(join(h.dir, file), "utf8"));

  it("validates against the SARIF 2.1.0 schema, with a rule per requirement", () => {
    for (const file of ["clean.sarif", "worse.sarif"]) {
      const log = sarif(file);
      expect(validate(log), JSON.stringify(validate.errors?.slice(0, 3))).toBe(true);
      const rules = log.runs[0].tool.driver.rules as Array<{ id: string }>;
      expect(rules.length).toBe(
        (readFileSync(resolve(PROJECT_ROOT, "conformance/requirements.yaml"), "utf8").match(/^ {2}- id: /gm) ?? [])
          .length,
      );
    }
    expect(sarif("clean.sarif").runs[0].results).toEqual([]);
  });

  it("a field-level finding points at the field's line in the contract", () => {
    const results = sarif("worse.sarif").runs[0].results as Array<{
      ruleId: string;
      message: { text: string };
      locations: Array<{
        physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number } };
        logicalLocations?: Array<{ fullyQualifiedName: string }>;
      }>;
    }>;
    const finding = results.find((r) => r.ruleId === "CUST-FIELDS");
    expect(finding, JSON.stringify(results).slice(0, 500)).toBeDefined();
    const [location] = finding!.locations;
    const node = location!.logicalLocations?.[0]?.fullyQualifiedName ?? "";
    const field = /^components\.schemas\.Customer\.properties\.(\w+)$/.exec(node)?.[1];
    expect(field, node).toBeDefined();
    // The fault writes the first number property as a string: the field the finding names.
    const types = (
      compileContract().doc.components.schemas.Customer as { properties: Record<string, { type?: unknown }> }
    ).properties[field!]?.type;
    expect(
      [types].flat().some((t) => t === "number" || t === "integer"),
      `${field}: ${String(types)}`,
    ).toBe(true);
    expect(finding!.message.text).toContain(field);
    expect(location!.physicalLocation.artifactLocation.uri.endsWith("openapi/openapi.yaml")).toBe(true);
    const line = readFileSync(CONTRACT_PATH, "utf8").split("\n")[location!.physicalLocation.region.startLine - 1];
    expect(line?.trim().startsWith(`${field}:`), line).toBe(true);
  });
});
