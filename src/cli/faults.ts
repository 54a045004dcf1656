// `bawa faults`: proves the conformance suite can fail. For every fault switch
// it starts the mock with that one fault, runs the checks of the requirements
// the fault breaks, and expects those requirements to be reported as failed.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { compileContract } from "../contract/index.ts";
import type { Switch } from "../mock/core/scenarios.ts";
import { FAULTS, switchesNamed } from "../mock/faults/index.ts";
import { buildMock } from "../mock/index.ts";
import { listen } from "../mock/node/server.ts";
import { PROJECT_ROOT } from "../paths.ts";
import { backgroundRefreshToken, ownMockSettings, spawnSuite } from "./conformance.ts";
import { type Command, UsageError } from "./options.ts";

interface Outcome {
  fault: string;
  what: string;
  breaks: string[];
  caught: boolean;
  /** Requirements the suite reported failed. */
  failed: string[];
  /** Titles of the failed checks of the broken requirements. */
  caughtBy: string[];
  seconds: number;
}

export const faultsCommand: Command = {
  summary: "prove the conformance suite catches every fault switch of the mock",
  usage: `usage: bawa faults [--only name,name] [--jobs n]

For each fault switch of the mock (bawa mock --list-faults), starts the mock
with that fault, runs the conformance checks of the requirements it breaks,
and expects the suite to report those requirements as failed. Writes
reports/faults.md and reports/faults.json. Exit 0 only when every fault is caught.

options:
  --only <list>   only these faults
  --jobs <n>      faults checked at once (default 2)
  -h, --help      this text`,
  options: { only: { type: "string" }, jobs: { type: "string" } },
  async run(values) {
    let faults: Switch[] = [...FAULTS];
    if (typeof values.only === "string") {
      try {
        faults = switchesNamed(values.only, FAULTS);
      } catch (err) {
        throw new UsageError((err as Error).message);
      }
    }
    const jobs = Number(values.jobs ?? 2);
    if (!Number.isInteger(jobs) || jobs < 1 || jobs > 8)
      throw new UsageError("--jobs must be a whole number from 1 to 8");
    const root = resolve(PROJECT_ROOT, "reports/faults");
    rmSync(root, { recursive: true, force: true });
    const contract = compileContract();
    const outcomes: Outcome[] = [];
    const queue = [...faults];
    let done = 0;
    console.log(`bawa faults: ${faults.length} faults, ${jobs} at a time`);
    await Promise.all(
      Array.from({ length: jobs }, async () => {
        for (let f = queue.shift(); f; f = queue.shift()) {
          const outcome = await runFault(f, contract, join(root, f.name));
          outcomes.push(outcome);
          done++;
          const verdict = outcome.caught ? "caught" : "NOT CAUGHT";
          console.log(
            `[${done}/${faults.length}] ${f.name.padEnd(32)} ${verdict} (${f.breaks?.join(", ")}) in ${outcome.seconds.toFixed(0)} s`,
          );
        }
      }),
    );
    outcomes.sort((a, b) => faults.findIndex((f) => f.name === a.fault) - faults.findIndex((f) => f.name === b.fault));
    const caught = outcomes.filter((o) => o.caught).length;
    const score = `${caught}/${outcomes.length} faults caught (${Math.round((100 * caught) / Math.max(1, outcomes.length))} %)`;
    mkdirSync(resolve(PROJECT_ROOT, "reports"), { recursive: true });
    writeFileSync(resolve(PROJECT_ROOT, "reports/faults.json"), `${JSON.stringify({ score, outcomes }, null, 2)}\n`);
    writeFileSync(resolve(PROJECT_ROOT, "reports/faults.md"), table(score, outcomes));
    console.log(`bawa faults: ${score}. Table: reports/faults.md`);
    for (const o of outcomes.filter((o) => !o.caught)) {
      console.error(
        `  not caught: ${o.fault} (${o.what}) — the suite reported failed: ${o.failed.join(", ") || "nothing"}; expected: ${o.breaks.join(", ")}`,
      );
    }
    return caught === outcomes.length ? 0 : 1;
  },
};

async function runFault(fault: Switch, contract: ReturnType<typeof compileContract>, dir: string): Promise<Outcome> {
  const started = performance.now();
  const mock = buildMock({ contract, switches: [fault.name] });
  const server = await listen(mock, { host: "127.0.0.1", port: 0 });
  try {
    const env = {
      ...process.env,
      ...ownMockSettings(server.url, backgroundRefreshToken(mock)),
      CONFORMANCE_FILTERED: "1",
      CONFORMANCE_REPORTS: "matrix",
      CONFORMANCE_REPORTS_DIR: dir,
    };
    const breaks = fault.breaks ?? [];
    const grep = breaks.map((id) => `@${id}(\\s|$)`).join("|");
    const child = spawnSuite(env, ["--grep", grep], "ignore");
    await new Promise((done) => child.on("exit", done));
    const summary = JSON.parse(readFileSync(join(dir, "summary.json"), "utf8")) as {
      requirements: Array<{ id: string; verdict: string; checks: Array<{ title: string; status: string }> }>;
    };
    const failed = summary.requirements.filter((r) => r.verdict === "failed").map((r) => r.id);
    const caughtBy = summary.requirements
      .filter((r) => breaks.includes(r.id))
      .flatMap((r) => r.checks.filter((c) => c.status === "failed" || c.status === "timedOut").map((c) => c.title));
    return {
      fault: fault.name,
      what: fault.what,
      breaks: [...(fault.breaks ?? [])],
      caught: breaks.every((id) => failed.includes(id)),
      failed,
      caughtBy: [...new Set(caughtBy)],
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    await server.close();
  }
}

function table(score: string, outcomes: Outcome[]): string {
  const rows = outcomes.map(
    (o) =>
      `| \`${o.fault}\` | ${o.what} | ${o.breaks.join(", ")} | ${o.caughtBy.join("; ") || "—"} | ${o.caught ? "caught" : "**not caught**"} |`,
  );
  return [
    "# Fault matrix",
    "",
    `${score}. Each fault switch of the mock breaks one rule; the conformance suite ran the checks of the requirements it breaks against the mock with only that fault on.`,
    "",
    "| fault | what it breaks | requirement ids | caught by | result |",
    "|---|---|---|---|---|",
    ...rows,
    "",
  ].join("\n");
}
