import { execFile } from "node:child_process";
import { copyFile, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../src/paths.ts";
import { checkTypes, DEFAULT_SPEC, DEFAULT_TYPES, generateTypes, main } from "./generate-types.ts";

/** The command run in process: its exit code and what it printed on each stream. */
async function command(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const code = await main(argv, { out: (l) => (stdout += `${l}\n`), err: (l) => (stderr += `${l}\n`) });
  return { code, stdout, stderr };
}

const run = promisify(execFile);
const SCRIPT = resolve(PROJECT_ROOT, "scripts/generate-types.ts");
const TSX = resolve(PROJECT_ROOT, "node_modules/.bin/tsx");

describe("the type drift check", () => {
  let dir: string;
  let spec: string;
  let types: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "bawa-drift-"));
    spec = join(dir, "openapi.yaml");
    types = join(dir, "openapi.ts");
    await copyFile(DEFAULT_SPEC, spec);
    await writeFile(types, await generateTypes(spec));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("passes on the committed types", async () => {
    expect(await checkTypes(DEFAULT_SPEC, DEFAULT_TYPES)).toEqual({ upToDate: true });
  });

  it("starts the generated file with a do-not-edit header", async () => {
    expect((await readFile(DEFAULT_TYPES, "utf8")).split("\n")[1]).toMatch(/Do not edit it by hand/);
  });

  it("fails, with a clear message and exit code 1, when the contract changed and the types were not regenerated", async () => {
    const changed = (await readFile(spec, "utf8")).replace(
      /( {8}ZipCode: \{[^\n]*\}\n)/,
      '$1        SalesRegion: { type: [string, "null"], default: null }\n',
    );
    expect(changed).toContain("SalesRegion");
    await writeFile(spec, changed);

    const result = await checkTypes(spec, types);
    expect(result.upToDate).toBe(false);

    // As `npm run check:types` runs it: the process's exit code is the command's.
    const failure = await run(TSX, [SCRIPT, "--check", "--spec", spec, "--out", types]).catch((e) => e);
    expect(failure.code).toBe(1);
    expect(failure.stderr).toMatch(/is not up to date with .*openapi\.yaml/);
    expect(failure.stderr).toMatch(/Run `npm run generate`/);

    // Regenerating makes the check pass again (in process from here: a tsx process costs 3-4 CPU-s).
    expect(await command("--spec", spec, "--out", types)).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/wrote .*openapi\.ts/),
    });
    expect(await checkTypes(spec, types)).toEqual({ upToDate: true });
    expect(await command("--check", "--spec", spec, "--out", types)).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/openapi\.ts is up to date/),
    });
  }, 60_000);

  it("rejects an unknown argument with exit code 2", async () => {
    const failure = await command("--frobnicate");
    expect(failure.code).toBe(2);
    expect(failure.stderr).toMatch(/Unknown option '--frobnicate'/);
    expect(failure.stderr).toMatch(/usage: generate-types/);
    expect(await command("--help")).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/usage: generate-types/),
      stderr: "",
    });
  });

  it("exits 1, naming the file, when the contract does not generate", async () => {
    const broken = join(dir, "broken.yaml");
    await writeFile(broken, "openapi: 3.1.0\npaths: [not, a, map\n");
    const failure = await command("--spec", broken, "--out", join(dir, "out.ts"));
    expect(failure.code).toBe(1);
    expect(failure.stderr).toMatch(/could not generate types from .*broken\.yaml/);
  });
});
