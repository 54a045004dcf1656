// A team edits the contract as the README's "Adding a resource" says, and the
// project's own tests stay green: the tests that name resources, their counts
// or their messages read them from the contract in use (BAWA_CONTRACT, with its
// seed in BAWA_SEED_DIR), and here they run on the project's contract with
// Product added (scripts/fixtures/product.yaml: seed data, short maxLengths,
// required fields of its own), with no TypeScript changed. The suite against
// the mock on such a contract is the fault matrix's baseline run in every `npm
// test` (`npm run faults`: the customer copied as Supplier, and Product): every
// check of every kind passes, the generic rules check each editable resource and
// every operation is exercised (src/cli/faults.ts, baselineCase).
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../src/paths.ts";
import { writeTeamContract } from "./team-contract.mjs";

/** The tests that read the set of resources, their seed counts or messages of the contract in use. */
const AFFECTED = [
  "src/contract/resources.test.ts",
  "src/mock/node/second-resource.test.ts",
  "src/mock/node/data-dir.test.ts",
  "src/rules/judge/judge.test.ts",
  "src/mock/seed.test.ts",
  "src/mock/dashboard/dashboard.test.ts",
];

const dir = mkdtempSync(join(tmpdir(), "bawa-team-contract-"));
const contract = writeTeamContract({ out: dir, supplier: false });
const env = { ...process.env, BAWA_CONTRACT: contract, BAWA_SEED_DIR: join(dir, "mock-data"), CI: "1" };
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, args, { cwd: PROJECT_ROOT, env });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.on("close", (code) => done({ code: code ?? 1, out }));
  });
}

describe("the project's tests on a contract a team added a resource to", () => {
  it("the tests that name resources pass on it, unchanged", async () => {
    const vitest = resolve(PROJECT_ROOT, "node_modules/vitest/vitest.mjs");
    const { code, out } = await run([vitest, "run", "--maxWorkers", "1", ...AFFECTED]);
    expect(code, out.slice(-4000)).toBe(0);
    // vitest colours its summary even in a pipe: its escapes are read past.
    const plain = out.replaceAll(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g"), "");
    expect(plain).toMatch(new RegExp(`Test Files\\s+${AFFECTED.length} passed`));
  }, 300_000);
});
