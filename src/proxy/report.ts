// The violations the proxy saw, grouped by requirement as the suite's matrix
// groups its checks: `--report <dir>` writes violations.md and violations.json
// when the proxy stops. What it keeps passes the proxy's redaction (no secret
// of a query or fragment), and what a target sent is written into the Markdown
// as text, never as markup.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Coverage, coverageMarkdown, coverageReport, declaredOperations } from "../rules/coverage.ts";
import type { Exchange, Violation } from "../rules/exchange.ts";
import { REQUIREMENTS } from "../rules/generated/requirements.ts";
import type { Place } from "../rules/places.ts";
import { redact, redactViolation } from "../rules/redact.ts";

/** How many examples of one requirement's violations are kept. */
const EXAMPLES = 20;

export interface ReportRow {
  id: string;
  kind: string;
  section: string;
  text: string;
  /** Answers that broke it. */
  count: number;
  /** Violations of it (an answer may break it in two places). */
  violations: number;
  examples: Array<{ time: string; method: string; path: string; status: number } & Violation>;
}

export class ViolationReport {
  readonly #rows = new Map<string, ReportRow>();
  exchanges = 0;
  violated = 0;
  readonly startedAt = new Date();
  /** What of the contract the traffic exercised, when the report is to say so (`--report`). */
  readonly #coverage: { doc: object; seen: Coverage } | undefined;

  /** `contractDoc`: count what of this contract the traffic exercised (coverage.ts). */
  constructor(options: { contractDoc?: object } = {}) {
    this.#coverage = options.contractDoc ? { doc: options.contractDoc, seen: new Coverage() } : undefined;
  }

  add(ex: Exchange, violations: readonly Violation[], place?: Place): void {
    this.exchanges++;
    if (place) this.#coverage?.seen.add(place, ex);
    if (violations.length === 0) return;
    this.violated++;
    const counted = new Set<string>();
    for (const v of violations) {
      const r = REQUIREMENTS[v.requirement];
      const row = this.#rows.get(v.requirement) ?? {
        id: v.requirement,
        kind: r?.kind ?? "unknown",
        section: r?.section ?? "",
        text: r?.text ?? "",
        count: 0,
        violations: 0,
        examples: [],
      };
      // An answer that broke a rule twice (two dates) counts once.
      if (!counted.has(v.requirement)) row.count++;
      counted.add(v.requirement);
      row.violations++;
      if (row.examples.length < EXAMPLES) {
        row.examples.push({
          time: new Date(ex.at).toISOString(),
          method: ex.method,
          path: redact(ex.url.split("?")[0]!.slice(0, 200)),
          status: ex.status,
          ...redactViolation(v),
        });
      }
      this.#rows.set(v.requirement, row);
    }
  }

  /** The requirements broken, in the order of conformance/requirements.yaml. */
  rows(): ReportRow[] {
    const order = Object.keys(REQUIREMENTS);
    return [...this.#rows.values()].sort((a, b) => order.indexOf(a.id) - order.indexOf(b.id));
  }

  write(dir: string, about: { target: string }): string[] {
    mkdirSync(dir, { recursive: true });
    const rows = this.rows();
    const summary = {
      target: about.target,
      startedAt: this.startedAt.toISOString(),
      endedAt: new Date().toISOString(),
      exchanges: this.exchanges,
      violatedExchanges: this.violated,
      verdict: rows.length === 0 ? "no violations" : "violations",
      requirements: rows,
    };
    const json = join(dir, "violations.json");
    const markdown = join(dir, "violations.md");
    writeFileSync(json, `${JSON.stringify(summary, null, 2)}\n`);
    const lines = [
      "# bawa proxy: violations",
      "",
      `Target ${about.target}, ${summary.startedAt} to ${summary.endedAt}: ${this.exchanges} exchanges, ${this.violated} of them broke a rule.`,
      "",
      "| requirement | kind | section | rule | answers that broke it |",
      "|---|---|---|---|---|",
      ...rows.map((r) => `| ${md(r.id)} | ${md(r.kind)} | ${md(r.section)} | ${md(r.text)} | ${r.count} |`),
      "",
      ...rows.flatMap((r) => [
        `## ${md(r.id)}`,
        "",
        md(r.text),
        "",
        ...r.examples.map(
          (e) =>
            `- ${e.time} ${md(`${e.method} ${e.path}`)} → ${e.status}: ${md(e.where)}: expected ${md(e.expected)}${e.found === undefined ? "" : `, found ${md(e.found)}`}`,
        ),
        ...(r.violations > r.examples.length ? [`- ... ${r.violations - r.examples.length} more`] : []),
        "",
      ]),
    ];
    if (this.#coverage) {
      const coverage = coverageReport(declaredOperations(this.#coverage.doc), this.#coverage.seen.take());
      writeFileSync(join(dir, "coverage.json"), `${JSON.stringify(coverage, null, 2)}\n`);
      lines.push("## Contract coverage of the traffic", "", coverageMarkdown(coverage));
    }
    writeFileSync(markdown, `${lines.join("\n")}\n`);
    return [markdown, json];
  }
}

/**
 * Text as Markdown shows it, on one line of a table or a list: every character Markdown or the HTML
 * in it could read as markup is escaped (CommonMark's backslash escapes, `&` as an entity).
 */
function md(text: string): string {
  return text
    .replace(/[\\`*_[\]<>|~]/g, "\\$&")
    .replaceAll("&", "&amp;")
    .replace(/[\r\n]+/g, " ");
}
