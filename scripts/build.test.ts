import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import ts from "typescript";
import { afterEach, describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../src/paths.ts";
import { BUILD_INPUTS, inputsRecord } from "./build-inputs.mjs";

describe("the build's record of its inputs (scripts/build.mjs skips tsc when it is unchanged)", () => {
  let root: string;
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  function tree() {
    root = mkdtempSync(join(tmpdir(), "bawa-build-"));
    mkdirSync(join(root, "src/cli"), { recursive: true });
    writeFileSync(join(root, "src/cli/a.ts"), "export const a = 1;\n");
    writeFileSync(join(root, "tsconfig.json"), "{}\n");
    return ["src", "tsconfig.json", "missing.json"];
  }

  it("is the same when nothing changed, and names files by their path from the root", () => {
    const paths = tree();
    const first = inputsRecord(root, paths);
    expect(inputsRecord(root, paths)).toBe(first);
    // A time moved and put back through a Date, as src/cli/cli.test.ts does with a source.
    const file = join(root, "src/cli/a.ts");
    const { atime, mtime } = statSync(file);
    utimesSync(file, atime, new Date(Date.now() + 3_600_000));
    utimesSync(file, atime, mtime);
    expect(inputsRecord(root, paths)).toBe(first);
    expect(Object.keys(JSON.parse(first))).toEqual(["src/cli/a.ts", "tsconfig.json"]);
  });

  it("differs when a file is put back with an older time, not only when one is newer", () => {
    const paths = tree();
    const first = inputsRecord(root, paths);
    const file = join(root, "src/cli/a.ts");
    const then = statSync(file).mtime;
    utimesSync(file, then, new Date(then.getTime() - 60_000));
    expect(inputsRecord(root, paths)).not.toBe(first);
  });

  it("differs when a file is added or removed", () => {
    const paths = tree();
    const first = inputsRecord(root, paths);
    writeFileSync(join(root, "src/cli/b.ts"), "");
    expect(inputsRecord(root, paths)).not.toBe(first);
    rmSync(join(root, "src/cli/b.ts"));
    expect(inputsRecord(root, paths)).toBe(first);
  });

  it("differs when a file changes size and keeps its time", () => {
    const paths = tree();
    const file = join(root, "src/cli/a.ts");
    // A whole second: the time put back after the write is then the very one recorded.
    const second = new Date(Math.floor(Date.now() / 1000) * 1000);
    utimesSync(file, second, second);
    const first = inputsRecord(root, paths);
    writeFileSync(file, "export const a = 12;\n");
    utimesSync(file, second, second);
    expect(statSync(file).mtimeMs).toBe(second.getTime());
    expect(inputsRecord(root, paths)).not.toBe(first);
  });

  it("takes in everything tsconfig.build.json compiles", () => {
    const config = ts.parseConfigFileTextToJson(
      "tsconfig.build.json",
      readFileSync(resolve(PROJECT_ROOT, "tsconfig.build.json"), "utf8"),
    ).config as { include: string[] };
    for (const included of config.include) {
      expect(BUILD_INPUTS.some((input) => included === input || included.startsWith(`${input}/`))).toBe(true);
    }
  });
});
