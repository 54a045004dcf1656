// The conformance suite's Playwright configuration. Run it through
// `npx bawa conformance` (which starts the project's mock when no target is
// given), or directly with CONFORMANCE_* variables set.
//
// One target is a project: its check files are spread over CONFORMANCE_WORKERS
// workers (default 1, gentle on a real environment). Several targets (the
// fault matrix, environments side by side; CONFORMANCE_TARGETS names a JSON
// file that lists them) are one project of one file, checks/every-target.spec.ts,
// which registers every check once per target, each target's checks a group of
// their own: one worker checks them in order (some move the target's clock,
// which every token feels), then takes the next target. A worker costs about
// 3 CPU-s to start; a worker per target was most of the fault matrix's CPU.
import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "@playwright/test";
import { parse } from "yaml";
import { chromiumLaunchOptions } from "../src/browser.ts";
import { escapeRegExp } from "../src/rules/redact.ts";
import {
  DEFAULT_REQUEST_TIMEOUT_SECONDS,
  fileSettings,
  KINDS,
  type Kind,
  listedTargets,
  type RunTarget,
  readSettings,
  TARGET_TITLE,
  targetTitle,
} from "./lib/config.ts";
import { matrixReporter, redactionReporter, reporters } from "./lib/reporters.ts";
import { kindTag } from "./lib/requirements.ts";
import { ensureRunDir } from "./lib/secrets.ts";

const here = dirname(fileURLToPath(import.meta.url));
// Run without `bawa conformance`, a config file's settings join the environment here, under its
// own, as the command puts them: the reporters and workers read the environment alone.
for (const [name, value] of Object.entries(fileSettings())) process.env[name] ??= value;
// `bawa conformance --output` and the fault matrix choose the folder; by default the current directory's.
const reports = resolve(process.env.CONFORMANCE_REPORTS_DIR ?? "reports/conformance");
// The run's private folder (secrets.ts): made here, in the runner, when `bawa conformance` did not
// make it; the workers start with the runner's environment, so they write to the same one.
ensureRunDir();

/** A known-results profile's expected failures (CONFORMANCE_PROFILE, e.g. Prism's). */
const profiled = process.env.CONFORMANCE_PROFILE
  ? Object.keys(
      (parse(readFileSync(process.env.CONFORMANCE_PROFILE, "utf8")) as { expectedFailures?: object })
        .expectedFailures ?? {},
    )
  : [];

const listed = listedTargets();
const targets: RunTarget[] = listed ?? [{ name: "target", settings: {}, expectFailures: profiled }];
// every-target.spec.ts, or its build (dist/conformance/checks/every-target.spec.js).
const EVERY_TARGET = /every-target\.spec\.[jt]s$/;

const kindsOf = (t: RunTarget) =>
  (t.settings.CONFORMANCE_KINDS ?? process.env.CONFORMANCE_KINDS ?? "spec,oauth")
    .split(",")
    .map((k) => k.trim())
    .filter((k): k is Kind => KINDS.includes(k as Kind));

/**
 * A test is selected when it has one of the kinds' tags and, if given, one of the requirements'
 * tags; in a run of several targets, each target's selection is of its own group's checks.
 */
const selection = (t: RunTarget, { grouped }: { grouped: boolean }) => {
  const tags = (list: string[]) => `(?:${list.map(escapeRegExp).join("|")})(?:\\s|$)`;
  const group = grouped ? `(?=.*${escapeRegExp(targetTitle(t.name))} )` : "";
  const kinds = `(?=.*${tags(kindsOf(t).map(kindTag))})`;
  const ids = t.requirements ? `(?=.*${tags(t.requirements.map((id) => `@${id}`))})` : "";
  return `${group}${kinds}${ids}`;
};

/** What the reports need to know of a target, in the metadata so a merge of shards still knows it. */
const metadataOf = (t: RunTarget) => ({
  kinds: kindsOf(t),
  // Narrowed (the fault matrix's requirements, --grep): coverage is judged on what was selected.
  filtered: t.requirements !== undefined || process.env.CONFORMANCE_FILTERED === "1",
  target: t.settings.CONFORMANCE_BASE_URL ?? process.env.CONFORMANCE_BASE_URL,
});

export default defineConfig<object, { runTargets: RunTarget[] }>({
  testDir: resolve(here, "checks"),
  outputDir: resolve(reports, "test-results"),
  workers: Number(process.env.CONFORMANCE_WORKERS ?? (listed ? Math.min(targets.length, availableParallelism()) : 1)),
  fullyParallel: false,
  retries: 0,
  timeout: 90_000,
  projects: listed
    ? [
        {
          name: "targets",
          testMatch: EVERY_TARGET,
          // A check outside every target's group (registered at once, not through checks()) is
          // selected too: it fails, naming checks(), instead of going unchecked without a word.
          grep: new RegExp(
            `^(?:${targets.map((t) => selection(t, { grouped: true })).join("|")}|(?!.*${escapeRegExp(TARGET_TITLE)}))`,
            "s",
          ),
          use: { runTargets: targets },
          metadata: { targets: Object.fromEntries(targets.map((t) => [t.name, metadataOf(t)])) },
        },
      ]
    : targets.map((t) => ({
        name: t.name,
        testIgnore: EVERY_TARGET,
        grep: new RegExp(`^${selection(t, { grouped: false })}`, "s"),
        use: { runTargets: [t] },
        metadata: metadataOf(t),
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
