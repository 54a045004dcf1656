// What a target answers ends up in the matrix (a failure quotes it): it must be shown as text,
// never rendered as markup, in matrix.md (as GitHub and GitLab render Markdown) and matrix.html.
import { marked } from "marked";
import { describe, expect, it } from "vitest";
import { appendObserved, html, type MatrixRow, markdown, type Summary } from "./matrix-reporter.ts";

const HOSTILE =
  '<img src=x onerror=alert(1)> [click](javascript:alert(1)) **bold** `code` | two\n# heading <script>alert(2)</script> &lt;b&gt; ![p](http://t.example/p.png) ~~gone~~ <a href="http://t.example">x</a>';

function summaryQuoting(text: string): Summary {
  const row: MatrixRow = {
    id: "OAUTH-TOKEN-ERRORS",
    kind: "oauth",
    file: "token-endpoint.spec.ts",
    section: "Errors",
    text: "token errors use the codes of RFC 6749 5.2",
    row: "OAUTH-TOKEN-ERRORS",
    verdict: "failed",
    checks: [{ title: "token errors use the codes", file: "token-endpoint.spec.ts", status: "failed", reason: text }],
  };
  const totals = { failed: 1 } as Summary["totals"];
  return {
    target: `http://127.0.0.1:1/<i>target</i>`,
    kinds: ["oauth"],
    startedAt: "2026-11-24T00:00:00.000Z",
    verdict: "failed",
    interrupted: false,
    because: ["1 requirement failed"],
    strict: false,
    totals,
    requests: { requests: 1, retried: 0, refused: 0 },
    failures: [{ row: row.row, check: row.checks[0]!.title, file: row.file, error: text }],
    missingSettings: [],
    requirements: [row],
  };
}

describe("a target's text in the matrix", () => {
  const s = summaryQuoting(HOSTILE);

  it("matrix.md: rendered as GitHub renders it, the target's text is text: no element, no link, no cell of its own", async () => {
    const rendered = await marked.parse(markdown(s), { gfm: true });
    for (const element of ["<img", "<script", "<a ", "<em", "<del", "<i>"])
      expect(rendered, element).not.toContain(element);
    // Only the matrix's own markup: its title and its verdict in bold.
    expect(rendered.match(/<h1/g)).toHaveLength(1);
    expect(rendered.match(/<strong/g)).toHaveLength(1);
    // Each table row keeps its cells: the failures' three, the requirements' five.
    const cells = (table: string) =>
      [...table.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((m) => m[1]!.split("<td").length - 1);
    const [failures, requirements] = rendered.split("<table>").slice(1);
    expect(cells(failures!).filter((n) => n > 0)).toEqual([3]);
    expect(cells(requirements!).filter((n) => n > 0)).toEqual([5]);
    // And reads as it was sent (whitespace aside).
    const text = rendered
      .replace(/<[^>]+>/g, "")
      .replace(
        /&(lt|gt|quot|#39|amp);/g,
        (_m, e) => ({ lt: "<", gt: ">", quot: '"', "#39": "'", amp: "&" })[e as "lt"],
      );
    expect(text).toContain(HOSTILE.replace("\n", " "));
  });

  it("matrix.html: every text of the target is escaped", () => {
    const page = html(s);
    expect(page).not.toMatch(/<img|<script>alert|<a href="http:\/\/t\.example|<i>target/);
    expect(page).toContain("&lt;img src=x onerror=alert(1)&gt;");
  });
});

describe("rows failed by what the rule layer observed", () => {
  it("reach junit.xml as failures even though every check of theirs passed", async () => {
    const { mkdtempSync, readFileSync, writeFileSync } = await import("node:fs");
    const { join } = await import("node:path");
    const { tmpdir } = await import("node:os");
    const file = join(mkdtempSync(join(tmpdir(), "bawa-junit-")), "junit.xml");
    writeFileSync(file, '<testsuites tests="1" failures="0">\n<testsuite name="a"></testsuite>\n</testsuites>\n');
    const s = summaryQuoting("unused");
    const row = s.requirements[0]!;
    row.row = "TOK-EXPIRY";
    row.checks = [
      { title: "an access token is refused once 7200 s passed", file: "token-expiry.spec.ts", status: "passed" },
      {
        title: 'observed in "Customer: POST, GET, PUT"',
        file: "resources.spec.ts",
        status: "failed",
        reason: "observed: header Authorization: expected 401 once 7200 s have passed, found 200 <x>",
        observed: true,
      },
    ];
    const before = structuredClone(s);
    appendObserved(file, "target", s);
    const xml = readFileSync(file, "utf8");
    expect(xml).toContain('<testsuite name="rules judged on every exchange"');
    expect(xml).toContain('<testcase name="TOK-EXPIRY"');
    expect(xml).toContain('type="observed"');
    expect(xml).toContain("found 200 &lt;x&gt;");
    expect(xml.trimEnd().endsWith("</testsuites>")).toBe(true);
    // A row whose own check failed is in JUnit already, through that check.
    before.requirements[0]!.checks[0]!.status = "failed";
    writeFileSync(file, "<testsuites>\n</testsuites>\n");
    appendObserved(file, "target", before);
    expect(readFileSync(file, "utf8")).not.toContain("rules judged on every exchange");
  });
});
