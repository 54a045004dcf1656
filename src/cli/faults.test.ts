import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { contractInUse } from "../contract/index.ts";
import { FAULTS, TOLERATED } from "../mock/faults/index.ts";
import { PROJECT_ROOT } from "../paths.ts";
import { baselineCase, type Case, faultCase, judge, type Summary, toleranceRuns } from "./faults.ts";

const row = (id: string, verdict: string, checks: Summary["requirements"][number]["checks"] = []) => ({
  id,
  verdict,
  checks,
});

describe("the tolerance runs", () => {
  const runs = toleranceRuns(TOLERATED);

  it("hold every expectation of every tolerated behaviour once", () => {
    const held = runs.flatMap((r) => r.switches.map((s) => `${s.name} ${JSON.stringify(r.settings)}`));
    const defined = TOLERATED.flatMap((s) => (s.expect ?? []).map((e) => `${s.name} ${JSON.stringify(e.settings)}`));
    expect(held.sort()).toEqual(defined.sort());
  });

  it("never put a finding beside another behaviour, nor two of one group together", () => {
    for (const r of runs) {
      if (r.failed.length > 0) expect(r.switches).toHaveLength(1);
      const groups = r.switches.map((s) => s.group).filter(Boolean);
      expect(new Set(groups).size).toBe(groups.length);
    }
  });

  it("open no browser where every behaviour changes only the data API's answers", () => {
    const run = (name: string) => runs.filter((r) => r.switches.some((s) => s.name === name));
    // Dates and names are written only in objects of resources: the screens never show them.
    for (const name of ["iso-dates", "dmy-dates", "camel-case-json", "extra-fields-both"])
      for (const r of run(name)) expect(r.browser, r.name).toBe(false);
    // A 405 of an unknown method, or error bodies, could be answers of the authorization server.
    for (const name of ["unknown-method-405", "error-without-modelstate"])
      for (const r of run(name)) expect(r.browser, r.name).toBeUndefined();
    expect(judge(run("iso-dates")[0]!, { requirements: [] }).what).toMatch(/run without a browser/);
  });

  it("pack the behaviours the suite must pass with the same settings", () => {
    expect(runs.length).toBeLessThan(TOLERATED.reduce((n, s) => n + (s.expect?.length ?? 0), 0));
    expect(runs.filter((r) => r.switches.length > 1).length).toBeGreaterThan(0);
  });
});

describe("judging a run", () => {
  const fault = faultCase(FAULTS.find((f) => f.name === "scope-other")!);
  const behaviour: Case = { ...runsOf("dmy-dates")[0]! };

  function runsOf(name: string): Case[] {
    return toleranceRuns(TOLERATED.filter((s) => s.name === name));
  }

  it("a fault is caught when exactly what it breaks failed: one drift is one finding", () => {
    expect(judge(fault, { requirements: [row("SCOPE-SINGLE", "failed"), row("TOKEN-RESPONSE", "passed")] }).ok).toBe(
      true,
    );
    const cascade = { requirements: [row("SCOPE-SINGLE", "failed"), row("TOKEN-RESPONSE", "failed")] };
    expect(judge(fault, cascade)).toMatchObject({ ok: false, failed: ["SCOPE-SINGLE", "TOKEN-RESPONSE"] });
    expect(judge(fault, { requirements: [row("SCOPE-SINGLE", "passed")] }).ok).toBe(false);
    expect(judge(fault, undefined).ok).toBe(false);
    // A mock that stopped answering after the failure leaves the rest not checked: nothing is caught then.
    const gone = {
      requirements: [row("SCOPE-SINGLE", "failed"), row("TOKEN-RESPONSE", "not checked")],
      stoppedAnswering: "at 2026-11-30T10:00:00Z: 3 requests in a row got no answer",
    };
    expect(judge(fault, gone)).toMatchObject({
      ok: false,
      unchecked: [
        "every check after the mock stopped answering (at 2026-11-30T10:00:00Z: 3 requests in a row got no answer)",
      ],
    });
  });

  it("a fault is caught only by failures that say what its definition says", () => {
    const expires = faultCase(FAULTS.find((f) => f.name === "expires-in-3600")!);
    const failed = (reason: string) => ({
      requirements: [row("TOKEN-RESPONSE", "failed", [{ title: "the token response", status: "failed", reason }])],
    });
    expect(judge(expires, failed("Error: the token response: expires_in must be 7200")).ok).toBe(true);
    const other = judge(expires, failed("Error: expect(received).toBe(expected) · Expected: 200 · Received: 500"));
    expect(other).toMatchObject({ ok: false, unexplained: [expect.stringContaining("Received: 500")] });
  });

  it("a behaviour ends as defined only with exactly its finding; not checked is no failure", () => {
    const exact = { requirements: [row("CUST-DATES", "failed"), row("CUST-FIELDS", "not checked")] };
    expect(judge(behaviour, exact)).toMatchObject({ ok: true, notChecked: ["CUST-FIELDS"] });
    const more = { requirements: [row("CUST-DATES", "failed"), row("CUST-FIELDS", "failed")] };
    expect(judge(behaviour, more).ok).toBe(false);
  });

  it("a check that broke instead of asserting fails the run, even where a failure was expected", () => {
    const summary = {
      requirements: [
        row("SCOPE-SINGLE", "failed", [
          { title: "one scope", status: "failed", reason: "TypeError: Cannot convert undefined or null to object" },
        ]),
      ],
    };
    const outcome = judge(fault, summary);
    expect(outcome.ok).toBe(false);
    expect(outcome.crashed[0]).toContain("SCOPE-SINGLE: one scope: TypeError");
    const asserted = {
      requirements: [
        row("SCOPE-SINGLE", "failed", [
          {
            title: "one scope",
            status: "failed",
            reason: `Error: expect(received).toBe(expected) · Expected: "http://BusinessAdmin.Mock.API/Web/WebApi/*"`,
          },
        ]),
      ],
    };
    expect(judge(fault, asserted).ok).toBe(true);
  });

  it("the baseline needs the generic rules passed for every editable resource, and every operation exercised", () => {
    const contract = contractInUse();
    const baseline = baselineCase(contract);
    const editable = contract.resources.collections.filter((c) => c.editable);
    expect(editable.length).toBeGreaterThan(0);
    const passed = (baseline.mustPass ?? []).map((r) => ({ ...row(r.split(" · ")[0]!, "passed"), row: r }));
    expect(passed).toHaveLength(editable.length * 2);
    const all = { operations: { seen: 12, declared: 12 } };
    expect(judge(baseline, { requirements: passed, coverage: { totals: all } })).toMatchObject({ ok: true });
    // A resource's rows missing (a check that never ran for it) is no pass: nothing failed, nothing verified.
    const first = passed[0]!.row;
    const without = judge(baseline, { requirements: passed.slice(1), coverage: { totals: all } });
    expect(without).toMatchObject({ ok: false, unchecked: [`${first} (no such row)`] });
    const skipped = passed.map((r, i) => (i === 0 ? { ...r, verdict: "not applicable" } : r));
    expect(judge(baseline, { requirements: skipped }).unchecked).toEqual([`${first} (not applicable)`]);
    const short = { operations: { seen: 11, declared: 12 } };
    expect(judge(baseline, { requirements: passed, coverage: { totals: short } }).unchecked).toEqual([
      "1 of 12 operations never exercised",
    ]);
  });
});

describe("bawa faults", () => {
  // Most faults break some checks of a requirement, not all: the replacement's validation fails
  // PUT's checks of A-INVALID-BODIES and POST's pass. A check of an expected failure marked so
  // before it ran made each of those passes a new worker (Node.js, the suite's modules, the
  // contract: 19 workers and 60 CPU-s for this fault on the matrix's contract, 1 and 15 after).
  it("runs a fault's checks on one worker when some of a broken requirement's checks pass", async () => {
    const dir = mkdtempSync(join(tmpdir(), "bawa-faults-"));
    try {
      const fault = "replacements-not-validated";
      const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("CONFORMANCE_")));
      const run = await promisify(execFile)(
        process.execPath,
        [resolve(PROJECT_ROOT, "bin/bawa.js"), "faults", "--only", fault, "--jobs", "1"],
        { cwd: dir, env: { ...env, CI: "1" }, timeout: 120_000 },
      );
      expect(run.stdout).toContain("1/1 faults caught");
      const report = JSON.parse(readFileSync(join(dir, "reports/faults.json"), "utf8")) as {
        outcomes: Array<{ case: string; ok: boolean; caughtBy: string[]; workers?: number }>;
      };
      const outcome = report.outcomes.find((o) => o.case === fault)!;
      // The premise: only the replacements' checks failed, and some of the same requirement passed.
      expect(outcome.caughtBy.length).toBeGreaterThan(0);
      for (const title of outcome.caughtBy) expect(title).toMatch(/a replacement \(PUT\)/);
      const summary = JSON.parse(readFileSync(join(dir, "reports/faults/targets", fault, "summary.json"), "utf8")) as {
        requirements: Array<{ id: string; checks: Array<{ title: string; status: string }> }>;
      };
      const passed = summary.requirements
        .filter((r) => r.id === "A-INVALID-BODIES")
        .flatMap((r) => r.checks.filter((c) => c.status === "passed"));
      expect(passed.length, "checks of A-INVALID-BODIES that passed").toBeGreaterThan(0);
      expect(outcome.workers, "workers that ran the fault's checks").toBe(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 150_000);
});
