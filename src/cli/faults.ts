// `bawa faults`: proves the conformance suite fails where it must and only
// there. Every fault switch of the mock must be caught (the requirements it
// breaks reported failed); every behaviour of the real service family the
// suite must tolerate must end as its definition says (a pass, or exactly the
// one finding). One mock per case, all checked in a single run of the suite:
// each case a target of its own, its checks one group that one worker runs in
// order, as many workers as the machine has cores, each taking case after
// case (decision 0031).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { RunTarget } from "../../conformance/lib/config.ts";
import { type CompiledContract, compileContract } from "../contract/index.ts";
import { changesDataAnswersOnly, type Switch } from "../mock/core/scenarios.ts";
import { FAULTS, switchesNamed, TOLERATED } from "../mock/faults/index.ts";
import { buildMock } from "../mock/index.ts";
import { type Listening, listen } from "../mock/node/listen.ts";
import { backgroundRefreshToken, ownMockSettings, spawnSuite } from "./conformance.ts";
import { type Command, contractPath, UsageError } from "./options.ts";

/** One run of the suite against the mock with some switches on. */
export interface Case {
  /** The target's name: the switches, and the settings' number of a behaviour run more than once. */
  name: string;
  switches: Switch[];
  settings: Record<string, string>;
  /**
   * The requirements the suite must report failed, exactly: no fewer, no more. `SVC-METHODS` means
   * every row of it that ran (every subject); `SVC-METHODS · Supplier` one row.
   */
  failed: readonly string[];
  /** A fault's run (only the checks of what it breaks) or a behaviour's (the whole suite). */
  exactly: boolean;
  /** What the failed checks must say (a fault's `says`): a failure for another reason is not a catch. */
  says?: RegExp;
  /** Whether every check runs, or only those of `failed` (a fault's run). */
  wholeSuite?: boolean;
  /** The kinds of check of a whole-suite run (default spec and oauth, what a real environment gets). */
  kinds?: string;
  /**
   * Rows that must be there and passed (the baseline: the generic rules of every editable resource
   * of the contract), and whether every operation of the contract must have been exercised.
   */
  mustPass?: readonly string[];
  everyOperation?: boolean;
  /** false: the run opens no browser (CONFORMANCE_BROWSER=0), its walks through the screens not verified. */
  browser?: false;
}

interface Outcome {
  case: string;
  kind: Switch["kind"];
  what: string;
  expected: string[];
  /** Requirements the suite reported failed. */
  failed: string[];
  /** Requirements reported as not checked because of another's finding. */
  notChecked: string[];
  /** Titles of the failed checks of the expected requirements. */
  caughtBy: string[];
  /** What each of those checks said: its title and the first line of its failure. */
  messages: string[];
  /** Checks that broke (a TypeError, ...) instead of failing an assertion. */
  crashed: string[];
  /** Failed checks of what the fault breaks whose message does not say what the fault's `says` does. */
  unexplained: string[];
  /** Rows the case needs passed that are missing or did not pass; operations never exercised. */
  unchecked: string[];
  /** The suite's worker processes that ran the case's checks (summary.json's `workers`). */
  workers?: number;
  ok: boolean;
}

export interface Summary {
  coverage?: { totals: { operations: { seen: number; declared: number } } };
  /** The mock stopped answering during the run (when, why): the checks it left are not checked. */
  stoppedAnswering?: string;
  workers?: number;
  requirements: Array<{
    id: string;
    /** `SVC-METHODS · Supplier` for a row of one subject; the id otherwise (summaries of earlier versions have none). */
    row?: string;
    verdict: string;
    /** `observed`: a violation the rule layer found in the exchanges of a check, not its own assertion. */
    checks: Array<{ title: string; status: string; reason?: string; observed?: boolean }>;
  }>;
}

/** What a check reports when it broke rather than failed an assertion. */
const RUNTIME_ERROR = /\b(TypeError|ReferenceError|RangeError|SyntaxError|is not a function|Cannot read propert)/;

export const faultsCommand: Command = {
  summary: "prove the suite catches every fault switch of the mock and tolerates the real family's behaviours",
  usage: `usage: bawa faults [--only name,name] [--jobs n] [--whole-suite] [--contract file] [--seed dir]

For each fault switch of the mock (bawa mock --list-faults), checks the mock
with that fault on, running the checks of the requirements it breaks, and
expects the suite to report those requirements failed. For each behaviour of
the real service family the suite must tolerate, runs the whole suite (spec
and oauth checks) with the settings its definition names and expects exactly
the verdict written there: a pass, or the one named finding.
A check that breaks (a TypeError, ...) instead of failing an assertion fails
the run wherever it happens: it is a bug of the suite.
Writes reports/faults.md and reports/faults.json. Exit 0 only when every fault
is caught, every behaviour ends as defined and no check broke.

options:
  --only <list>   only these switches
  --jobs <n>      mocks checked at once (default: the number of cores)
  --whole-suite   under each fault, run every check, not only those of what it
                  breaks: proves no check breaks on any fault (about five times
                  longer; a nightly job's run)
  --contract <f>  mocks and suite on this contract (BAWA_CONTRACT): npm test runs
                  the matrix on a team's contract (scripts/team-contract.mjs: the
                  customer copied as Supplier, and Product, shaped unlike it), so
                  every fault that acts on resources is caught on each
  --seed <dir>    the mocks' seed data (BAWA_SEED_DIR; default mock-data)
  -h, --help      this text`,
  options: {
    only: { type: "string" },
    jobs: { type: "string" },
    "whole-suite": { type: "boolean" },
    contract: { type: "string" },
    seed: { type: "string" },
  },
  async run(values) {
    let switches: Switch[] = [...FAULTS, ...TOLERATED];
    if (typeof values.only === "string") {
      try {
        switches = switchesNamed(values.only);
      } catch (err) {
        throw new UsageError((err as Error).message);
      }
    }
    const jobs = Number(values.jobs ?? availableParallelism());
    if (!Number.isInteger(jobs) || jobs < 1 || jobs > 16)
      throw new UsageError("--jobs must be a whole number from 1 to 16");
    // The whole-suite runs first: the short fault runs then fill the gaps they leave.
    const compiled = compileContract(contractPath(values));
    const cases = [
      // The mock as it starts, with every kind of check: on a team's contract, no rule may fail it.
      ...(typeof values.only === "string" ? [] : [baselineCase(compiled)]),
      ...toleranceRuns(switches.filter((s) => s.kind === "tolerated")),
      ...switches.filter((s) => s.kind === "fault").map((s) => faultCase(s, values["whole-suite"] === true)),
    ];
    const started = performance.now();
    console.log(
      `bawa faults: ${cases.filter((c) => !c.exactly).length} faults and ${cases.filter((c) => c.exactly).length} runs of tolerated behaviours, ${jobs} at a time`,
    );
    const seedDir = typeof values.seed === "string" ? values.seed : process.env.BAWA_SEED_DIR;
    const summaries = await runTargets(cases, jobs, { file: contractPath(values), compiled }, seedDir);
    const outcomes = cases.map((c) => judge(c, summaries.get(c.name)));
    for (const o of outcomes) {
      for (const u of o.unchecked) console.error(`  not checked in ${o.case}: ${u}`);
      for (const c of o.crashed) console.error(`  a check broke instead of failing an assertion, in ${o.case}: ${c}`);
      for (const u of o.unexplained) console.error(`  a failure of ${o.case} does not say what the fault is: ${u}`);
      if (!o.ok) {
        console.error(
          `  ${o.kind === "fault" ? "not caught exactly" : "not as defined"}: ${o.case} (${o.what}) — the suite reported failed: ${o.failed.join(", ") || "nothing"}; expected exactly: ${o.expected.join(", ") || "nothing"}`,
        );
      }
    }
    const faults = outcomes.filter((o) => o.kind === "fault");
    const tolerated = outcomes.filter((o) => o.kind === "tolerated");
    const caught = faults.filter((o) => o.ok).length;
    const score = `${caught}/${faults.length} faults caught (${Math.round((100 * caught) / Math.max(1, faults.length))} %); ${tolerated.filter((o) => o.ok).length}/${tolerated.length} tolerated runs as defined`;
    mkdirSync(resolve("reports"), { recursive: true });
    writeFileSync(resolve("reports/faults.json"), `${JSON.stringify({ score, outcomes }, null, 2)}\n`);
    writeFileSync(resolve("reports/faults.md"), table(score, faults, tolerated));
    console.log(
      `bawa faults: ${score}, in ${((performance.now() - started) / 1000).toFixed(0)} s. Table: reports/faults.md`,
    );
    return outcomes.every((o) => o.ok) ? 0 : 1;
  },
};

/** The generic rules every editable resource of a contract is checked by, as rows of the matrix. */
const PER_RESOURCE = ["SVC-METHODS", "A-INVALID-BODIES"] as const;

/**
 * The run of the mock without any switch: every check, of every kind, passes; every editable
 * resource of the contract (a team's own included) is checked by the generic rules, and every
 * operation the contract declares is exercised.
 */
export function baselineCase(contract: Pick<CompiledContract, "resources">): Case {
  const editable = contract.resources.collections.filter((c) => c.editable);
  return {
    name: "no-switch",
    switches: [],
    settings: {},
    failed: [],
    exactly: true,
    kinds: "spec,oauth,assumption",
    mustPass: editable.flatMap((c) => PER_RESOURCE.map((id) => `${id} · ${c.name}`)),
    everyOperation: true,
  };
}

/** A fault's run: the checks of what it breaks (or every check), with only it on. */
export const faultCase = (s: Switch, wholeSuite = false): Case => ({
  name: s.name,
  switches: [s],
  settings: {},
  failed: s.breaks ?? [],
  exactly: false,
  wholeSuite,
  ...(s.says ? { says: s.says } : {}),
});

/**
 * The whole-suite runs that show every tolerated behaviour ends as defined.
 * A run of the whole suite costs half a minute, so expectations are packed
 * into as few runs as keep each one's meaning: only behaviours the suite must
 * pass, with the same settings, of different groups. A finding never shares a
 * run: the checks it leaves not checked could hide what another behaviour
 * would have made fail.
 */
export function toleranceRuns(switches: readonly Switch[]): Case[] {
  const runs: Array<{ switches: Switch[]; labels: string[]; settings: Record<string, string>; failed: string[] }> = [];
  for (const s of switches) {
    (s.expect ?? []).forEach((expected, i, all) => {
      const label = all.length > 1 ? `${s.name}#${i + 1}` : s.name;
      const fits = runs.find(
        (r) =>
          JSON.stringify(sorted(r.settings)) === JSON.stringify(sorted(expected.settings)) &&
          !r.switches.some((o) => o.name === s.name || (o.group !== undefined && o.group === s.group)) &&
          r.failed.length === 0 &&
          expected.failed.length === 0,
      );
      if (fits) {
        fits.switches.push(s);
        fits.labels.push(label);
        fits.failed.push(...expected.failed);
      } else {
        runs.push({ switches: [s], labels: [label], settings: { ...expected.settings }, failed: [...expected.failed] });
      }
    });
  }
  return runs.map((r) => ({
    name: r.labels.join("+"),
    switches: r.switches,
    settings: r.settings,
    failed: r.failed,
    exactly: true,
    // A run of behaviours that change only the data API's answers walks no screens: the walks see
    // nothing of them (their checks run in the baseline and in the other tolerance run), and they
    // cost most of a whole run's CPU (Chromium).
    ...(r.switches.every(changesDataAnswersOnly) ? { browser: false } : {}),
  }));
}

const sorted = (o: Record<string, string>) =>
  Object.fromEntries(Object.entries(o).sort(([a], [b]) => a.localeCompare(b)));

/** Starts a mock per case and runs the suite against all of them at once; the matrix of each, by case. */
async function runTargets(
  cases: Case[],
  jobs: number,
  { file: contractFile, compiled: contract }: { file: string; compiled: CompiledContract },
  seedDir: string | undefined,
): Promise<Map<string, Summary | undefined>> {
  const root = resolve("reports/faults");
  rmSync(root, { recursive: true, force: true });
  const servers: Listening[] = [];
  const work = mkdtempSync(join(tmpdir(), "bawa-faults-"));
  try {
    const targets: RunTarget[] = [];
    for (const c of cases) {
      const mock = buildMock({
        contract,
        switches: c.switches.map((s) => s.name),
        seedOptions: { strict: false },
        ...(seedDir ? { seedDir } : {}),
      });
      const server = await listen(mock, { host: "127.0.0.1", port: 0 });
      servers.push(server);
      const settings = { ...ownMockSettings(server.url, backgroundRefreshToken(mock)), ...c.settings };
      // A fault's run checks what it breaks; a behaviour's run, and a fault's whole-suite run, is the
      // suite a real environment gets (spec and oauth checks).
      if (c.exactly || c.wholeSuite) settings.CONFORMANCE_KINDS = c.kinds ?? "spec,oauth";
      // Traces are recorded in browser contexts: a traced matrix walks the screens everywhere.
      if (c.browser === false && process.env.CONFORMANCE_TRACE !== "1") settings.CONFORMANCE_BROWSER = "0";
      targets.push({
        name: c.name,
        settings,
        ...(c.exactly || c.wholeSuite ? {} : { requirements: [...new Set(c.failed.map((f) => f.split(" · ")[0]!))] }),
        expectFailures: [...new Set(c.failed.map((f) => f.split(" · ")[0]!))],
      });
    }
    const file = join(work, "targets.json");
    writeFileSync(file, JSON.stringify(targets));
    const env = {
      ...process.env,
      CONFORMANCE_TARGETS: file,
      CONFORMANCE_WORKERS: String(jobs),
      CONFORMANCE_REPORTS: "matrix",
      CONFORMANCE_REPORTS_DIR: root,
      CONFORMANCE_PROGRESS: "1",
      CONFORMANCE_CONTRACT: contractFile,
    };
    const child = spawnSuite(env, [], { output: "inherit" });
    await new Promise((done) => child.on("exit", done));
    return new Map(
      cases.map((c) => {
        try {
          return [c.name, JSON.parse(readFileSync(join(root, "targets", c.name, "summary.json"), "utf8")) as Summary];
        } catch {
          return [c.name, undefined];
        }
      }),
    );
  } finally {
    await Promise.all(servers.map((s) => s.close()));
    rmSync(work, { recursive: true, force: true });
  }
}

/** The rows a case's `failed` names: an id names every row of it that ran, `id · subject` one. */
function expectedRows(c: Case, rows: Summary["requirements"]): string[] {
  const ran = rows.filter((r) => r.verdict !== "not applicable" && r.verdict !== "not selected");
  return c.failed.flatMap((f) => {
    if (f.includes(" · ")) return [f];
    const of = ran.filter((r) => r.id === f).map((r) => r.row ?? r.id);
    // A rule with no row that ran (nothing of its kind in the contract) expects nothing.
    return of.length > 0 ? of : rows.some((r) => r.id === f) ? [] : [f];
  });
}

export function judge(c: Case, summary: Summary | undefined): Outcome {
  const rows = summary?.requirements ?? [];
  const rowOf = (r: Summary["requirements"][number]) => r.row ?? r.id;
  const failed = rows.filter((r) => r.verdict === "failed" || r.verdict === "uncovered").map(rowOf);
  const notChecked = rows.filter((r) => r.verdict === "not checked").map(rowOf);
  const expected = expectedRows(c, rows);
  const failedChecks = rows
    .filter((r) => expected.includes(rowOf(r)))
    .flatMap((r) => r.checks.filter((x) => x.status === "failed" || x.status === "timedOut"));
  const caughtBy = failedChecks.map((x) => x.title);
  // A check must end in an assertion that says what is wrong, never in a bug of its own.
  const crashed = rows.flatMap((r) =>
    r.checks.filter((x) => RUNTIME_ERROR.test(x.reason ?? "")).map((x) => `${rowOf(r)}: ${x.title}: ${x.reason}`),
  );
  // A fault is caught only by a failure that says what the fault is: a typo in a check is no catch.
  // What the rule layer observed says it in the rule's own words (src/rules, tested on its own).
  const unexplained = c.says
    ? failedChecks
        .filter((x) => !x.observed && !x.reason?.startsWith("observed: ") && !c.says!.test(x.reason ?? ""))
        .map((x) => `${x.title}: ${x.reason ?? x.status}`)
    : [];
  const unchecked = (c.mustPass ?? [])
    .filter((row) => !rows.some((r) => rowOf(r) === row && r.verdict === "passed"))
    .map((row) => `${row} (${rows.find((r) => rowOf(r) === row)?.verdict ?? "no such row"})`);
  // A mock that went away leaves its checks not checked, not failed: no verdict of the case holds.
  if (summary?.stoppedAnswering)
    unchecked.push(`every check after the mock stopped answering (${summary.stoppedAnswering})`);
  const operations = summary?.coverage?.totals.operations;
  if (c.everyOperation && operations && operations.seen < operations.declared)
    unchecked.push(`${operations.declared - operations.seen} of ${operations.declared} operations never exercised`);
  const ok =
    summary !== undefined &&
    unchecked.length === 0 &&
    crashed.length === 0 &&
    unexplained.length === 0 &&
    failed.length === expected.length &&
    expected.every((id) => failed.includes(id));
  return {
    case: c.name,
    kind: c.exactly ? "tolerated" : "fault",
    what:
      (c.switches.map((s) => s.what).join("; ") || "no switch: the mock as it starts, every kind of check") +
      (c.browser === false ? " (only the data API's answers change: run without a browser)" : ""),
    expected,
    failed,
    notChecked,
    crashed,
    unexplained,
    unchecked,
    caughtBy: [...new Set(caughtBy)],
    messages: failedChecks.map((x) => `${x.title}: ${(x.reason ?? x.status).split("\n")[0]}`),
    ...(summary?.workers === undefined ? {} : { workers: summary.workers }),
    ok,
  };
}

/** The checks that broke instead of failing an assertion, to be fixed in the suite. */
function broke(outcomes: Outcome[]): string[] {
  const lines = outcomes.flatMap((o) => o.crashed.map((c) => `- \`${o.case}\`: ${c}`));
  return lines.length ? ["## Checks that broke (bugs of the suite)", "", ...lines, ""] : [];
}

function table(score: string, faults: Outcome[], tolerated: Outcome[]): string {
  const faultRows = faults.map(
    (o) =>
      `| \`${o.case}\` | ${o.what} | ${o.expected.join(", ")} | ${o.caughtBy.join("; ") || "—"} | ${o.ok ? "caught" : o.crashed.length ? "**a check broke**" : "**not caught**"} |`,
  );
  const toleratedRows = tolerated.map(
    (o) =>
      `| \`${o.case}\` | ${o.what} | ${o.expected.join(", ") || "none (a pass)"} | ${o.failed.join(", ") || "none"}${o.notChecked.length ? `; not checked because of it: ${o.notChecked.join(", ")}` : ""} | ${o.ok ? "as defined" : o.crashed.length ? "**a check broke**" : "**not as defined**"} |`,
  );
  return [
    "# Fault matrix",
    "",
    `${score}.`,
    "",
    "Each fault switch of the mock breaks one rule; the suite ran the checks of the requirements it breaks against the mock with only that fault on.",
    "",
    "| fault | what it breaks | requirement ids | caught by | result |",
    "|---|---|---|---|---|",
    ...faultRows,
    "",
    "Each behaviour of the real service family is one the suite must tolerate; the suite (spec and oauth checks) ran against the mock with it on.",
    "",
    "| behaviour | what it does | the suite must report | it reported | result |",
    "|---|---|---|---|---|",
    ...toleratedRows,
    "",
    ...broke(faults.concat(tolerated)),
  ].join("\n");
}
