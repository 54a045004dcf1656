// What a run says beyond its verdict: what of the contract it exercised, its
// findings as SARIF at the contract's lines, and what changed since an
// earlier run, with a gate that fails only on what got worse. The mock holds
// secrets of its own (secrets-testing.ts): the whole run here is also the
// passing run that conformance-secrets.test.ts's search needs, and every file
// and output of this file's runs is searched for them at its end.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import addFormats from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONTRACT_PATH, contractInUse } from "../contract/index.ts";
import { PROJECT_ROOT } from "../paths.ts";
import { type CoverageReport, declaredOperations } from "../rules/coverage.ts";
import { type BawaRun, conformanceHarness } from "./conformance-testing.ts";
import { leaks, type SecretMock, secretMock, textsUnder } from "./secrets-testing.ts";

// SARIF's schema is JSON Schema draft 4: Ajv's draft-04 build (a CommonJS module whose export is the class).
const Ajv04 = createRequire(import.meta.url)("ajv-draft-04") as typeof import("ajv-draft-04").default;
let mock: SecretMock;
const h = conformanceHarness(async (dir) => {
  mock = await secretMock(dir);
  return mock;
});

interface SummaryJson {
  verdict: string;
  coverage: CoverageReport;
  sinceBaseline?: { newlyFailing: string[]; fixed: string[]; stillFailing: string[] };
  requirements: Array<{ row: string; verdict: string }>;
}
const summaryOf = (output: string) =>
  JSON.parse(readFileSync(join(h.dir, output, "summary.json"), "utf8")) as SummaryJson;

/** Turns a mock's fault switches on for one run, and off again (by default the mock's with the secrets). */
async function withFaults(
  faults: string[],
  run: () => Promise<BawaRun>,
  control = (path: string, body: unknown) => mock.control(path, body),
): Promise<BawaRun> {
  const turn = (on: boolean) => Promise.all(faults.map((f) => control(`/__mock/scenarios/${f}`, { on })));
  for (const res of await turn(true)) expect(res.status).toBe(200);
  try {
    return await run();
  } finally {
    await turn(false);
  }
}

const NARROW = "CUST-FIELDS|VER-PATH|OAUTH-NO-STORE";
const declared = declaredOperations(contractInUse().doc);
let clean: BawaRun;
let worse: BawaRun;

beforeAll(async () => {
  // A whole run against the mock as it is: the baseline of the narrowed runs below. As the one
  // shard of a sharded run (its blob written, merged below), for the search of its files.
  clean = await h.bawa(["--shard", "1/1", "--output", "clean", "--sarif", "clean.sarif"]);
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
    // As the one shard of a sharded run, so its blob is merged below under each gate.
    const same = await withFaults(["field-wrong-type"], () =>
      h.bawa([
        "--grep",
        NARROW,
        "--shard",
        "1/1",
        "--output",
        "same",
        "--baseline",
        "worse/summary.json",
        "--fail-on",
        "new",
      ]),
    );
    expect(same.code, same.out).toBe(0);
    expect(summaryOf("same").sinceBaseline).toMatchObject({ newlyFailing: [], stillFailing: ["CUST-FIELDS"] });
    // Merged, the shards pass or fail the gate as the run would have: with --fail-on new it passes;
    // without it the same failures fail it, as any failure does.
    const mergedNew = await h.bawa([
      "merge",
      "same",
      "--output",
      "same-merged",
      "--baseline",
      "worse/summary.json",
      "--fail-on",
      "new",
    ]);
    expect(mergedNew.code, mergedNew.out).toBe(0);
    expect(summaryOf("same-merged").sinceBaseline).toMatchObject({ newlyFailing: [], stillFailing: ["CUST-FIELDS"] });
    const any = await h.bawa(["merge", "same", "--output", "any", "--baseline", "worse/summary.json"]);
    expect(any.code, any.out).toBe(1);
    expect(summaryOf("any").verdict).toBe("failed");
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
  // Its formats (uri, uri-reference, date-time) are checked too: without them Ajv would let any text pass.
  const validate = addFormats
    .default(new Ajv04({ allErrors: true, strict: false, unicodeRegExp: false }))
    .compile(schema);
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
      contractInUse().doc.components.schemas.Customer as { properties: Record<string, { type?: unknown }> }
    ).properties[field!]?.type;
    expect(
      [types].flat().some((t) => t === "number" || t === "integer"),
      `${field}: ${String(types)}`,
    ).toBe(true);
    expect(finding!.message.text).toContain(field);
    // The contract in use (the project's, or BAWA_CONTRACT's): outside the run's folder, a file: URI.
    const { uri } = location!.physicalLocation.artifactLocation;
    expect(uri.startsWith("file:") ? fileURLToPath(uri) : resolve(h.dir, uri)).toBe(CONTRACT_PATH);
    const line = readFileSync(CONTRACT_PATH, "utf8").split("\n")[location!.physicalLocation.region.startLine - 1];
    expect(line?.trim().startsWith(`${field}:`), line).toBe(true);
  });
});

describe("two targets side by side", () => {
  let other: Awaited<ReturnType<SecretMock["another"]>>;
  let run: BawaRun;
  beforeAll(async () => {
    // A second mock: one fault switch on, and its ids elsewhere (three customers made before the run).
    // On the same seed and control token: only the switch and the ids differ.
    other = await mock.another();
    const own = other.tokens;
    for (let i = 0; i < 3; i++) {
      const made = await fetch(`${other.url}/v1/api/DEMO/Customer`, {
        method: "POST",
        headers: { authorization: `Bearer ${own.access}`, "content-type": "application/json" },
        body: JSON.stringify({ Name: `Made before the run ${i}` }),
      });
      expect(made.status).toBe(200);
    }
    // Each target with the settings it has of its own (its address, its refresh token), the rest shared.
    const { CONFORMANCE_BASE_URL: _, CONFORMANCE_REFRESH_TOKEN: refresh, ...shared } = h.settings;
    writeFileSync(
      join(h.dir, "targets.yaml"),
      `targets:\n  test:\n    BASE_URL: ${h.url}\n    REFRESH_TOKEN: ${refresh}\n  prod:\n    BASE_URL: ${other.url}\n    REFRESH_TOKEN: ${own.refresh}\n`,
    );
    run = await withFaults(
      ["unknown-path-200"],
      () =>
        h.bawa(
          [
            "--config",
            "targets.yaml",
            "--grep",
            "ERR-1-PATH|CUST-CREATE-ID|CUST-DATES|SVC-METHODS|TOKEN-RESPONSE|TOK-REFRESH",
            "--output",
            "side",
            // One worker for both: it takes the second target's checks after the first's (decision 0031).
            "--workers",
            "1",
          ],
          shared,
        ),
      (path, body) => other.control(path, body),
    );
  }, 240_000);
  afterAll(() => other?.close());

  it("shows the one requirement that differs and the answer difference behind it, nothing for ids, tokens or dates", () => {
    expect(run.code, run.out).toBe(1);
    expect(existsSync(join(h.dir, "side/comparison.json")), run.out).toBe(true);
    const side = JSON.parse(readFileSync(join(h.dir, "side/comparison.json"), "utf8")) as {
      targets: Array<{ name: string; verdict: string }>;
      rows: Array<{ row: string; verdicts: Record<string, string>; differs: boolean }>;
      checks: Array<{
        check: string;
        against: string;
        differences: Array<{ request: string; what: string; a: string; b: string }>;
      }>;
    };
    expect(side.targets.map((t) => [t.name, t.verdict])).toEqual([
      ["test", "passed"],
      ["prod", "failed"],
    ]);
    expect(side.rows.filter((r) => r.differs)).toEqual([
      { row: "ERR-1-PATH", verdicts: { test: "passed", prod: "failed" }, differs: true },
    ]);
    // Every answer difference is in the check of that requirement: the creates (other ids), the
    // token grants (other tokens) and the customers' dates showed none.
    expect(side.checks.map((c) => c.check)).toEqual([expect.stringMatching(/status-rules\.spec\.[jt]s › rule 1: /)]);
    expect(side.checks[0]!.differences).toContainEqual(
      expect.objectContaining({ request: "GET /v1/api/DEMO/NoSuchResource", what: "status", a: "404", b: "200" }),
    );
    expect(run.out).toContain("1 of");
    expect(run.out).toMatch(/≠ ERR-1-PATH: test passed, prod failed/);
    for (const name of ["test", "prod"])
      expect(readFileSync(join(h.dir, "side/targets", name, "summary.json"), "utf8")).toContain('"requirements"');
  });

  it("runs each target's checks in order on one worker, which then takes the next target", () => {
    type Spec = { title: string; tests: Array<{ results: Array<{ workerIndex: number; startTime: string }> }> };
    type Group = { title: string; suites?: Group[]; specs?: Spec[] };
    const report = JSON.parse(readFileSync(join(h.dir, "side/results.json"), "utf8")) as { suites: Group[] };
    const ran: Array<{ target: string; worker: number; at: number }> = [];
    const walk = (group: Group, target: string) => {
      const of = /^\[target (.+)\]$/.exec(group.title)?.[1] ?? target;
      for (const spec of group.specs ?? [])
        for (const t of spec.tests)
          for (const r of t.results) ran.push({ target: of, worker: r.workerIndex, at: Date.parse(r.startTime) });
      for (const inner of group.suites ?? []) walk(inner, of);
    };
    for (const group of report.suites) walk(group, "");
    ran.sort((a, b) => a.at - b.at);
    const order = ran.map((r) => r.target);
    // Every check of test, then every check of prod: a target's checks are one group.
    expect(order.length, run.out).toBeGreaterThan(4);
    expect(order).toEqual([...order.filter((t) => t === "test"), ...order.filter((t) => t === "prod")]);
    // The worker that ran test's last check ran prod's first (prod's failed check then ends it).
    const first = order.indexOf("prod");
    expect(ran[first]!.worker).toBe(ran[first - 1]!.worker);
  });

  it.each([
    [["--target", "test"], /--target must be <name>=<url>/],
    [["--target", "a=ftp://x"], /--target a: ftp:\/\/x is not an http or https URL/],
    [["--target", "a=http://127.0.0.1:1", "--target", "a=http://127.0.0.1:2"], /--target a is named twice/],
    [
      ["--target", "a=http://127.0.0.1:1", "--base-url", "http://127.0.0.1:2"],
      /--base-url and --target name the target twice/,
    ],
  ])("%j is refused before anything runs (exit 2)", async (args, message) => {
    const refused = await h.bawa(args);
    expect(refused.code, refused.out).toBe(2);
    expect(refused.out).toMatch(message);
  });
});

describe("secrets", () => {
  it("no file any run wrote, and nothing any printed, holds a secret the mock knew or handed out", async () => {
    // The whole run's blob, merged into a verdict of its own (a report made from the blob).
    const merged = await h.bawa(["merge", "clean", "--output", "merged"]);
    expect(merged.code, merged.out).toBe(0);
    expect(readdirSync(join(h.dir, "clean", "blob")).length).toBe(1);
    // The runs' folders; not the seed, nor the targets file this test wrote.
    const folders = readdirSync(h.dir).filter((f) => f !== "seed" && statSync(join(h.dir, f)).isDirectory());
    expect(folders).toEqual(expect.arrayContaining(["clean", "merged", "worse", "side"]));
    const texts = [
      ...folders.flatMap((out) => textsUnder(join(h.dir, out)).map((t) => ({ ...t, where: `${out}/${t.where}` }))),
      ...readdirSync(h.dir)
        .filter((f) => f.endsWith(".sarif"))
        .map((f) => ({ where: f, text: readFileSync(join(h.dir, f), "utf8") })),
      ...h.printed,
    ];
    expect(texts.some((t) => t.where.includes("html/index.html#base64!report.json"))).toBe(true);
    expect(mock.issuedCount, "tokens, codes and cookies the mock handed out").toBeGreaterThan(50);
    expect(leaks(mock.secrets(), texts)).toEqual([]);
  }, 120_000);
});
