#!/usr/bin/env node
// `npm test`: every check of the project, in stages that share the machine.
// The static checks run side by side, then two lanes at once: the unit and
// integration tests (two files at a time); and the suite against the own mock,
// through the proxy, the fault matrix, the package test and the suite against
// Prism (about as long together, since the fault matrix's targets share
// workers: decision 0031). Much of a test is waiting on another process (a
// mock, the suite, a browser), so two lanes keep a two-core machine busy where
// one after the other would not.
// Lines of stages that run at once carry the stage's name. At the end: each
// stage's time, CPU and result, how busy the cores were, a check of the host's
// speed, and exit 1 when any stage failed.
//
//   node scripts/test.mjs [--serial] [--only stage,stage]
//
// --serial runs the stages one after the other (a tight machine, a clear log).
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { CPU_FD, childrenCpu, idleShare, signalOf, stageCommand } from "./stage-cpu.mjs";

/**
 * Stages are npm scripts of package.json; lanes run at once, each stage of a
 * lane in order. Nothing after a failed `gate` step runs.
 */
const PLAN = [
  { lanes: [["ensure-browser"], ["build"]], gate: true },
  { lanes: [["lint"], ["lint:spec"], ["check:types"], ["typecheck"]] },
  {
    lanes: [["test:unit"], ["conformance", "conformance:proxy", "faults", "test:package", "conformance:prism"]],
  },
];

const USAGE = `usage: node scripts/test.mjs [--serial] [--only stage,stage]

stages: ${PLAN.flatMap((s) => s.lanes.flat()).join(", ")}
  --serial  one stage at a time
  --only    just these stages (in the plan's order)`;

let args;
try {
  args = parseArgs({
    options: { serial: { type: "boolean" }, only: { type: "string" }, help: { type: "boolean", short: "h" } },
  }).values;
} catch (err) {
  console.error(`${err.message}\n\n${USAGE}`);
  process.exit(2);
}
if (args.help) {
  console.log(USAGE);
  process.exit(0);
}
const only = args.only?.split(",").map((s) => s.trim());
const known = new Set(PLAN.flatMap((s) => s.lanes.flat()));
for (const name of only ?? []) {
  if (!known.has(name)) {
    console.error(`unknown stage ${name}\n\n${USAGE}`);
    process.exit(2);
  }
}

/** @type {Array<{ name: string, seconds: number, cpu: number | undefined, code: number | string }>} */
const results = [];
const started = performance.now();
const coresAtStart = cpus();

// Each stage is its package.json script, run as `npm run` runs one (a shell, the project's
// node_modules/.bin first on PATH) but without npm: an npm process costs about 2 CPU-s, a dozen
// of them a run. npm's own variables come with this process's environment (npm test set them).
const root = dirname(dirname(fileURLToPath(import.meta.url)));
const { scripts } = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const PATH = [join(root, "node_modules", ".bin"), process.env.PATH].filter(Boolean).join(delimiter);
// The run's own cache folder (src/user-cache.ts, decision 0041), gone after it: the tests' many
// contracts would push the one a team works with out of the user's, and a run starts from none,
// as a fresh machine does. A folder the caller named is used as named.
const ownCache = process.env.BAWA_CACHE_DIR === undefined ? mkdtempSync(join(tmpdir(), "bawa-test-cache-")) : undefined;
if (ownCache) process.env.BAWA_CACHE_DIR = ownCache;
process.on("exit", () => {
  if (ownCache) rmSync(ownCache, { recursive: true, force: true });
});

for (const name of known) {
  if (typeof scripts[name] !== "string") {
    console.error(`stage ${name} is no script of package.json`);
    process.exit(2);
  }
}

// A stage's CPU says what it costs better than its time, which follows what runs beside it (a
// two-core machine gives 120 CPU-s a minute, and npm test is CPU-bound): how it is read is
// scripts/stage-cpu.mjs's (decision 0038).
function runStage(name, prefixed) {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const output = prefixed ? "pipe" : "inherit";
    const { file, args, shell, cpuPipe } = stageCommand(scripts[name]);
    const child = spawn(file, args, {
      shell,
      cwd: root,
      stdio: ["ignore", output, output, ...(cpuPipe ? ["pipe"] : [])],
      env: { ...process.env, PATH, npm_lifecycle_event: name, npm_lifecycle_script: scripts[name] },
    });
    if (prefixed) {
      for (const [stream, out] of [
        [child.stdout, process.stdout],
        [child.stderr, process.stderr],
      ]) {
        createInterface({ input: stream }).on("line", (line) => out.write(`[${name}] ${line}\n`));
      }
    }
    let times = "";
    child.stdio[CPU_FD]?.on("data", (chunk) => {
      times += chunk;
    });
    child.on("close", (code, signal) => {
      const result = {
        name,
        seconds: (performance.now() - t0) / 1000,
        cpu: childrenCpu(times),
        code: signalOf(code) ?? code ?? signal ?? 1,
      };
      results.push(result);
      const cpu = result.cpu === undefined ? "" : `, ${cpuFmt(result.cpu)}`;
      console.log(
        `── ${name}: ${result.code === 0 ? "passed" : `failed (${result.code})`} in ${fmt(result.seconds)}${cpu}`,
      );
      resolve(result);
    });
  });
}

/** A lane stops at its first failed stage: the next ones would fail for the same reason. */
async function runLane(lane, prefixed) {
  for (const name of lane) {
    if ((await runStage(name, prefixed)).code !== 0) return;
  }
}

// Whole seconds first: 599.6 s is 10 min 0 s, not 9 min 60 s.
const fmt = (s) => (s >= 60 ? `${Math.floor(Math.round(s) / 60)} min ${Math.round(s) % 60} s` : `${s.toFixed(1)} s`);
const cpuFmt = (s) => `${s >= 100 ? Math.round(s) : s.toFixed(1)} CPU-s`;

/**
 * How fast this machine is at the moment, so a run's times and CPU can be set beside another
 * run's: the shared machine has run on hosts about 1.7 times apart, and a host's hours differ too.
 * The work is the one the mock's start-up is made of (JSON.parse of the project's first customer,
 * the bench's too), in nine rounds after the last stage, when nothing else runs: their median and
 * range (a wide range says the machine was not quiet). A file that can not be read gives no figure,
 * never a failed run.
 */
function hostCheck() {
  const ROUNDS = 9;
  const PARSES = 2000;
  try {
    const text = JSON.stringify(JSON.parse(readFileSync(join(root, "mock-data", "Customer", "DEMO.json"), "utf8"))[0]);
    const rounds = [];
    for (let r = 0; r < ROUNDS; r++) {
      const t0 = performance.now();
      for (let i = 0; i < PARSES; i++) JSON.parse(text);
      rounds.push(((performance.now() - t0) * 1000) / PARSES);
    }
    rounds.sort((a, b) => a - b);
    const µs = (n) => n.toFixed(1);
    return `host check: JSON.parse of mock-data's first customer (${Buffer.byteLength(text)} bytes) ${µs(rounds[(ROUNDS - 1) / 2])} µs (${µs(rounds[0])}–${µs(rounds[ROUNDS - 1])} over ${ROUNDS} rounds)`;
  } catch (err) {
    return `host check: none (${err.message})`;
  }
}

for (const step of PLAN) {
  const lanes = step.lanes.map((l) => l.filter((n) => !only || only.includes(n))).filter((l) => l.length);
  if (lanes.length === 0) continue;
  if (args.serial || lanes.length === 1) {
    for (const lane of lanes) await runLane(lane, false);
  } else {
    console.log(`── at once: ${lanes.map((l) => l.join(" → ")).join(" | ")}`);
    await Promise.all(lanes.map((lane) => runLane(lane, true)));
  }
  if (step.gate && results.some((r) => r.code !== 0)) break;
}

const total = (performance.now() - started) / 1000;
const failed = results.filter((r) => r.code !== 0);
const width = Math.max(...results.map((r) => r.name.length));
console.log("\nstage times:");
for (const r of results) {
  console.log(
    `  ${r.name.padEnd(width)}  ${fmt(r.seconds).padStart(10)}  ${(r.cpu === undefined ? "" : cpuFmt(r.cpu)).padStart(11)}  ${r.code === 0 ? "passed" : `FAILED (${r.code})`}`,
  );
}
// The stages' CPU (what they and the processes they waited for used), and how busy the machine's
// cores were through the run (every process on it, ours or not, and the kernel's work but for what
// libuv leaves out: iowait, softirq, steal). A browser's renderers are in no stage's figure (their
// parents leave them to the system) but in the busy share. Near 100 % a run is CPU-bound, and only
// less CPU (or more cores) makes it shorter.
const own = process.cpuUsage();
const cpu = results.every((r) => r.cpu !== undefined)
  ? results.reduce((sum, r) => sum + r.cpu, (own.user + own.system) / 1e6)
  : undefined;
const idle = idleShare(coresAtStart, cpus());
const busy =
  idle === undefined ? "" : `; ${coresAtStart.length} cores, busy ${Math.round(100 * (1 - idle))} % of the run`;
console.log(
  `  ${"total".padEnd(width)}  ${fmt(total).padStart(10)}  ${(cpu === undefined ? "" : cpuFmt(cpu)).padStart(11)}  (stages side by side overlap${busy})`,
);
console.log(`  on Node.js ${process.version}, ${process.platform}/${process.arch}`);
console.log(`  ${hostCheck()}`);
if (failed.length) {
  console.error(`\nnpm test: failed: ${failed.map((r) => r.name).join(", ")}`);
  process.exit(1);
}
console.log("\nnpm test: everything passed");
