// Writes the requirements matrix (Markdown and HTML) and a JSON summary, prints
// a verdict per requirement, and fails the run when a selected requirement has
// no check: a gap in the suite must never look like a pass.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { FullConfig, FullResult, Reporter, Suite, TestCase, TestResult } from "@playwright/test/reporter";
import { parse } from "yaml";
import type { Kind } from "./config.ts";
import { countsText, parseCounts, REQUESTS_ANNOTATION, type RequestCounts } from "./http.ts";
import { NOT_CHECKED, READ_ONLY, type Requirement, requirements, requirementTag } from "./requirements.ts";

const VERDICTS = [
  "passed",
  "failed",
  "not checked",
  "skipped",
  "uncovered",
  "not selected",
  "not run (read-only)",
  "expected failure",
  "unexpected pass",
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
}

export interface MatrixRow extends Requirement {
  verdict: Verdict;
  checks: CheckOutcome[];
}

export interface Summary {
  target: string;
  kinds: Kind[];
  startedAt: string;
  verdict: "passed" | "failed";
  totals: Record<Verdict, number>;
  /** Requests the checks sent to the target, and how many of them met 429/503. */
  requests: RequestCounts;
  requirements: MatrixRow[];
}

/** The tests of one project (one target) by requirement tag, and how its matrix is judged. */
interface ProjectRun {
  name: string;
  target: string;
  kinds: Kind[];
  filtered: boolean;
  tests: Map<string, TestCase[]>;
  /** Checks of the project not yet ended (progress of runs over many targets). */
  remaining: number;
  requests: RequestCounts;
}

export default class MatrixReporter implements Reporter {
  #outputDir: string;
  #projects: ProjectRun[] = [];
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
      const meta = (project?.metadata ?? {}) as { kinds?: Kind[]; filtered?: boolean; target?: string };
      const settings = (project?.use as { targetSettings?: Record<string, string> } | undefined)?.targetSettings ?? {};
      // A merge of shards (bawa conformance merge) brings one suite per shard for the same target.
      const name = project?.name ?? "target";
      const known = this.#projects.find((p) => p.name === name);
      const run: ProjectRun = known ?? {
        name,
        target: meta.target ?? settings.CONFORMANCE_BASE_URL ?? process.env.CONFORMANCE_BASE_URL ?? "(not set)",
        kinds:
          meta.kinds ?? ((process.env.CONFORMANCE_KINDS ?? "spec,oauth").split(",").map((k) => k.trim()) as Kind[]),
        filtered: meta.filtered ?? false,
        tests: new Map(),
        remaining: projectSuite.allTests().length,
        requests: { requests: 0, retried: 0, refused: 0 },
      };
      if (known) known.remaining += projectSuite.allTests().length;
      for (const test of projectSuite.allTests()) {
        for (const tag of test.tags) run.tests.set(tag, [...(run.tests.get(tag) ?? []), test]);
      }
      if (!known) this.#projects.push(run);
    }
    if (this.#projects.length === 0) {
      this.#projects.push({
        name: "target",
        target: "(not set)",
        kinds: [],
        filtered: false,
        tests: new Map(),
        remaining: 0,
        requests: { requests: 0, retried: 0, refused: 0 },
      });
    }
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
    });
    const run = this.#projects.find((p) => p.name === test.parent.project()?.name);
    // This attempt's own counts: a check retried by Playwright sent its requests again.
    const ofAttempt = (result.annotations ?? []).length ? result.annotations : test.annotations;
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
        ...new Set(failed.flatMap((t) => t.tags.filter((g) => !g.startsWith("@kind:")).map((g) => g.slice(1)))),
      ];
      const elapsed = ((Date.now() - this.#startedAt.getTime()) / 1000).toFixed(0);
      console.log(
        `[${this.#done}/${this.#projects.length}] ${run.name}: ${ids.length ? `failed ${ids.join(", ")}` : "nothing failed"} (${elapsed} s)`,
      );
    }
  }

  #done = 0;

  async onEnd(result: FullResult): Promise<{ status?: FullResult["status"] } | undefined> {
    // A run narrowed with --grep checks coverage only of what it selected.
    // A shard judges only what it ran; the merge of the shards judges the whole.
    const filtered = process.env.CONFORMANCE_FILTERED === "1" || process.env.CONFORMANCE_SHARD !== undefined;
    const profile = process.env.CONFORMANCE_PROFILE
      ? (parse(readFileSync(process.env.CONFORMANCE_PROFILE, "utf8")) as Profile)
      : undefined;
    // A run of listed targets (CONFORMANCE_TARGETS) writes each under targets/<name>, even one.
    const several = this.#projects.length > 1 || process.env.CONFORMANCE_TARGETS !== undefined;
    let anyFailed = false;
    for (const run of this.#projects) {
      const summary = summarize(run, this.#outcomes, {
        filtered: filtered || run.filtered,
        profile,
        result,
        startedAt: this.#startedAt,
      });
      anyFailed ||= summary.verdict === "failed";
      const dir = several ? join(this.#outputDir, "targets", run.name) : this.#outputDir;
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, "summary.json"), `${JSON.stringify(summary, null, 2)}\n`);
      writeFileSync(join(dir, "matrix.md"), markdown(summary));
      writeFileSync(join(dir, "matrix.html"), html(summary));
      if (!this.#quiet) console.log(terminal(summary, dir));
    }
    if (profile) return { status: anyFailed ? "failed" : "passed" };
    return anyFailed && result.status === "passed" ? { status: "failed" } : undefined;
  }
}

/** The requirements matrix of one target. */
function summarize(
  run: ProjectRun,
  outcomes: Map<TestCase, CheckOutcome>,
  opts: { filtered: boolean; profile: Profile | undefined; result: FullResult; startedAt: Date },
): Summary {
  const { profile } = opts;
  const rows: MatrixRow[] = [...requirements().values()].map((r) => {
    const tests = run.tests.get(requirementTag(r.id)) ?? [];
    const checks = tests.map(
      (t) =>
        outcomes.get(t) ?? { title: t.title, file: t.location.file.split(/[\\/]/).pop()!, status: "not run" as const },
    );
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
    return { ...r, checks, verdict };
  });
  const totals = Object.fromEntries(VERDICTS.map((v) => [v, 0])) as Record<Verdict, number>;
  for (const row of rows) totals[row.verdict]++;
  const broken = opts.result.status === "interrupted" || opts.result.status === "timedout";
  const failed = broken || totals.failed > 0 || totals.uncovered > 0 || totals["unexpected pass"] > 0;
  return {
    target: run.target,
    kinds: run.kinds,
    startedAt: opts.startedAt.toISOString(),
    verdict: failed ? "failed" : "passed",
    totals,
    requests: run.requests,
    requirements: rows,
  };
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
  // A read-only run did not run every check of it: what ran can not vouch for the whole requirement.
  if (checks.some((c) => c.reason?.startsWith(READ_ONLY))) return "not run (read-only)";
  if (checks.some((c) => c.status === "passed")) return "passed";
  // Skipped because another requirement's finding makes the check meaningless (names, dates).
  if (checks.some((c) => c.reason?.startsWith(NOT_CHECKED))) return "not checked";
  return "skipped";
}

const ESC = String.fromCharCode(27);
const stripAnsi = (s: string) => s.replaceAll(new RegExp(`${ESC}\\[[0-9;]*m`, "g"), "");
const ICON: Record<Verdict, string> = {
  passed: "✔",
  failed: "✘",
  "not checked": "◌",
  skipped: "–",
  uncovered: "✘",
  "not selected": "·",
  "not run (read-only)": "○",
  "expected failure": "○",
  "unexpected pass": "✘",
};

function terminal(s: Summary, dir: string): string {
  const lines = [
    "",
    `Requirements (${s.kinds.join(", ")}) against ${s.target}:`,
    `  ${counts(s)}`,
    `  requests: ${countsText(s.requests)}`,
  ];
  if (s.totals["expected failure"] + s.totals["unexpected pass"] > 0) {
    lines.push(
      `  profile: ${s.totals["expected failure"]} expected failures, ${s.totals["unexpected pass"]} unexpected passes (update the profile when a limitation is gone)`,
    );
  }
  for (const r of s.requirements.filter(
    (r) =>
      r.verdict === "failed" ||
      r.verdict === "uncovered" ||
      r.verdict === "skipped" ||
      r.verdict === "not checked" ||
      r.verdict === "unexpected pass",
  )) {
    const why =
      r.verdict === "uncovered"
        ? uncoveredHint(r)
        : r.verdict === "unexpected pass"
          ? "listed as an expected failure in the profile, but passed"
          : (r.checks.find((c) => c.reason)?.reason ??
            (r.checks.some((c) => c.status === "not run") ? "the run stopped before its checks ran" : ""));
    lines.push(`  ${ICON[r.verdict]} ${r.id} [${r.kind}] ${r.verdict}: ${why}`);
  }
  lines.push(
    `Verdict: ${s.verdict.toUpperCase()}. Matrix: ${join(dir, "matrix.html")} and matrix.md; summary.json; HTML report and JUnit XML beside them.`,
  );
  return lines.join("\n");
}

/** The totals of a matrix in words, leaving out verdicts nobody got. */
const counts = (s: Summary) =>
  VERDICTS.filter((v) => s.totals[v] > 0 || v === "passed" || v === "failed")
    .map((v) => `${s.totals[v]} ${v}`)
    .join(", ");

/** Where the check of an uncovered requirement goes, as requirements.yaml says (oauth4webapi's unhandled.ts). */
const uncoveredHint = (r: Requirement) =>
  `no check covers this requirement; add one with covers("${r.id}") to conformance/checks/${r.file}`;

const cell = (s: string) => s.replace(/\|/g, "\\|").replace(/\n/g, " ");

function markdown(s: Summary): string {
  const rows = s.requirements.map((r) => {
    const checks =
      r.checks.map((c) => `${c.file}: ${c.title} (${c.status}${c.reason ? `: ${c.reason}` : ""})`).join("<br>") || "—";
    return `| ${r.id} | ${r.kind} | ${cell(r.section)} | ${cell(r.text)} | ${cell(checks)} | ${ICON[r.verdict]} ${r.verdict} |`;
  });
  return [
    "# Conformance: requirements matrix",
    "",
    `Target: ${s.target} · kinds: ${s.kinds.join(", ")} · started ${s.startedAt} · verdict **${s.verdict}**`,
    "",
    `${counts(s)}.`,
    "",
    `Requests: ${countsText(s.requests)}.`,
    "",
    "| requirement | kind | section | rule | checks | result |",
    "|---|---|---|---|---|---|",
    ...rows,
    "",
  ].join("\n");
}

const esc = (s: string) => s.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]!);
const COLOR: Record<Verdict, string> = {
  passed: "#e6f4ea",
  failed: "#fce8e6",
  "not checked": "#f3e8fd",
  skipped: "#fef7e0",
  uncovered: "#fce8e6",
  "not selected": "#f1f3f4",
  "not run (read-only)": "#e8eaed",
  "expected failure": "#eef3fd",
  "unexpected pass": "#fce8e6",
};

function html(s: Summary): string {
  const rows = s.requirements
    .map((r) => {
      const checks =
        r.checks
          .map(
            (c) =>
              `<li><code>${esc(c.file)}</code> ${esc(c.title)} — <b>${esc(c.status)}</b>${c.reason ? `: ${esc(c.reason)}` : ""}</li>`,
          )
          .join("") || "<li>no check</li>";
      return `<tr style="background:${COLOR[r.verdict]}"><td><code>${esc(r.id)}</code></td><td>${esc(r.kind)}</td><td>${esc(r.section)}</td><td>${esc(r.text)}</td><td><ul>${checks}</ul></td><td>${ICON[r.verdict]} ${esc(r.verdict)}</td></tr>`;
    })
    .join("\n");
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Conformance matrix: ${esc(s.verdict)}</title>
<style>body{font-family:system-ui,sans-serif;margin:1.5rem}table{border-collapse:collapse;width:100%}td,th{border:1px solid #ccc;padding:.35rem;vertical-align:top;font-size:.9rem}ul{margin:0;padding-left:1rem}td:first-child,td:last-child{white-space:nowrap}</style></head>
<body><h1>Conformance: requirements matrix — ${esc(s.verdict)}</h1>
<p>Target <code>${esc(s.target)}</code>, kinds ${esc(s.kinds.join(", "))}, started ${esc(s.startedAt)}.
${counts(s)}.
Requests: ${esc(countsText(s.requests))}.
Details of every check: <a href="html/index.html">Playwright report</a>.</p>
<table><thead><tr><th>requirement</th><th>kind</th><th>section</th><th>rule</th><th>checks</th><th>result</th></tr></thead><tbody>
${rows}
</tbody></table></body></html>
`;
}
