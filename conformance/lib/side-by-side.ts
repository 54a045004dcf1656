// A run against several targets (`--target test=<url> --target prod=<url>`),
// side by side: every requirement row with each target's verdict, the rows
// whose verdicts differ first, and for each check the differences between the
// answers the targets gave to the same requests (answer-shape.ts: statuses,
// media types, fields, types, formats and the values every environment shares;
// never ids, tokens, names or the values of dates). The first target is the one
// the others are compared with.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type AnswerDifference, type AnswerShape, compareShapes } from "../../src/rules/answer-shape.ts";
import { cell, esc } from "./markup.ts";

/** What the comparison reads of each target's run. */
export interface ComparedTarget {
  name: string;
  target: string;
  verdict: string;
  requirements: ReadonlyArray<{ row: string; verdict: string; checks: ReadonlyArray<{ title: string; file: string }> }>;
  /** The shapes of each check's answers, by check (`file › title`). */
  answers: ReadonlyMap<string, AnswerShape[]>;
}

export interface RowSideBySide {
  row: string;
  verdicts: Record<string, string>;
  differs: boolean;
}

export interface CheckDifferences {
  check: string;
  /** The other target, compared with the first. */
  against: string;
  differences: AnswerDifference[];
}

export interface SideBySide {
  targets: Array<{ name: string; target: string; verdict: string }>;
  rows: RowSideBySide[];
  checks: CheckDifferences[];
}

export const checkKey = (file: string, title: string) => `${file} › ${title}`;

/** The targets' rows and answers, compared. */
export function sideBySide(targets: readonly ComparedTarget[]): SideBySide {
  const order: string[] = [];
  const verdicts = new Map<string, Record<string, string>>();
  for (const t of targets) {
    for (const r of t.requirements) {
      if (!verdicts.has(r.row)) {
        verdicts.set(r.row, {});
        order.push(r.row);
      }
      verdicts.get(r.row)![t.name] = r.verdict;
    }
  }
  const rows = order.map((row) => {
    const v = verdicts.get(row)!;
    const all = targets.map((t) => v[t.name] ?? "not run");
    return {
      row,
      verdicts: Object.fromEntries(targets.map((t, i) => [t.name, all[i]!])),
      differs: new Set(all).size > 1,
    };
  });
  const [first, ...others] = targets;
  const checks: CheckDifferences[] = [];
  for (const other of others) {
    for (const check of new Set([...(first?.answers.keys() ?? []), ...other.answers.keys()])) {
      const differences = compareShapes(first?.answers.get(check) ?? [], other.answers.get(check) ?? []);
      if (differences.length > 0) checks.push({ check, against: other.name, differences });
    }
  }
  return {
    targets: targets.map((t) => ({ name: t.name, target: t.target, verdict: t.verdict })),
    rows: [...rows.filter((r) => r.differs), ...rows.filter((r) => !r.differs)],
    checks,
  };
}

/** The checks behind a row that differs, with their answer differences. */
function behind(s: SideBySide, targets: readonly ComparedTarget[], row: string): CheckDifferences[] {
  const keys = new Set(
    targets.flatMap((t) =>
      t.requirements.filter((r) => r.row === row).flatMap((r) => r.checks.map((c) => checkKey(c.file, c.title))),
    ),
  );
  return s.checks.filter((c) => keys.has(c.check));
}

const diffText = (d: AnswerDifference, a: string, b: string) =>
  `${d.request}${d.nth > 1 ? ` (#${d.nth})` : ""}: ${d.what}: ${a} ${d.a}, ${b} ${d.b}`;

/** The comparison in a few lines for a terminal. */
export function sideBySideLines(s: SideBySide, targets: readonly ComparedTarget[]): string[] {
  const names = s.targets.map((t) => t.name);
  const differing = s.rows.filter((r) => r.differs);
  const lines = [
    `Side by side (${names.join(", ")}): ${differing.length} of ${s.rows.length} requirement rows differ; answers differ in ${s.checks.length} checks.`,
  ];
  for (const r of differing.slice(0, 20)) {
    lines.push(`  ≠ ${r.row}: ${names.map((n) => `${n} ${r.verdicts[n]}`).join(", ")}`);
    for (const c of behind(s, targets, r.row).slice(0, 3))
      for (const d of c.differences.slice(0, 3)) lines.push(`      ${diffText(d, names[0]!, c.against)}`);
  }
  return lines;
}

/** Writes comparison.json, comparison.md and comparison.html into `dir`; returns the HTML's path. */
export function writeSideBySide(dir: string, s: SideBySide, targets: readonly ComparedTarget[]): string {
  writeFileSync(join(dir, "comparison.json"), `${JSON.stringify(s, null, 2)}\n`);
  const names = s.targets.map((t) => t.name);
  const [first] = names;
  const md = [
    "# Conformance: targets side by side",
    "",
    ...s.targets.map(
      (t) => `- **${cell(t.name)}**: ${cell(t.target)}, verdict ${t.verdict} (targets/${cell(t.name)}/matrix.html)`,
    ),
    "",
    `| requirement | ${names.map(cell).join(" | ")} |`,
    `|---|${names.map(() => "---").join("|")}|`,
    ...s.rows.map((r) => `| ${r.differs ? "≠ " : ""}${cell(r.row)} | ${names.map((n) => r.verdicts[n]).join(" | ")} |`),
    "",
    "## Answers that differ",
    "",
    ...(s.checks.length === 0
      ? ["The targets answered every request of every check alike (ids, tokens, names and dates aside)."]
      : s.checks.flatMap((c) => [
          `### ${cell(c.check)} (${cell(first!)} against ${cell(c.against)})`,
          "",
          ...c.differences.map((d) => `- ${cell(diffText(d, first!, c.against))}`),
          "",
        ])),
    "",
  ].join("\n");
  writeFileSync(join(dir, "comparison.md"), md);
  const head = names.map((n) => `<th>${esc(n)}</th>`).join("");
  const rows = s.rows
    .map((r) => {
      const diffs = r.differs
        ? behind(s, targets, r.row)
            .flatMap((c) => c.differences.map((d) => `<li>${esc(diffText(d, first!, c.against))}</li>`))
            .slice(0, 12)
            .join("")
        : "";
      return `<tr class="${r.differs ? "differs" : "same"}"><td><code>${esc(r.row)}</code>${diffs ? `<ul>${diffs}</ul>` : ""}</td>${names.map((n) => `<td class="v-${esc(String(r.verdicts[n]).replace(/[^a-z]+/g, "-"))}">${esc(r.verdicts[n] ?? "")}</td>`).join("")}</tr>`;
    })
    .join("\n");
  const checks = s.checks
    .map(
      (c) =>
        `<li><b>${esc(c.check)}</b> (${esc(first!)} against ${esc(c.against)})<ul>${c.differences.map((d) => `<li>${esc(diffText(d, first!, c.against))}</li>`).join("")}</ul></li>`,
    )
    .join("");
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Conformance: targets side by side</title>
<style>
body{font-family:system-ui,sans-serif;margin:1.5rem;overflow-wrap:anywhere}h1{font-size:1.4rem}h2{font-size:1.1rem}
table{border-collapse:collapse;width:100%;table-layout:fixed}td,th{border:1px solid #ccc;padding:.35rem;vertical-align:top;font-size:.85rem;text-align:left}
tr.differs{background:#fef7e0}td.v-failed,td.v-uncovered,td.v-unexpected-pass{background:#fce8e6}td.v-passed{background:#e6f4ea}
ul{margin:.2rem 0;padding-left:1.1rem}
</style></head><body><h1>Conformance: targets side by side</h1>
<ul>${s.targets.map((t) => `<li><b>${esc(t.name)}</b>: <code>${esc(t.target)}</code>, verdict <b>${esc(t.verdict)}</b> (<a href="targets/${encodeURIComponent(t.name)}/matrix.html">matrix</a>)</li>`).join("")}</ul>
<p>${s.rows.filter((r) => r.differs).length} of ${s.rows.length} requirement rows differ (first, with the answer differences behind them); answers differ in ${s.checks.length} checks. Ids, tokens, names and the values of dates are each environment's own and are not compared.</p>
<table><colgroup><col style="width:${names.length > 3 ? 40 : 55}%">${names.map(() => "<col>").join("")}</colgroup><thead><tr><th>requirement</th>${head}</tr></thead><tbody>
${rows}
</tbody></table>
<h2>Answers that differ, by check</h2>
${checks ? `<ul>${checks}</ul>` : "<p>The targets answered every request of every check alike.</p>"}
</body></html>
`;
  const file = join(dir, "comparison.html");
  writeFileSync(file, html);
  return file;
}
