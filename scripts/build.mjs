#!/usr/bin/env node
// `npm run build`: the TypeScript compiled to dist/ (tsc without checking types: the typecheck
// stage of npm test checks them), then the YAML cache (yaml-cache.mjs) and the contract's
// validators' code (validator-cache.mjs, decision 0036).
//
//   node scripts/build.mjs [--force]
//
// tsc is skipped when nothing it compiles from changed since its last successful run: `npm ci`
// builds through `prepare` and `npm test` builds again right after, a second compile of about
// 6 CPU-s in a run that must fit five minutes (issue 35). "Changed" is any difference in the
// size or modification time of a file under its inputs, or a file added or gone, not only a newer
// one: a file copied back with its old time is a change too; so is a file of dist/ removed or
// edited since. The record of the last run is kept in node_modules/.cache, which `npm ci` empties,
// so a fresh install always compiles. --force compiles anyway. The YAML cache is rebuilt every
// time (0.3 s; it is keyed by content anyway); the validators' code where its key changed.
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { BUILD_INPUTS, BUILD_OUTPUTS, inputsRecord } from "./build-inputs.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const RECORD = join(root, "node_modules/.cache/bawa-build.json");

let force;
try {
  force = parseArgs({ options: { force: { type: "boolean" } } }).values.force === true;
} catch (err) {
  console.error(`build: ${err.message}\nusage: node scripts/build.mjs [--force]`);
  process.exit(2);
}

function lastRecord() {
  try {
    return readFileSync(RECORD, "utf8");
  } catch {
    return undefined;
  }
}

// Read before tsc starts: a file saved while it compiles differs from the record at the next build.
// The outputs are part of the record too: a file of dist/ removed or edited by hand is compiled again.
const before = inputsRecord(root, BUILD_INPUTS);
const upToDate = !force && lastRecord() === `${before}\n${inputsRecord(root, BUILD_OUTPUTS)}`;
if (upToDate) {
  console.log("build: dist/ is up to date with its sources; tsc skipped (--force compiles anyway)");
} else {
  // A failed compile leaves no record: the next build compiles again. tsc never removes what it
  // wrote: the outputs go first, so a source removed or renamed leaves no module in dist/ to ship.
  rmSync(RECORD, { force: true });
  for (const out of BUILD_OUTPUTS) rmSync(join(root, out), { recursive: true, force: true });
  const tsc = spawnSync(
    process.execPath,
    [join(root, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.build.json", "--noCheck"],
    { cwd: root, stdio: "inherit" },
  );
  if (tsc.status !== 0) process.exit(tsc.status ?? 1);
  mkdirSync(dirname(RECORD), { recursive: true });
  writeFileSync(RECORD, `${before}\n${inputsRecord(root, BUILD_OUTPUTS)}`);
}
for (const cache of ["scripts/yaml-cache.mjs", "scripts/validator-cache.mjs"]) {
  const run = spawnSync(process.execPath, [join(root, cache)], { cwd: root, stdio: "inherit" });
  if (run.status !== 0) process.exit(run.status ?? 1);
}
