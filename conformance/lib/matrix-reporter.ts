// Writes the requirements matrix (Markdown and HTML) and a JSON summary, prints
// a verdict per requirement, and fails the run when a selected requirement has
// no check: a gap in the suite must never look like a pass.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { FullConfig, FullResult, Reporter, Suite, TestCase, TestResult } from "@playwright/test/reporter";
import { parse } from "yaml";
import type { Kind } from "./config.ts";
import { type Requirement, requirements, requirementTag } from "./requirements.ts";

type Verdict = "passed" | "failed" | "skipped" | "uncovered" | "not selected" | "expected failure" | "unexpected pass";

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
  requirements: MatrixRow[];
}

export default class MatrixReporter implements Reporter {
  #outputDir: string;
  #tests = new Map<string, TestCase[]>();
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

  onBegin(_config: FullConfig, suite: Suite): void {
    for (const test of suite.allTests()) {
      for (const tag of test.tags) {
        const list = this.#tests.get(tag) ?? [];
        list.push(test);
        this.#tests.set(tag, list);
      }
    }
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
  }

  async onEnd(result: FullResult): Promise<{ status?: FullResult["status"] } | undefined> {
    const kinds = (process.env.CONFORMANCE_KINDS ?? "spec,oauth").split(",").map((k) => k.trim()) as Kind[];
    // A run narrowed with --grep checks coverage only of what it selected.
    const filtered = process.env.CONFORMANCE_FILTERED === "1";
    const profile = process.env.CONFORMANCE_PROFILE
      ? (parse(readFileSync(process.env.CONFORMANCE_PROFILE, "utf8")) as Profile)
      : undefined;
    const rows: MatrixRow[] = [...requirements().values()].map((r) => {
      const tests = this.#tests.get(requirementTag(r.id)) ?? [];
      const checks = tests.map(
        (t) =>
          this.#outcomes.get(t) ?? {
            title: t.title,
            file: t.location.file.split(/[\\/]/).pop()!,
            status: "not run" as const,
          },
      );
      let verdict = verdictOf(r, checks, kinds, filtered);
      const expected = profile?.expectedFailures[r.id];
      if (expected !== undefined) {
        if (verdict === "failed") verdict = "expected failure";
        else if (verdict === "passed") verdict = "unexpected pass";
        for (const c of checks)
          if (c.status !== "passed" && c.status !== "skipped")
            c.reason = `expected on ${profile!.name}: ${expected} (${c.reason ?? c.status})`;
      }
      return { ...r, checks, verdict };
    });
    const totals = {
      passed: 0,
      failed: 0,
      skipped: 0,
      uncovered: 0,
      "not selected": 0,
      "expected failure": 0,
      "unexpected pass": 0,
    } as Record<Verdict, number>;
    for (const row of rows) totals[row.verdict]++;
    // With a profile, Playwright's own status counts the expected failures; the matrix decides.
    const failed =
      (profile ? result.status === "interrupted" || result.status === "timedout" : result.status !== "passed") ||
      totals.failed > 0 ||
      totals.uncovered > 0 ||
      totals["unexpected pass"] > 0;
    const summary: Summary = {
      target: process.env.CONFORMANCE_BASE_URL ?? "(not set)",
      kinds,
      startedAt: this.#startedAt.toISOString(),
      verdict: failed ? "failed" : "passed",
      totals,
      requirements: rows,
    };
    mkdirSync(this.#outputDir, { recursive: true });
    writeFileSync(join(this.#outputDir, "summary.json"), `${JSON.stringify(summary, null, 2)}\n`);
    writeFileSync(join(this.#outputDir, "matrix.md"), markdown(summary));
    writeFileSync(join(this.#outputDir, "matrix.html"), html(summary));
    if (!this.#quiet) console.log(terminal(summary, this.#outputDir));
    if (profile) return { status: failed ? "failed" : "passed" };
    return failed && result.status === "passed" ? { status: "failed" } : undefined;
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
  if (checks.some((c) => c.status === "passed")) return "passed";
  return "skipped";
}

const ESC = String.fromCharCode(27);
const stripAnsi = (s: string) => s.replaceAll(new RegExp(`${ESC}\\[[0-9;]*m`, "g"), "");
const ICON: Record<Verdict, string> = {
  passed: "✔",
  failed: "✘",
  skipped: "–",
  uncovered: "✘",
  "not selected": "·",
  "expected failure": "○",
  "unexpected pass": "✘",
};

function terminal(s: Summary, dir: string): string {
  const lines = [
    "",
    `Requirements (${s.kinds.join(", ")}) against ${s.target}:`,
    `  ${s.totals.passed} passed, ${s.totals.failed} failed, ${s.totals.skipped} skipped, ${s.totals.uncovered} uncovered, ${s.totals["not selected"]} not selected`,
  ];
  if (s.totals["expected failure"] + s.totals["unexpected pass"] > 0) {
    lines.push(
      `  profile: ${s.totals["expected failure"]} expected failures, ${s.totals["unexpected pass"]} unexpected passes (update the profile when a limitation is gone)`,
    );
  }
  for (const r of s.requirements.filter(
    (r) =>
      r.verdict === "failed" || r.verdict === "uncovered" || r.verdict === "skipped" || r.verdict === "unexpected pass",
  )) {
    const why =
      r.verdict === "uncovered"
        ? "no check covers this requirement"
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
    `${s.totals.passed} passed, ${s.totals.failed} failed, ${s.totals.skipped} skipped, ${s.totals.uncovered} uncovered, ${s.totals["not selected"]} not selected.`,
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
  skipped: "#fef7e0",
  uncovered: "#fce8e6",
  "not selected": "#f1f3f4",
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
${s.totals.passed} passed, ${s.totals.failed} failed, ${s.totals.skipped} skipped, ${s.totals.uncovered} uncovered, ${s.totals["not selected"]} not selected.
Details of every check: <a href="html/index.html">Playwright report</a>.</p>
<table><thead><tr><th>requirement</th><th>kind</th><th>section</th><th>rule</th><th>checks</th><th>result</th></tr></thead><tbody>
${rows}
</tbody></table></body></html>
`;
}
