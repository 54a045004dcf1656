// Writes the requirements matrix (Markdown and HTML) and a JSON summary, prints
// a verdict per requirement, and fails the run when a selected requirement has
// no check: a gap in the suite must never look like a pass.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { FullConfig, FullResult, Reporter, Suite, TestCase, TestResult } from "@playwright/test/reporter";
import { CONTRACT_ALIASES, CONTRACT_PATH } from "../../src/contract/contract.ts";
import { PROJECT_ROOT } from "../../src/paths.ts";
import { printable } from "../../src/printable.ts";
import type { AnswerShape } from "../../src/rules/answer-shape.ts";
import {
  type CoverageData,
  type CoverageReport,
  coverageLines,
  coverageMarkdown,
  coverageReport,
  declaredOperations,
  mergeCoverage,
  PART_NAMES,
  PARTS,
} from "../../src/rules/coverage.ts";
import { parseYaml } from "../../src/yaml-file.ts";
import {
  BaselineError,
  baselineLines,
  compareWithBaseline,
  FAILING,
  gateFails,
  readBaseline,
  type SinceBaseline,
} from "./baseline.ts";
import { type Kind, onOff, type RunTarget } from "./config.ts";
import { targetDown } from "./gone.ts";
import { countsText, parseCounts, REQUESTS_ANNOTATION, type RequestCounts } from "./http.ts";
import { cell, esc } from "./markup.ts";
import {
  ANSWERS_ANNOTATION,
  COVERAGE_ANNOTATION,
  OBSERVED_ANNOTATION,
  type Observed,
  observedText,
} from "./observed.ts";
import {
  annotatedTarget,
  NOT_APPLICABLE,
  NOT_CHECKED,
  NOT_SELECTED,
  READ_ONLY,
  REQUIREMENTS_PATH,
  type Requirement,
  requirements,
  requirementTag,
  SUBJECT_ANNOTATION,
  TARGET_DOWN,
  WITHOUT_A_TOKEN,
  WRITES_TAG,
} from "./requirements.ts";
import { Locator, sarifLog } from "./sarif.ts";
import { CUT_FILE, RUN_DIR_VARIABLE } from "./secrets.ts";
import { checkKey, sideBySide, sideBySideLines, writeSideBySide } from "./side-by-side.ts";

/** The signal `bawa conformance` says cut the run short (secrets.ts CUT_FILE), if one did. */
function signalThatCut(): string | undefined {
  const dir = process.env[RUN_DIR_VARIABLE];
  try {
    return dir ? readFileSync(join(dir, CUT_FILE), "utf8").trim() || undefined : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Why and when the target of a run stopped answering, if it did: as a check that found it gone
 * said, else as the run's folder holds it (bawa conformance's watch may find it first).
 */
function goneOf(run: TargetRun, outcomes: Map<TestCase, CheckOutcome>): string | undefined {
  for (const test of new Set([...run.tests.values()].flat())) {
    const reason = outcomes.get(test)?.reason;
    if (reason?.startsWith(TARGET_DOWN))
      return reason
        .slice(TARGET_DOWN.length)
        .trim()
        .replace(/^\((.*)\)$/s, "$1");
  }
  let address = run.target;
  try {
    address = new URL(run.target).href.replace(/\/$/, "");
  } catch {
    // Not a URL: "(not set)".
  }
  return targetDown(address);
}

/** Row verdicts, worst first: the order reports list them in. */
const VERDICTS = [
  "failed",
  "uncovered",
  "unexpected pass",
  "not verified",
  "not checked",
  "not run (read-only)",
  "passed",
  "expected failure",
  "not applicable",
  "not selected",
] as const;
type Verdict = (typeof VERDICTS)[number];

/** A known-results profile: requirements expected to fail on a given kind of target, with the reason. */
interface Profile {
  name: string;
  expectedFailures: Record<string, string>;
}

interface CheckOutcome {
  title: string;
  file: string;
  status: TestResult["status"] | "not run";
  reason?: string;
  /** Playwright's id of the check: its report and trace are at html/index.html#?testId=<id>. */
  testId?: string;
  /**
   * A violation the rule layer found in the exchanges of this check, not the check's own
   * assertion: it counts for the requirement it breaks, whichever check made the exchange.
   */
  observed?: true;
}

/**
 * One row of the matrix: a requirement, or a requirement for one subject (a resource of the
 * contract) when its checks name one (`SVC-METHODS · Supplier`).
 */
export interface MatrixRow extends Requirement {
  /** `SVC-METHODS` or `SVC-METHODS · Supplier`: how reports name the row. */
  row: string;
  subject?: string;
  verdict: Verdict;
  checks: CheckOutcome[];
}

/** A failed check, as the reports list them first. */
export interface Failure {
  row: string;
  check: string;
  file: string;
  /** The first line of the error. */
  error: string;
  testId?: string;
}

export interface Summary {
  target: string;
  kinds: Kind[];
  startedAt: string;
  verdict: "passed" | "failed";
  /** The run ended before every check did: a signal (SIGINT, SIGTERM) or Playwright's global timeout. */
  interrupted: boolean;
  /** Why the verdict is what it is, in sentences: failures, nothing verified, strict. */
  because: string[];
  /**
   * The target stopped answering during the run: when, during which check, and why it was taken
   * for gone (its `because` sentence says so, and how many checks were then not checked).
   */
  stoppedAnswering?: string;
  /** CONFORMANCE_STRICT=1: anything not verified fails the run too. */
  strict: boolean;
  totals: Record<Verdict, number>;
  /** Requests the checks sent to the target, and how many of them met 429/503. */
  requests: RequestCounts;
  /**
   * The worker processes that ran the target's checks: one per worker the run has, and one more
   * after every check that ended otherwise than expected (a failure, or a pass where a failure
   * was expected) and had checks after it: Playwright starts a new Node.js and browser for them.
   */
  workers: number;
  failures: Failure[];
  /** The settings that the checks not verified said they needed. */
  missingSettings: string[];
  requirements: MatrixRow[];
  /** What of the contract the run's exchanges exercised, never exercised first. */
  coverage?: CoverageReport;
  /** This run against an earlier one (--baseline). */
  sinceBaseline?: SinceBaseline;
}

/** The subject a check names (a resource of the contract), from its annotation. */
export const subjectOf = (test: Pick<TestCase, "annotations">) =>
  test.annotations.find((a) => a.type === SUBJECT_ANNOTATION)?.description;

/** What the configuration tells the reports of a target (playwright.config.ts). */
interface TargetMetadata {
  kinds?: Kind[];
  filtered?: boolean;
  target?: string;
}

/** The tests of one target by requirement tag, and how its matrix is judged. */
interface TargetRun {
  name: string;
  target: string;
  kinds: Kind[];
  filtered: boolean;
  tests: Map<string, TestCase[]>;
  /** What the rule layer found in the exchanges of each check (observed.ts). */
  observed: Array<{ test: TestCase; found: Observed }>;
  /** Checks of the target not yet ended (progress of runs over many targets). */
  remaining: number;
  requests: RequestCounts;
  /** Playwright's index of each worker that ran one of the target's checks. */
  workers: Set<number>;
  /** What of the contract the checks' exchanges exercised (observed.ts, per check). */
  coverage: CoverageData;
  /** The shapes of each check's answers, in a run compared side by side (`file › title`). */
  answers: Map<string, AnswerShape[]>;
}

/** A target's run before any of its checks ended. */
const targetRun = (name: string, of: Required<TargetMetadata>): TargetRun => ({
  name,
  ...of,
  tests: new Map(),
  observed: [],
  remaining: 0,
  requests: { requests: 0, retried: 0, refused: 0 },
  workers: new Set(),
  coverage: {},
  answers: new Map(),
});

export default class MatrixReporter implements Reporter {
  #outputDir: string;
  #targets: TargetRun[] = [];
  #outcomes = new Map<TestCase, CheckOutcome>();
  #startedAt = new Date();
  #quiet: boolean;

  constructor(options: { outputDir?: string; quiet?: boolean } = {}) {
    this.#outputDir = options.outputDir ?? "reports/conformance";
    this.#quiet = options.quiet ?? false;
  }

  printsToStdio(): boolean {
    return true;
  }

  onBegin(config: FullConfig, suite: Suite): void {
    for (const projectSuite of suite.suites) {
      const project = projectSuite.project();
      const meta = (project?.metadata ?? {}) as TargetMetadata & { targets?: Record<string, TargetMetadata> };
      const runTargets = (project?.use as { runTargets?: RunTarget[] } | undefined)?.runTargets ?? [];
      // A run of several targets is one project that lists them; its checks name their target
      // (every-target.spec.ts). Every target has its matrix, also one none of whose checks was selected.
      const runOf = (name: string) => {
        // A merge of shards (bawa conformance merge) brings one suite per shard for the same target.
        let run = this.#targets.find((p) => p.name === name);
        if (!run) {
          const of = meta.targets?.[name] ?? meta;
          const settings = runTargets.find((t) => t.name === name)?.settings ?? {};
          run = targetRun(name, {
            target: of.target ?? settings.CONFORMANCE_BASE_URL ?? process.env.CONFORMANCE_BASE_URL ?? "(not set)",
            kinds:
              of.kinds ?? ((process.env.CONFORMANCE_KINDS ?? "spec,oauth").split(",").map((k) => k.trim()) as Kind[]),
            filtered: of.filtered ?? false,
          });
          this.#targets.push(run);
        }
        return run;
      };
      const own = project?.name ?? "target";
      for (const name of meta.targets ? Object.keys(meta.targets) : [own]) runOf(name);
      for (const test of projectSuite.allTests()) {
        const run = runOf(annotatedTarget(test.annotations) ?? own);
        run.remaining++;
        for (const tag of test.tags) run.tests.set(tag, [...(run.tests.get(tag) ?? []), test]);
      }
    }
    if (this.#targets.length === 0)
      this.#targets.push(targetRun("target", { target: "(not set)", kinds: [], filtered: false }));
    void config;
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    const annotations = [...test.annotations, ...(result.annotations ?? [])];
    const skip = annotations.find((a) => a.type === "skip")?.description;
    const lines = stripAnsi(result.error?.message ?? "")
      .split("\n")
      .map((l) => l.trim())
      .filter(Boolean);
    const error = lines.length
      ? [lines[0], ...lines.filter((l) => /^(Expected|Received|Counterexample|Replay)\b/.test(l))].join(" · ")
      : undefined;
    const reason =
      result.status === "skipped" ? skip : result.status === "passed" ? undefined : stripAnsi(error ?? result.status);
    this.#outcomes.set(test, {
      title: test.title,
      file: test.location.file.split(/[\\/]/).pop()!,
      status: result.status,
      ...(reason ? { reason } : {}),
      testId: test.id,
    });
    const name = annotatedTarget(test.annotations) ?? test.parent.project()?.name;
    const run = this.#targets.find((p) => p.name === name);
    // This attempt's own counts: a check retried by Playwright sent its requests again.
    const ofAttempt = (result.annotations ?? []).length ? result.annotations : test.annotations;
    for (const a of ofAttempt.filter((a) => a.type === OBSERVED_ANNOTATION)) {
      try {
        run?.observed.push({ test, found: JSON.parse(a.description ?? "") as Observed });
      } catch {
        // Not one of ours: an annotation of that name written by something else.
      }
    }
    for (const a of ofAttempt.filter((a) => a.type === COVERAGE_ANNOTATION)) {
      try {
        if (run) mergeCoverage(run.coverage, JSON.parse(a.description ?? "{}") as CoverageData);
      } catch {
        // Not one of ours.
      }
    }
    for (const a of ofAttempt.filter((a) => a.type === ANSWERS_ANNOTATION)) {
      try {
        run?.answers.set(
          checkKey(test.location.file.split(/[\\/]/).pop()!, test.title),
          JSON.parse(a.description ?? "[]"),
        );
      } catch {
        // Not one of ours.
      }
    }
    // A check skipped before any worker took it has the index -1.
    if (run && result.workerIndex >= 0) run.workers.add(result.workerIndex);
    const sent = parseCounts(ofAttempt.find((a) => a.type === REQUESTS_ANNOTATION)?.description);
    if (run && sent) {
      run.requests.requests += sent.requests;
      run.requests.retried += sent.retried;
      run.requests.refused += sent.refused;
    }
    // Runs over many targets print a line as each target's checks are done (CONFORMANCE_PROGRESS=1).
    if (run && --run.remaining === 0 && process.env.CONFORMANCE_PROGRESS === "1") {
      this.#done++;
      const failed = [...new Set([...run.tests.values()].flat())].filter((t) => {
        const o = this.#outcomes.get(t);
        return o && o.status !== "passed" && o.status !== "skipped";
      });
      const ids = [
        ...new Set(
          failed.flatMap((t) =>
            t.tags.filter((g) => !g.startsWith("@kind:") && g !== WRITES_TAG).map((g) => g.slice(1)),
          ),
        ),
      ];
      const elapsed = ((Date.now() - this.#startedAt.getTime()) / 1000).toFixed(0);
      console.log(
        `[${this.#done}/${this.#targets.length}] ${run.name}: ${ids.length ? `failed ${ids.join(", ")}` : "nothing failed"} (${elapsed} s)`,
      );
    }
  }

  #done = 0;

  async onEnd(result: FullResult): Promise<{ status?: FullResult["status"] } | undefined> {
    // A run narrowed with --grep checks coverage only of what it selected.
    // A shard judges only what it ran; the merge of the shards judges the whole.
    const filtered = process.env.CONFORMANCE_FILTERED === "1" || process.env.CONFORMANCE_SHARD !== undefined;
    const profile = process.env.CONFORMANCE_PROFILE
      ? (parseYaml(readFileSync(process.env.CONFORMANCE_PROFILE, "utf8")) as Profile)
      : undefined;
    // A run of listed targets (CONFORMANCE_TARGETS) writes each under targets/<name>, even one.
    const several = this.#targets.length > 1 || process.env.CONFORMANCE_TARGETS !== undefined;
    let anyFailed = false;
    // Read as the contract loader reads it (its options): the build's parsed copy where it has one.
    const declared = declaredOperations(
      parseYaml(readFileSync(CONTRACT_FILE(), "utf8"), { maxAliasCount: CONTRACT_ALIASES }) as object,
    );
    const baselineFile = process.env.CONFORMANCE_BASELINE;
    const failOn = process.env.CONFORMANCE_FAIL_ON === "new" ? "new" : "any";
    const summaries: Summary[] = [];
    for (const run of this.#targets) {
      const summary = summarize(run, this.#outcomes, {
        filtered: filtered || run.filtered,
        profile,
        result,
        startedAt: this.#startedAt,
        shard: process.env.CONFORMANCE_SHARD !== undefined,
        cutBy: signalThatCut(),
      });
      summary.coverage = coverageReport(declared, run.coverage);
      if (baselineFile) {
        try {
          summary.sinceBaseline = compareWithBaseline(summary, baselineFile, readBaseline(baselineFile));
        } catch (err) {
          if (!(err instanceof BaselineError)) throw err;
          summary.because.push(err.message);
          summary.verdict = "failed";
        }
      }
      summaries.push(summary);
      anyFailed ||= gateFails(summary, failOn);
      const dir = several ? join(this.#outputDir, "targets", run.name) : this.#outputDir;
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, "summary.json"), `${JSON.stringify(summary, null, 2)}\n`);
      writeFileSync(join(dir, "matrix.md"), markdown(summary));
      writeFileSync(join(dir, "matrix.html"), html(summary));
      if (!this.#quiet) console.log(terminal(summary, dir));
      completeJUnit(join(this.#outputDir, "junit.xml"), run.name, summary);
    }
    if (process.env.CONFORMANCE_COMPARE === "1" && summaries.length > 1) {
      const compared = this.#targets.map((run, i) => ({ ...summaries[i]!, name: run.name, answers: run.answers }));
      const side = sideBySide(compared);
      mkdirSync(this.#outputDir, { recursive: true });
      const file = writeSideBySide(this.#outputDir, side, compared);
      if (!this.#quiet)
        console.log(
          `\n${[...sideBySideLines(side, compared), `Side by side: ${file} and comparison.md, comparison.json`].join("\n")}`,
        );
    }
    const sarif = process.env.CONFORMANCE_SARIF;
    if (sarif) {
      const locator = new Locator(CONTRACT_FILE(), REQUIREMENTS_PATH);
      const log = sarifLog(
        summaries.map((s) => ({ ...s, requirements: s.requirements })),
        {
          requirements: requirements(),
          locator,
          version: packageVersion(),
          cwd: process.env.CONFORMANCE_CWD ?? process.cwd(),
        },
      );
      writeFileSync(sarif, `${JSON.stringify(log, null, 2)}\n`);
      if (!this.#quiet) console.log(`SARIF: ${sarif}`);
    }
    // A gate on what got worse (--fail-on new) passes a run whose failures its baseline had.
    if (profile || failOn === "new") return { status: anyFailed ? "failed" : "passed" };
    return anyFailed && result.status === "passed" ? { status: "failed" } : undefined;
  }
}

/** The contract the run checks against (CONFORMANCE_CONTRACT, else the project's). */
const CONTRACT_FILE = () => process.env.CONFORMANCE_CONTRACT || CONTRACT_PATH;

/** bawa's version, as SARIF names the tool's. */
function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(join(PROJECT_ROOT, "package.json"), "utf8")) as { version: string }).version;
  } catch {
    return "0.0.0";
  }
}

/** What a requirement a profile lists as an expected failure is, when it passed. */
const UNEXPECTED_PASS = "listed as an expected failure in the profile, but passed";

/**
 * The JUnit file (Playwright's, written by the junit reporter before this one ends) gets what only
 * the matrix knows, so a CI that reads JUnit alone sees every reason the run failed:
 * - a suite of the rows that failed only by what the rule layer observed in other checks'
 *   exchanges (every check of such a row passed);
 * - a suite of the rows a known-results profile expects to fail that passed (no check of theirs
 *   failed, and none is marked as expected to fail before it does);
 * - an error of the run when its target stopped answering (every check it left is skipped there,
 *   as not checked, and none failed for it).
 * Its top-level totals are then the sum of its suites, those included (withSuiteTotals).
 */
export function completeJUnit(file: string, target: string, summary: Summary): void {
  if (!existsSync(file)) return;
  const rows = summary.requirements.filter(
    (r) =>
      r.verdict === "failed" &&
      r.checks.some((c) => c.observed) &&
      !r.checks.some((c) => !c.observed && c.status === "failed"),
  );
  const written = readFileSync(file, "utf8");
  let xml = written;
  const end = xml.lastIndexOf("</testsuites>");
  if (end < 0) return;
  const esc = (t: string) =>
    t.replace(/[<>&"']/g, (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;", "'": "&apos;" })[c]!);
  let added = "";
  if (rows.length > 0) {
    const cases = rows.map((r) => {
      const found = r.checks.filter((c) => c.observed).map((c) => `${c.title}: ${c.reason ?? ""}`);
      return `<testcase name="${esc(r.row)}" classname="rules judged on every exchange (${esc(target)})" time="0">\n<failure message="${esc(found[0]!)}" type="observed">\n${esc(found.join("\n"))}\n</failure>\n</testcase>`;
    });
    added += `<testsuite name="rules judged on every exchange" hostname="${esc(target)}" tests="${rows.length}" failures="${rows.length}" skipped="0" errors="0" time="0">\n${cases.join("\n")}\n</testsuite>\n`;
  }
  // A requirement a known-results profile expects to fail whose checks all passed: Playwright marks
  // a check expected to fail only once it failed (test.ts), so none of them is a failure of its own.
  const passedAgainstProfile = summary.requirements.filter((r) => r.verdict === "unexpected pass");
  if (passedAgainstProfile.length > 0) {
    const cases = passedAgainstProfile.map(
      (r) =>
        `<testcase name="${esc(r.row)}" classname="the known-results profile (${esc(target)})" time="0">\n<failure message="${esc(UNEXPECTED_PASS)}" type="unexpected pass">\n${esc(`${UNEXPECTED_PASS}: ${r.checks.map((c) => c.title).join("; ")}`)}\n</failure>\n</testcase>`,
    );
    added += `<testsuite name="the known-results profile" hostname="${esc(target)}" tests="${cases.length}" failures="${cases.length}" skipped="0" errors="0" time="0">\n${cases.join("\n")}\n</testsuite>\n`;
  }
  const down = summary.because.find((b) => summary.stoppedAnswering && b.includes(summary.stoppedAnswering));
  if (down !== undefined) {
    added += `<testsuite name="the run" hostname="${esc(target)}" tests="1" failures="0" skipped="0" errors="1" time="0">\n<testcase name="the target answers until every check has ended" classname="the run (${esc(target)})" time="0">\n<error message="${esc(down)}" type="target stopped answering">\n${esc(down)}\n</error>\n</testcase>\n</testsuite>\n`;
  }
  xml = xml.slice(0, end) + added + xml.slice(end);
  const totalled = withSuiteTotals(xml);
  if (totalled !== written) writeFileSync(file, totalled);
}

/** The counts of a JUnit file's top level, each the sum of its suites' own. */
const JUNIT_TOTALS = ["tests", "failures", "errors", "skipped", "time"] as const;

/**
 * A JUnit file with the top-level `<testsuites>` totals the sum of its `<testsuite>`s: a tool that
 * reads only the top level (many CI views do) must count what a suite counts, such as the failures
 * of the rules judged on every exchange. Time is the suites' summed, as JUnit's schema has it (not
 * the run's wall time, shorter with several workers).
 */
export function withSuiteTotals(xml: string): string {
  const sums = Object.fromEntries(JUNIT_TOTALS.map((a) => [a, 0])) as Record<(typeof JUNIT_TOTALS)[number], number>;
  for (const [suite] of xml.matchAll(/<testsuite\s[^>]*>/g))
    for (const a of JUNIT_TOTALS) sums[a] += Number(new RegExp(`\\s${a}="([^"]*)"`).exec(suite)?.[1] ?? 0) || 0;
  return xml.replace(/<testsuites\b[^>]*>/, (top) => {
    let out = top;
    for (const a of JUNIT_TOTALS) {
      const value = a === "time" ? String(Number(sums.time.toFixed(3))) : String(sums[a]);
      const attr = new RegExp(`(\\s${a}=)"[^"]*"`);
      out = attr.test(out)
        ? out.replace(attr, `$1"${value}"`)
        : out.replace(/\s*\/?>$/, (close) => ` ${a}="${value}"${close}`);
    }
    return out;
  });
}

/** The requirements matrix of one target. */
function summarize(
  run: TargetRun,
  outcomes: Map<TestCase, CheckOutcome>,
  opts: {
    filtered: boolean;
    profile: Profile | undefined;
    result: FullResult;
    startedAt: Date;
    shard: boolean;
    /** The signal that cut the run (a person, a CI's timeout), if one did. */
    cutBy: string | undefined;
  },
): Summary {
  const { profile } = opts;
  // A run the target left (a check found it gone, or bawa conformance's watch did and stopped the
  // run): a check it cut off or never let start is not checked, not failed. A run a person or a
  // CI's timeout cut is another thing: its checks that did not end are said to have not run.
  const gone = opts.cutBy === undefined ? goneOf(run, outcomes) : undefined;
  const rows: MatrixRow[] = [];
  for (const r of requirements().values()) {
    const tests = run.tests.get(requirementTag(r.id)) ?? [];
    // A requirement whose checks name subjects has a row per subject, in the order they came.
    const bySubject = new Map<string | undefined, TestCase[]>();
    for (const t of tests) bySubject.set(subjectOf(t), [...(bySubject.get(subjectOf(t)) ?? []), t]);
    if (bySubject.size === 0) bySubject.set(undefined, []);
    for (const [subject, ofSubject] of bySubject) {
      const checks = ofSubject.map((t): CheckOutcome => {
        const c = outcomes.get(t) ?? {
          title: t.title,
          file: t.location.file.split(/[\\/]/).pop()!,
          status: "not run" as const,
          testId: t.id,
        };
        return gone !== undefined && (c.status === "not run" || c.status === "interrupted")
          ? { ...c, status: "skipped", reason: `${TARGET_DOWN} (${gone})` }
          : c;
      });
      let verdict = verdictOf(r, checks, run.kinds, opts.filtered);
      const expected = profile?.expectedFailures[r.id];
      if (expected !== undefined) {
        if (verdict === "failed") verdict = "expected failure";
        else if (verdict === "passed") verdict = "unexpected pass";
        for (const c of checks) {
          if (c.status !== "passed" && c.status !== "skipped") {
            c.reason = `expected on ${profile!.name}: ${expected} (${c.reason ?? c.status})`;
          }
        }
      }
      rows.push({
        ...r,
        row: subject === undefined ? r.id : `${r.id} · ${subject}`,
        ...(subject === undefined ? {} : { subject }),
        checks,
        verdict,
      });
    }
  }
  addObserved(rows, run, outcomes, profile);
  const totals = Object.fromEntries(VERDICTS.map((v) => [v, 0])) as Record<Verdict, number>;
  for (const row of rows) totals[row.verdict]++;
  const failures: Failure[] = rows
    .filter((r) => FAILING.has(r.verdict))
    .flatMap((r) =>
      r.verdict === "uncovered"
        ? [{ row: r.row, check: "(no check)", file: r.file, error: uncoveredHint(r) }]
        : r.verdict === "unexpected pass"
          ? [
              {
                row: r.row,
                check: "(profile)",
                file: r.file,
                error: UNEXPECTED_PASS,
              },
            ]
          : r.checks
              .filter((c) => c.status !== "passed" && c.status !== "skipped")
              .map((c) => ({
                row: r.row,
                check: c.title,
                file: c.file,
                error: (
                  c.reason ?? (c.status === "not run" ? "the run stopped before this check ran" : c.status)
                ).split(" · ")[0]!,
                ...(c.testId ? { testId: c.testId } : {}),
              })),
    );
  const missingSettings = [
    ...new Set(
      rows
        .filter((r) => r.verdict === "not verified")
        // A check not run because the target stopped answering names no missing setting.
        .flatMap((r) =>
          r.checks.flatMap(
            (c) => (c.reason?.startsWith(TARGET_DOWN) ? [] : c.reason?.match(/CONFORMANCE_[A-Z_]+/g)) ?? [],
          ),
        ),
    ),
  ].sort();
  // Read as bawa conformance read it before the run (`STRICT: true` of a config file is on too).
  const strict = onOff("CONFORMANCE_STRICT", process.env.CONFORMANCE_STRICT, false);
  const because: string[] = [];
  const interrupted = opts.result.status === "interrupted" || opts.result.status === "timedout";
  // Stopped because the target was gone, the run says so once, below, and not as a cut.
  if (interrupted && (gone === undefined || opts.result.status === "timedout")) {
    const ended = rows.flatMap((r) => r.checks).filter((c) => c.status === "not run").length;
    because.push(
      `the run was ${opts.result.status === "timedout" ? "timed out" : opts.cutBy ? `cut by ${opts.cutBy}` : "interrupted"} before every check ended (${ended} did not run)`,
    );
  }
  const notRun = rows.flatMap((r) => r.checks).filter((c) => c.reason?.startsWith(TARGET_DOWN));
  const stoppedAnswering = notRun.length > 0 ? (gone ?? goneOf(run, outcomes)) : undefined;
  if (stoppedAnswering !== undefined) {
    because.push(
      `the target at ${run.target} stopped answering (${stoppedAnswering}): ${notRun.length} ${notRun.length === 1 ? "check was" : "checks were"} not checked`,
    );
  }
  const failing = totals.failed + totals.uncovered + totals["unexpected pass"];
  if (failing > 0) because.push(`${failing} ${failing === 1 ? "requirement" : "requirements"} failed`);
  // Nothing verified is not a pass: a pipeline whose settings are missing must not go green.
  // A shard is judged by the merge of all shards; a profile's run by its expected results.
  if (failing === 0 && totals.passed === 0 && !opts.shard && !profile) {
    because.push(
      `nothing was verified: ${totals["not verified"]} requirements could not be checked${missingSettings.length ? `; ${missingSettings.join(", ")} would let them run` : ""}`,
    );
  }
  // Without a client and a user (or a refresh token) only the few rules that need no token are
  // checked: a pipeline that forgot them must not go green on those.
  const withoutToken = rows.filter(
    (r) => r.verdict === "not verified" && r.checks.some((c) => c.reason?.includes(WITHOUT_A_TOKEN)),
  ).length;
  if (withoutToken > 0 && totals.passed > 0 && failing === 0 && !opts.shard && !profile) {
    because.push(
      `no access token could be obtained: ${withoutToken} requirements that need one were not verified (${totals.passed} that need none passed); ${missingSettings.join(", ")} would let them run`,
    );
  }
  const unverified = totals["not verified"] + totals["not run (read-only)"];
  if (strict && unverified > 0) {
    because.push(`${unverified} requirements were not verified, and the run is strict (CONFORMANCE_STRICT=1)`);
  }
  return {
    target: run.target,
    kinds: run.kinds,
    startedAt: opts.startedAt.toISOString(),
    verdict: because.length > 0 ? "failed" : "passed",
    interrupted,
    because,
    ...(stoppedAnswering === undefined ? {} : { stoppedAnswering }),
    strict,
    totals,
    requests: run.requests,
    workers: run.workers.size,
    failures,
    missingSettings,
    requirements: rows,
  };
}

/**
 * The violations the rule layer found in the checks' exchanges, each added to the row of the
 * requirement it breaks (and the resource it concerns, where that requirement has a row per
 * resource): a row that ran fails by it, whichever check made the exchange. A row not selected
 * (another kind, a narrowed run) is left as it is; a finding of a check's own row that already
 * failed that check is not counted twice.
 */
function addObserved(
  rows: MatrixRow[],
  run: TargetRun,
  outcomes: Map<TestCase, CheckOutcome>,
  profile: Profile | undefined,
): void {
  for (const { test, found } of run.observed) {
    if (!run.kinds.includes(found.kind)) continue;
    const ofId = rows.filter((r) => r.id === found.requirement);
    let row = ofId.find((r) => r.subject !== undefined && r.subject === found.resource) ?? ofId.find((r) => !r.subject);
    if (!row && ofId.length > 0 && found.resource) {
      // A resource whose row no check made (the rule is checked per resource, this one only seen).
      const first = ofId[0]!;
      row = {
        ...first,
        row: `${first.id} · ${found.resource}`,
        subject: found.resource,
        checks: [],
        verdict: first.verdict,
      };
      rows.splice(rows.lastIndexOf(ofId.at(-1)!) + 1, 0, row);
    }
    if (!row || row.verdict === "not selected" || row.verdict === "not applicable") continue;
    const own = outcomes.get(test);
    if (row.checks.some((c) => c.testId === test.id && c.status === "failed")) continue;
    const reason = `observed: ${observedText(found)}`;
    if (row.checks.some((c) => c.observed && c.reason === reason)) continue;
    row.checks.push({
      title: `observed in "${test.title}"`,
      file: own?.file ?? test.location.file.split(/[\\/]/).pop()!,
      status: "failed",
      reason,
      testId: test.id,
      observed: true,
    });
    const expected = profile?.expectedFailures[row.id];
    row.verdict = expected !== undefined ? "expected failure" : "failed";
  }
}

function verdictOf(r: Requirement, checks: CheckOutcome[], kinds: Kind[], filtered: boolean): Verdict {
  if (!kinds.includes(r.kind)) return "not selected";
  if (checks.length === 0) return filtered ? "not selected" : "uncovered";
  if (
    checks.some(
      (c) => c.status === "failed" || c.status === "timedOut" || c.status === "interrupted" || c.status === "not run",
    )
  )
    return "failed";
  // The target went away before every check of it ended: what ran can not vouch for the whole
  // requirement, and the run fails once, on the target.
  if (checks.some((c) => c.reason?.startsWith(TARGET_DOWN))) return "not checked";
  // A read-only run did not run every check of it: what ran can not vouch for the whole requirement.
  if (checks.some((c) => c.reason?.startsWith(READ_ONLY))) return "not run (read-only)";
  if (checks.some((c) => c.status === "passed")) return "passed";
  // Skipped because another requirement's finding makes the check meaningless (names, dates).
  if (checks.some((c) => c.reason?.startsWith(NOT_CHECKED))) return "not checked";
  // Nothing of the contract it applies to (a generic rule with no resource of its kind).
  if (checks.every((c) => c.reason?.startsWith(NOT_APPLICABLE))) return "not applicable";
  // A resource that rests on an assumption, in a run that does not check assumptions.
  if (checks.every((c) => c.reason?.startsWith(NOT_SELECTED))) return "not selected";
  // A setting missing, a target that can not show it: never a pass, never a failure.
  return "not verified";
}

const ESC = String.fromCharCode(27);
const stripAnsi = (s: string) => s.replaceAll(new RegExp(`${ESC}\\[[0-9;]*m`, "g"), "");
const ICON: Record<Verdict, string> = {
  passed: "✔",
  failed: "✘",
  uncovered: "✘",
  "unexpected pass": "✘",
  "not verified": "?",
  "not checked": "◌",
  "not run (read-only)": "○",
  "expected failure": "○",
  "not applicable": "–",
  "not selected": "·",
};

/** Why a row that is neither passed nor failed is so: its first check's reason. */
const whyOf = (r: MatrixRow) =>
  r.checks.find((c) => c.reason)?.reason ?? (r.checks.some((c) => c.status === "not run") ? "not run" : "");

/** The verdict in one line: PASSED or FAILED, and why. */
const headline = (s: Summary) =>
  `Verdict: ${s.verdict.toUpperCase()}${s.because.length ? ` — ${s.because.join("; ")}` : ""}.`;

/** The rows the run could not settle: not verified (a setting or a way to act is missing) or not checked because of another finding. */
const unsettled = (s: Summary) =>
  s.requirements.filter((r) => r.verdict === "not verified" || r.verdict === "not checked");
const UNSETTLED_HEADING = "Not verified or not checked";

/**
 * The unsettled rows, those a target that stopped answering left apart: they are counted once,
 * since the verdict says when and why (each row's reason repeats it, 48 times in a cut run).
 */
function unsettledApart(s: Summary): { each: Summary["requirements"]; leftByTheTarget: number } {
  const all = unsettled(s);
  const each = all.filter((r) => !whyOf(r).startsWith(TARGET_DOWN));
  return { each, leftByTheTarget: all.length - each.length };
}
const LEFT_BY_THE_TARGET = "requirements not checked: the target stopped answering";

/** The summary a run prints: every text of the target in it through printable(). */
export function terminal(s: Summary, dir: string): string {
  const lines = [
    "",
    `Requirements (${s.kinds.join(", ")}) against ${printable(s.target)}:`,
    `  ${printable(headline(s))}`,
  ];
  if (s.failures.length > 0) {
    lines.push("  Failures:");
    for (const f of s.failures) lines.push(`    ✘ ${f.row} — ${f.check}: ${printable(f.error.slice(0, 240))}`);
  }
  const { each: notVerified, leftByTheTarget: notRun } = unsettledApart(s);
  if (notVerified.length + notRun > 0) {
    lines.push(`  ${UNSETTLED_HEADING} (${notVerified.length + notRun}):`);
    for (const r of notVerified.slice(0, 30))
      lines.push(`    ${ICON[r.verdict]} ${r.row}: ${printable(whyOf(r).slice(0, 200))}`);
    if (notVerified.length > 30) lines.push(`    ... and ${notVerified.length - 30} more (matrix.md)`);
    if (notRun > 0) lines.push(`    ${ICON["not checked"]} ${notRun} ${LEFT_BY_THE_TARGET}`);
  }
  if (s.totals["expected failure"] + s.totals["unexpected pass"] > 0) {
    lines.push(
      `  profile: ${s.totals["expected failure"]} expected failures, ${s.totals["unexpected pass"]} unexpected passes (update the profile when a limitation is gone)`,
    );
  }
  lines.push(`  ${counts(s)}`, `  requests: ${countsText(s.requests)}`);
  if (s.sinceBaseline) lines.push(...baselineLines(s.sinceBaseline).map((l) => `  ${printable(l)}`));
  if (s.coverage) lines.push(...coverageLines(s.coverage).map((l) => `  ${l}`));
  lines.push(`Matrix: ${join(dir, "matrix.html")} and matrix.md; summary.json; HTML report and JUnit XML beside them.`);
  return lines.join("\n");
}

/** The totals of a matrix in words, worst first, leaving out verdicts nobody got. */
const counts = (s: Summary) =>
  VERDICTS.filter((v) => s.totals[v] > 0 || v === "passed" || v === "failed")
    .map((v) => `${s.totals[v]} ${v}`)
    .join(", ");

/** Where the check of an uncovered requirement goes, as requirements.yaml says (oauth4webapi's unhandled.ts). */
const uncoveredHint = (r: Requirement) =>
  `no check covers this requirement; add one with covers("${r.id}") to conformance/checks/${r.file}`;

/**
 * Text a target sent (a failure quoting its answer), in a cell of a Markdown table: a code span,
 * where nothing is markup, not even an address a renderer would make a link of.
 */
const literal = (s: string) => {
  // A pipe stays in its cell when an odd number of backslashes stands before it (GFM tables).
  const flat = s
    .replace(/\s*\n\s*/g, " ")
    .replace(/(\\*)\|/g, (_m, slashes: string) => `${slashes}${slashes.length % 2 ? "" : "\\"}|`);
  if (flat.trim() === "") return "";
  const fence = "`".repeat(Math.max(0, ...(flat.match(/`+/g) ?? []).map((run) => run.length)) + 1);
  const pad = flat.startsWith("`") || flat.endsWith("`") ? " " : "";
  return `${fence}${pad}${flat}${pad}${fence}`;
};
const anchor = (row: string) => `row-${row.replace(/[^A-Za-z0-9-]+/g, "-")}`;

export function markdown(s: Summary): string {
  const rows = s.requirements.map((r) => {
    const checks =
      r.checks
        .map((c) => `${cell(`${c.file}: ${c.title}`)} (${c.status}${c.reason ? `: ${literal(c.reason)}` : ""})`)
        .join("<br>") || "—";
    return `| ${ICON[r.verdict]} ${r.verdict} | ${cell(r.row)} | ${r.kind} | ${cell(r.text)} (${cell(r.section)}) | ${checks} |`;
  });
  return [
    "# Conformance: requirements matrix",
    "",
    `**${cell(headline(s))}**`,
    "",
    `Target: ${literal(s.target)} · kinds: ${s.kinds.join(", ")} · started ${s.startedAt}${s.strict ? " · strict" : ""}`,
    "",
    ...(s.failures.length
      ? [
          "## Failures",
          "",
          "| requirement | check | error |",
          "|---|---|---|",
          ...s.failures.map((f) => `| ${cell(f.row)} | ${cell(f.check)} | ${literal(f.error.slice(0, 300))} |`),
          "",
        ]
      : []),
    `${counts(s)}.`,
    "",
    `Requests: ${countsText(s.requests)}.`,
    "",
    ...(s.sinceBaseline ? ["## Since the baseline", "", ...baselineLines(s.sinceBaseline).map(cell), ""] : []),
    "## Every requirement",
    "",
    "| result | requirement | kind | rule (section) | checks |",
    "|---|---|---|---|---|",
    ...rows,
    "",
    ...(s.coverage ? ["## Contract coverage", "", coverageMarkdown(s.coverage)] : []),
  ].join("\n");
}

const COLOR: Record<Verdict, string> = {
  passed: "#e6f4ea",
  failed: "#fce8e6",
  uncovered: "#fce8e6",
  "unexpected pass": "#fce8e6",
  "not verified": "#fef7e0",
  "not checked": "#f3e8fd",
  "not run (read-only)": "#e8eaed",
  "expected failure": "#eef3fd",
  "not applicable": "#f1f3f4",
  "not selected": "#f1f3f4",
};
const report = (testId: string | undefined) =>
  testId ? ` <a href="html/index.html#?testId=${encodeURIComponent(testId)}">report and trace</a>` : "";

/**
 * The matrix for a person: the verdict and its failures first, each linked to its row and to
 * Playwright's report; then every row, the result column first, in a table that fits a 1280 px
 * window (fixed layout, long texts wrap).
 */
export function html(s: Summary): string {
  const rows = s.requirements
    .map((r) => {
      const checks =
        r.checks
          .map(
            (c) =>
              `<li><code>${esc(c.file)}</code> ${esc(c.title)} — <b>${esc(c.status)}</b>${c.reason ? `: ${esc(c.reason)}` : ""}${c.status === "failed" || c.status === "timedOut" ? report(c.testId) : ""}</li>`,
          )
          .join("") || "<li>no check</li>";
      return `<tr id="${anchor(r.row)}" class="verdict-${r.verdict.replace(/[^a-z]+/g, "-")}" style="background:${COLOR[r.verdict]}"><td class="result">${ICON[r.verdict]} ${esc(r.verdict)}</td><td><code>${esc(r.id)}</code>${r.subject ? `<br><span class="subject">· ${esc(r.subject)}</span>` : ""}<br><span class="kind">${esc(r.kind)}</span></td><td>${esc(r.text)}<br><span class="section">${esc(r.section)}</span></td><td><ul>${checks}</ul></td></tr>`;
    })
    .join("\n");
  const failures = s.failures.length
    ? `<section id="failures"><h2>Failures (${s.failures.length})</h2><ol>${s.failures
        .map(
          (f) =>
            `<li><a href="#${anchor(f.row)}"><code>${esc(f.row)}</code></a> — ${esc(f.check)}: <span class="error">${esc(f.error.slice(0, 400))}</span>${report(f.testId)}</li>`,
        )
        .join("")}</ol></section>`
    : "";
  const { each, leftByTheTarget } = unsettledApart(s);
  const notVerified =
    each.length + leftByTheTarget > 0
      ? `<section id="not-verified"><h2>${UNSETTLED_HEADING} (${each.length + leftByTheTarget})</h2><ul>${each
          .map((r) => `<li><a href="#${anchor(r.row)}"><code>${esc(r.row)}</code></a>: ${esc(whyOf(r))}</li>`)
          .join(
            "",
          )}${leftByTheTarget > 0 ? `<li>${leftByTheTarget} ${LEFT_BY_THE_TARGET} (the verdict says when and why; each row in the table below)</li>` : ""}</ul></section>`
      : "";
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Conformance matrix: ${esc(s.verdict)}</title>
<style>
body{font-family:system-ui,sans-serif;margin:1.5rem;max-width:100%;box-sizing:border-box;overflow-wrap:anywhere}
h1{font-size:1.4rem}h2{font-size:1.1rem}
.verdict{font-size:1.15rem;padding:.6rem .8rem;border-radius:4px}
.verdict.failed{background:#fce8e6;border:1px solid #e0a0a0}.verdict.passed{background:#e6f4ea;border:1px solid #9ccca8}
table{border-collapse:collapse;width:100%;table-layout:fixed}
td,th{border:1px solid #ccc;padding:.35rem;vertical-align:top;font-size:.85rem;text-align:left}
col.result{width:9rem}col.requirement{width:14rem}col.rule{width:34%}
ul,ol{margin:0;padding-left:1.1rem}code{overflow-wrap:anywhere}
.subject,.kind,.section{color:#5b6475;font-size:.8rem}.error{font-family:ui-monospace,monospace;font-size:.8rem}
#failures li{margin:.25rem 0}
table.coverage col.operation{width:34%}table.coverage col.count{width:6rem}table.coverage col.statuses{width:14rem}
tr.coverage-never{background:#fce8e6}tr.coverage-partly{background:#fef7e0}tr.coverage-whole{background:#e6f4ea}
#since-baseline li.newly{color:#a50e0e}#since-baseline li.fixed{color:#137333}
</style></head>
<body><h1>Conformance: requirements matrix</h1>
<p class="verdict ${esc(s.verdict)}"><b>${esc(headline(s))}</b></p>
${failures}
${notVerified}
<p>Target <code>${esc(s.target)}</code>, kinds ${esc(s.kinds.join(", "))}, started ${esc(s.startedAt)}${s.strict ? ", strict" : ""}.
${esc(counts(s))}.
Requests: ${esc(countsText(s.requests))}.
Details of every check: <a href="html/index.html">Playwright report</a>.</p>
${s.sinceBaseline ? baselineHtml(s.sinceBaseline) : ""}
<h2>Every requirement</h2>
<table><colgroup><col class="result"><col class="requirement"><col class="rule"><col class="checks"></colgroup>
<thead><tr><th>result</th><th>requirement</th><th>rule (section)</th><th>checks</th></tr></thead><tbody>
${rows}
</tbody></table>
${s.coverage ? coverageHtml(s.coverage) : ""}</body></html>
`;
}

/** This run against its baseline: what newly fails first. */
function baselineHtml(b: SinceBaseline): string {
  const rows = (title: string, list: string[], cls: string) =>
    `<li class="${cls}"><b>${esc(title)} (${list.length})</b>${list.length ? `: ${list.map((r) => `<a href="#${anchor(r)}"><code>${esc(r)}</code></a>`).join(", ")}` : ""}</li>`;
  return `<section id="since-baseline"><h2>Since the baseline</h2><p>Compared with <code>${esc(b.file)}</code> (run of ${esc(b.startedAt || "unknown date")}).</p><ul>${rows("newly failing", b.newlyFailing, "newly")}${rows("fixed", b.fixed, "fixed")}${rows("still failing", b.stillFailing, "still")}</ul></section>`;
}

/** What of the contract the run exercised: an operation never exercised first, then by what it lacks. */
function coverageHtml(c: CoverageReport): string {
  const t = c.totals;
  const names = (list: string[]) => list.map((n) => `<code>${esc(n)}</code>`).join(", ");
  const rows = c.operations
    .map((o) => {
      const missing = PARTS.filter((p) => o.missing[p].length > 0)
        .map((p) => `<li>${esc(PART_NAMES[p])}: ${names(o.missing[p])}</li>`)
        .join("");
      const statuses = [...o.seen.statuses, ...o.undeclaredStatuses.map((st) => `${st} (not declared)`)];
      const state = o.exchanges === 0 ? "never" : missing ? "partly" : "whole";
      return `<tr class="coverage-${state}"><td><code>${esc(o.method)} ${esc(o.path)}</code></td><td>${o.exchanges}</td><td>${names(statuses) || "—"}</td><td>${o.exchanges === 0 ? "<b>never exercised</b>" : missing ? `<ul>${missing}</ul>` : "everything declared"}</td></tr>`;
    })
    .join("\n");
  return `<section id="coverage"><h2>Contract coverage</h2>
<p>Operations exercised: <b>${t.operations.seen} of ${t.operations.declared}</b>; ${PARTS.map((p) => `${esc(PART_NAMES[p])} ${t[p].seen} of ${t[p].declared}`).join("; ")}.</p>
<table class="coverage"><colgroup><col class="operation"><col class="count"><col class="statuses"><col class="missing"></colgroup>
<thead><tr><th>operation</th><th>exchanges</th><th>statuses seen</th><th>not exercised</th></tr></thead><tbody>
${rows}
</tbody></table></section>`;
}
