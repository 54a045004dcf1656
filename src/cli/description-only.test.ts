// An implementation of what the description shows and nothing else (the
// customer, the OAuth endpoints; no AdministrationInfoList, a resource our
// contract adds on an assumption) passes the suite's default run: spec and
// oauth rules, nothing failed. The mock on a copy of the contract without that
// resource stands in for it; the suite checks it with the contract in use (the
// project's, or a team's in BAWA_CONTRACT, with the seed in BAWA_SEED_DIR).
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { parseDocument } from "yaml";
import { CONTRACT_PATH } from "../contract/index.ts";
import { backgroundTokens } from "../mock/node/client.ts";
import { DEFAULT_SEED_DIR } from "../mock/seed.ts";
import { spawnMock } from "../mock/testing.ts";
import { ownMockSettings } from "./conformance.ts";
import { runBawa } from "./conformance-testing.ts";

const dir = mkdtempSync(join(tmpdir(), "bawa-description-only-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("passes spec and oauth with nothing failed, and leaves the assumed resource unselected", async () => {
  // The contract's paths that rest on A-ADMINISTRATIONS, and their seed, removed.
  const doc = parseDocument(readFileSync(CONTRACT_PATH, "utf8"));
  const assumed = Object.entries(doc.toJS({ maxAliasCount: 1000 }).paths as Record<string, Record<string, unknown>>)
    .filter(([, item]) => item["x-assumption"] === "A-ADMINISTRATIONS")
    .map(([path]) => path);
  expect(assumed).toEqual(["/api/AdministrationInfoList"]);
  for (const path of assumed) doc.deleteIn(["paths", path]);
  const contract = join(dir, "openapi.yaml");
  writeFileSync(contract, doc.toString());
  const seed = join(dir, "mock-data");
  cpSync(DEFAULT_SEED_DIR, seed, { recursive: true });
  rmSync(join(seed, "AdministrationInfo.json"));

  const mock = await spawnMock(["--contract", contract, "--seed", seed]);
  try {
    const settings = ownMockSettings(mock.url, (await backgroundTokens(mock.url)).refresh);
    // The default run of a team: spec and oauth, against the contract in use.
    const { code, out } = await runBawa(["--output", "reports"], {
      cwd: dir,
      env: { ...settings, CONFORMANCE_KINDS: "spec,oauth" },
    });
    const summary = JSON.parse(readFileSync(join(dir, "reports/summary.json"), "utf8")) as {
      verdict: string;
      requirements: Array<{ row: string; verdict: string }>;
    };
    const failed = summary.requirements.filter((r) => r.verdict === "failed").map((r) => r.row);
    expect(failed, out.slice(-3000)).toEqual([]);
    expect(code, out.slice(-2000)).toBe(0);
    const administrations = summary.requirements.filter((r) => r.row.endsWith("· AdministrationInfoList"));
    expect(administrations.length).toBeGreaterThan(0);
    expect(administrations.every((r) => r.verdict === "not selected")).toBe(true);
  } finally {
    mock.child.kill();
  }
}, 180_000);
