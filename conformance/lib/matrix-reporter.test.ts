// What a target answers ends up in the matrix (a failure quotes it): it must be shown as text,
// never rendered as markup, in matrix.md (as GitHub and GitLab render Markdown) and matrix.html.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FullConfig, FullResult, Suite, TestCase, TestResult } from "@playwright/test/reporter";
import { XMLParser } from "fast-xml-parser";
import { marked } from "marked";
import { describe, expect, it, onTestFinished } from "vitest";
import { takeForGone } from "./gone.ts";
import MatrixReporter, {
  completeJUnit,
  html,
  type MatrixRow,
  markdown,
  type Summary,
  terminal,
} from "./matrix-reporter.ts";
import { TARGET_DOWN } from "./requirements.ts";
import { RUN_DIR_VARIABLE } from "./secrets.ts";

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
    workers: 1,
    failures: [{ row: row.row, check: row.checks[0]!.title, file: row.file, error: text }],
    missingSettings: [],
    requirements: [row],
  };
}

/** A junit.xml holding `xml`, in a folder removed after the test. */
function junitFile(xml: string): string {
  const dir = mkdtempSync(join(tmpdir(), "bawa-junit-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, "junit.xml");
  writeFileSync(file, xml);
  return file;
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

  it("the terminal: a target's text can neither act on the terminal nor forge a line of the summary", () => {
    const forged = "  ✓ OAUTH-TOKEN-ERRORS: passed";
    const printed = terminal(summaryQuoting(`\u001b]0;OWNED\u0007\r\n${forged} \u202etxt.exe \u0085`), "out");
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for
    expect(printed).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
    expect(printed).toContain(`\\x1b]0;OWNED\\x07\\x0d\\x0a${forged} \\u202etxt.exe \\x85`);
    expect(printed.split("\n").filter((l) => l.startsWith(forged))).toEqual([]);
  });

  it("matrix.html: every text of the target is escaped", () => {
    const page = html(s);
    expect(page).not.toMatch(/<img|<script>alert|<a href="http:\/\/t\.example|<i>target/);
    expect(page).toContain("&lt;img src=x onerror=alert(1)&gt;");
  });
});

describe("rows failed by what the rule layer observed", () => {
  it("reach junit.xml as failures even though every check of theirs passed", () => {
    const file = junitFile('<testsuites tests="1" failures="0">\n<testsuite name="a"></testsuite>\n</testsuites>\n');
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
    completeJUnit(file, "target", s);
    const xml = readFileSync(file, "utf8");
    expect(xml).toContain('<testsuite name="rules judged on every exchange"');
    expect(xml).toContain('<testcase name="TOK-EXPIRY"');
    expect(xml).toContain('type="observed"');
    expect(xml).toContain("found 200 &lt;x&gt;");
    expect(xml.trimEnd().endsWith("</testsuites>")).toBe(true);
    // A row whose own check failed is in JUnit already, through that check.
    before.requirements[0]!.checks[0]!.status = "failed";
    writeFileSync(file, "<testsuites>\n</testsuites>\n");
    completeJUnit(file, "target", before);
    expect(readFileSync(file, "utf8")).not.toContain("rules judged on every exchange");
  });
});

describe("rows a known-results profile expects to fail", () => {
  it("reach junit.xml as failures when every check of theirs passed", () => {
    const file = junitFile(
      '<testsuites tests="1" failures="0">\n<testsuite name="a" tests="1" failures="0"></testsuite>\n</testsuites>\n',
    );
    const s = summaryQuoting("unused");
    const row = s.requirements[0]!;
    row.verdict = "unexpected pass";
    row.checks = [{ title: "token errors use the codes", file: "token-endpoint.spec.ts", status: "passed" }];
    completeJUnit(file, "target", s);
    const xml = readFileSync(file, "utf8");
    expect(xml).toContain('<testsuite name="the known-results profile"');
    expect(xml).toContain('<testcase name="OAUTH-TOKEN-ERRORS" classname="the known-results profile (target)"');
    expect(xml).toContain('type="unexpected pass"');
    expect(xml).toMatch(/<testsuites [^>]*failures="1"/);
    // A row the profile expects to fail that failed is no failure of the run.
    row.verdict = "expected failure";
    writeFileSync(file, "<testsuites>\n</testsuites>\n");
    completeJUnit(file, "target", s);
    expect(readFileSync(file, "utf8")).not.toContain("known-results profile");
  });
});

describe("junit.xml's top-level totals", () => {
  type Counts = Record<"tests" | "failures" | "errors" | "skipped" | "time", number>;
  const COUNTS = ["tests", "failures", "errors", "skipped", "time"] as const;
  /** The top level's totals and each suite's, as a tool that reads the file parses them. */
  function parsed(xml: string): { top: Counts; suites: Counts[] } {
    const doc = new XMLParser({
      ignoreAttributes: false,
      attributeNamePrefix: "",
      isArray: (n) => n === "testsuite",
    }).parse(xml) as { testsuites: Record<string, string> & { testsuite: Array<Record<string, string>> } };
    const counts = (o: Record<string, string>) => Object.fromEntries(COUNTS.map((a) => [a, Number(o[a])])) as Counts;
    return { top: counts(doc.testsuites), suites: doc.testsuites.testsuite.map(counts) };
  }

  it("are the sum of the suites, the rules judged on every exchange included", () => {
    // As Playwright writes it: its own totals, time the run's wall time (two workers: less than the sum).
    const file = junitFile(
      `<?xml version="1.0" encoding="UTF-8"?>
<testsuites id="" name="" tests="5" failures="1" skipped="1" errors="0" time="2.5">
<testsuite name="a.spec.js" timestamp="2026-11-24T00:00:00.000Z" hostname="target" tests="3" failures="0" skipped="1" time="1.25" errors="0">
<testcase name="one" classname="a.spec.js" time="1.25"></testcase>
</testsuite>
<testsuite name="b.spec.js" timestamp="2026-11-24T00:00:00.000Z" hostname="target" tests="2" failures="1" skipped="0" time="2.125" errors="1">
<testcase name="two" classname="b.spec.js" time="2.125"><failure message="x" type="FAILURE">x</failure></testcase>
</testsuite>
</testsuites>
`,
    );
    const s = summaryQuoting("unused");
    const row = s.requirements[0]!;
    row.checks = [
      { title: "its own check", file: "token-endpoint.spec.ts", status: "passed" },
      { title: 'observed in "two"', file: "b.spec.ts", status: "failed", reason: "observed: 200 <x>", observed: true },
    ];
    completeJUnit(file, "target", s);
    const { top, suites } = parsed(readFileSync(file, "utf8"));
    expect(suites).toHaveLength(3);
    const sum = (a: keyof Counts) => suites.reduce((n, suite) => n + suite[a], 0);
    expect(top).toEqual({
      tests: sum("tests"),
      failures: sum("failures"),
      errors: sum("errors"),
      skipped: sum("skipped"),
      time: sum("time"),
    });
    // The failure the rule layer observed counts at the top, where a CI gate that reads only it looks.
    expect(top).toEqual({ tests: 6, failures: 2, errors: 1, skipped: 1, time: 3.375 });
  });

  it("are the sum of the suites when nothing was observed too: one meaning of time in every file", () => {
    const file = junitFile(
      '<testsuites tests="1" failures="0" time="9">\n<testsuite name="a" tests="1" failures="0" skipped="0" errors="0" time="0.5"></testsuite>\n</testsuites>\n',
    );
    const s = summaryQuoting("unused");
    s.requirements = [];
    completeJUnit(file, "target", s);
    expect(parsed(readFileSync(file, "utf8")).top).toEqual({ tests: 1, failures: 0, errors: 0, skipped: 0, time: 0.5 });
  });
});

describe("a run the target left", () => {
  /** Three checks of three spec requirements, as Playwright hands them to a reporter. */
  function checks(target: string) {
    const project = { name: "target", metadata: { kinds: ["spec"], target, filtered: true }, use: {} };
    const tests = ["ERR-200", "ERR-1-PATH", "VER-PATH"].map(
      (id) =>
        ({
          title: `checks ${id}`,
          tags: ["@kind:spec", `@${id}`],
          annotations: [],
          location: { file: "/suite/status-rules.spec.ts", line: 1, column: 1 },
          id,
          parent: { project: () => project },
        }) as unknown as TestCase,
    );
    const suite = { suites: [{ project: () => project, allTests: () => tests }] } as unknown as Suite;
    return { tests, suite };
  }

  it("stopped by bawa conformance's watch: the check it cut and those it never let start are not checked", async () => {
    const dir = mkdtempSync(join(tmpdir(), "bawa-gone-"));
    const before = process.env[RUN_DIR_VARIABLE];
    process.env[RUN_DIR_VARIABLE] = dir;
    onTestFinished(() => {
      if (before === undefined) delete process.env[RUN_DIR_VARIABLE];
      else process.env[RUN_DIR_VARIABLE] = before;
      rmSync(dir, { recursive: true, force: true });
    });
    // A port of its own: what this process learns of a target stays known to it.
    const target = `http://127.0.0.1:${40_000 + (process.pid % 20_000)}`;
    const { tests, suite } = checks(target);
    const reporter = new MatrixReporter({ outputDir: dir, quiet: true });
    reporter.onBegin({} as FullConfig, suite);
    reporter.onTestEnd(tests[0]!, { status: "passed", annotations: [] } as unknown as TestResult);
    // The watch found the target gone and, a check still running, stopped the run (SIGINT, no CUT_FILE).
    takeForGone(target, `${target} did not answer twice in a row (connect ECONNREFUSED)`, {
      dir,
      at: new Date("2026-11-30T10:00:00Z"),
    });
    reporter.onTestEnd(tests[1]!, {
      status: "interrupted",
      annotations: [],
      error: { message: "Error: page.goto: Target page, context or browser has been closed" },
    } as unknown as TestResult);
    await reporter.onEnd({ status: "interrupted" } as FullResult);
    const s = JSON.parse(readFileSync(join(dir, "summary.json"), "utf8")) as Summary;
    const verdicts = Object.fromEntries(s.requirements.map((r) => [r.row, r.verdict]));
    expect(verdicts).toMatchObject({ "ERR-200": "passed", "ERR-1-PATH": "not checked", "VER-PATH": "not checked" });
    expect(s.failures).toEqual([]);
    // Said once, as the target's going, not as a run cut short.
    expect(s.because).toEqual([
      `the target at ${target} stopped answering (at 2026-11-30T10:00:00Z: ${target} did not answer twice in a row (connect ECONNREFUSED)): 2 checks were not checked`,
    ]);
    for (const row of s.requirements.filter((r) => r.verdict === "not checked"))
      expect(row.checks[0]!.reason).toMatch(new RegExp(`^${TARGET_DOWN} \\(at 2026-11-30T10:00:00Z: `));
  });
});
