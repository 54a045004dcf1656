// The conformance suite's Playwright configuration. Run it through
// `npx bawa conformance` (which starts the project's mock when no target is
// given), or directly with CONFORMANCE_* variables set.
//
// Each target is a project with one worker: the checks of one target run in
// order, because some move its clock, which every token feels. Several
// targets (the fault matrix, the tolerance runs) run side by side, one worker
// each, in a single run; CONFORMANCE_TARGETS names a JSON file that lists them.
import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "@playwright/test";
import { parse } from "yaml";
import { chromiumLaunchOptions } from "../src/browser.ts";
import { DEFAULT_REQUEST_TIMEOUT_SECONDS, KINDS, type Kind, readSettings } from "./lib/config.ts";
import { matrixReporter, redactionReporter, reporters } from "./lib/reporters.ts";
import { kindTag } from "./lib/requirements.ts";
import { ensureRunDir } from "./lib/secrets.ts";

const here = dirname(fileURLToPath(import.meta.url));
// `bawa conformance --output` and the fault matrix choose the folder; by default the current directory's.
const reports = resolve(process.env.CONFORMANCE_REPORTS_DIR ?? "reports/conformance");
// The run's private folder (secrets.ts): made here, in the runner, when `bawa conformance` did not
// make it; the workers start with the runner's environment, so they write to the same one.
ensureRunDir();

/** One target of a run: settings over the environment, and which requirements to check there. */
export interface RunTarget {
  name: string;
  /** CONFORMANCE_* settings of this target, over the environment's. */
  settings: Record<string, string>;
  /** Only the checks of these requirement ids (the fault matrix); all when absent. */
  requirements?: string[];
  /**
   * Requirements expected to fail here (a fault's run, a profile). Their checks
   * are marked so: Playwright then keeps the worker after a failure instead of
   * starting a new one with a new browser. Verdicts still come from each
   * check's own status.
   */
  expectFailures?: string[];
}

/** A known-results profile's expected failures (CONFORMANCE_PROFILE, e.g. Prism's). */
const profiled = process.env.CONFORMANCE_PROFILE
  ? Object.keys(
      (parse(readFileSync(process.env.CONFORMANCE_PROFILE, "utf8")) as { expectedFailures?: object })
        .expectedFailures ?? {},
    )
  : [];

const targets: RunTarget[] = process.env.CONFORMANCE_TARGETS
  ? (JSON.parse(readFileSync(process.env.CONFORMANCE_TARGETS, "utf8")) as RunTarget[])
  : [{ name: "target", settings: {}, expectFailures: profiled }];

// Several targets (the fault matrix): one worker each, CONFORMANCE_WORKERS of them at once. One target:
// CONFORMANCE_WORKERS checks at once (default 1, gentle on a real environment).
const several = process.env.CONFORMANCE_TARGETS !== undefined;
const perTarget = Number(process.env.CONFORMANCE_WORKERS ?? 1);

const kindsOf = (t: RunTarget) =>
  (t.settings.CONFORMANCE_KINDS ?? process.env.CONFORMANCE_KINDS ?? "spec,oauth")
    .split(",")
    .map((k) => k.trim())
    .filter((k): k is Kind => KINDS.includes(k as Kind));

/** A test is selected when it has one of the kinds' tags and, if given, one of the requirements' tags. */
const selection = (t: RunTarget) => {
  const tags = (list: string[]) => `(?:${list.map((s) => s.replace(/[-:@]/g, "\\$&")).join("|")})(?:\\s|$)`;
  const kinds = `(?=.*${tags(kindsOf(t).map(kindTag))})`;
  const ids = t.requirements ? `(?=.*${tags(t.requirements.map((id) => `@${id}`))})` : "";
  return new RegExp(`^${kinds}${ids}`, "s");
};

export default defineConfig<object, { targetSettings: Record<string, string>; expectedFailures: string[] }>({
  testDir: resolve(here, "checks"),
  outputDir: resolve(reports, "test-results"),
  workers: several
    ? Number(process.env.CONFORMANCE_WORKERS ?? Math.min(targets.length, availableParallelism()))
    : perTarget,
  fullyParallel: false,
  retries: 0,
  timeout: 90_000,
  projects: targets.map((t) => ({
    name: t.name,
    workers: several ? 1 : perTarget,
    grep: selection(t),
    use: { targetSettings: t.settings, expectedFailures: t.expectFailures ?? [] },
    // In the metadata, not only in `use`, so a merge of shards still knows the target.
    metadata: {
      kinds: kindsOf(t),
      // Narrowed (the fault matrix's requirements, --grep): coverage is judged on what was selected.
      filtered: t.requirements !== undefined || process.env.CONFORMANCE_FILTERED === "1",
      target: t.settings.CONFORMANCE_BASE_URL ?? process.env.CONFORMANCE_BASE_URL,
    },
  })),
  // CONFORMANCE_REPORTS=matrix keeps only the matrix (the fault matrix runs many targets at once).
  reporter:
    process.env.CONFORMANCE_REPORTS === "matrix"
      ? [
          [redactionReporter, { outputDir: reports }],
          [matrixReporter, { outputDir: reports, quiet: true }],
        ]
      : reporters(reports, process.env.CONFORMANCE_SHARD),
  use: {
    launchOptions: chromiumLaunchOptions(),
    actionTimeout: 15_000,
    // A page of the screens is a request too: CONFORMANCE_REQUEST_TIMEOUT bounds it (loadTarget checks the value).
    navigationTimeout: (Number(readSettings().REQUEST_TIMEOUT) || DEFAULT_REQUEST_TIMEOUT_SECONDS) * 1000,
    trace: process.env.CONFORMANCE_TRACE === "1" ? "retain-on-failure" : "off",
  },
});
