// Where a setting of `bawa conformance` can be given (a flag, a variable, the config file) and
// which wins: the settings the run hands to Playwright, read without starting one.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  ConfigError,
  configTargets,
  loadTarget,
  RUN_SETTINGS,
  readSettings,
  VARIABLES,
} from "../../conformance/lib/config.ts";
import { runSettings, suiteColour } from "./conformance.ts";
import { runBawa } from "./conformance-testing.ts";
import { UsageError } from "./options.ts";

const dir = mkdtempSync(join(tmpdir(), "bawa-settings-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A config file of these lines, in a file of its own. */
let files = 0;
function configFile(text: string): string {
  const file = join(dir, `${files++}.yaml`);
  writeFileSync(file, text);
  return file;
}

const keyOf = (variable: string) => variable.replace(/^CONFORMANCE_/, "");

describe("bawa conformance settings", () => {
  // Every setting of --help, walked from its table: one left out of the run's environment would
  // be shown in the first line or the help and then not used (CONTRACT, STRICT, KINDS, REPORTS_DIR,
  // WORKERS and BASE_URL were, given in the file).
  it.each(VARIABLES.map(([name]) => name).filter((name) => name !== "CONFORMANCE_CONFIG"))(
    "%s in the config file reaches the run as the variable does",
    (name) => {
      const value = `from-${keyOf(name).toLowerCase()}`;
      const file = configFile(`${keyOf(name)}: ${value}\n`);
      const fromFile = runSettings({}, { CONFORMANCE_CONFIG: file }).env;
      const fromVariable = runSettings({}, { [name]: value }).env;
      expect(fromFile[name]).toBeDefined();
      expect(fromFile[name]).toBe(fromVariable[name]);
      expect(fromFile).toEqual({ ...fromVariable, CONFORMANCE_CONFIG: file });
    },
  );

  it("a flag wins over its variable, the variable over the file, and a message names the one used", () => {
    const file = configFile("WORKERS: 3\nCONTRACT: file.yaml\nSTRICT: 0\nDATABASE: FILEDB\n");
    const s = runSettings(
      { workers: "2", strict: true },
      { CONFORMANCE_CONFIG: file, CONFORMANCE_CONTRACT: "env.yaml", CONFORMANCE_STRICT: "0" },
    );
    expect(s.env).toMatchObject({
      CONFORMANCE_WORKERS: "2",
      CONFORMANCE_CONTRACT: "env.yaml",
      CONFORMANCE_STRICT: "1",
      CONFORMANCE_DATABASE: "FILEDB",
    });
    expect(s.written("CONFORMANCE_WORKERS")).toBe("--workers 2");
    expect(s.written("CONFORMANCE_STRICT")).toBe("--strict");
    expect(s.written("CONFORMANCE_CONTRACT")).toBe("CONFORMANCE_CONTRACT=env.yaml");
    expect(s.written("CONFORMANCE_DATABASE")).toBe(`DATABASE: FILEDB in ${file}`);
  });

  it("an empty variable does not hide the file's value: a CI template's empty STRICT leaves the run strict", () => {
    const file = configFile("STRICT: 1\nDATABASE: FILEDB\n");
    const s = runSettings({}, { CONFORMANCE_CONFIG: file, CONFORMANCE_STRICT: "", CONFORMANCE_DATABASE: "ENVDB" });
    expect(s.env).toMatchObject({ CONFORMANCE_STRICT: "1", CONFORMANCE_DATABASE: "ENVDB" });
    expect(s.written("CONFORMANCE_STRICT")).toBe(`STRICT: 1 in ${file}`);
    // As every reader of the settings sees it (a check's target, the redaction of the run's secrets).
    expect(readSettings({ CONFORMANCE_CONFIG: file, CONFORMANCE_STRICT: "" }).STRICT).toBe("1");
  });

  it("reads a file's paths, as a variable's, from the current directory", () => {
    const file = configFile("REPORTS_DIR: out/conformance\n");
    expect(runSettings({}, { CONFORMANCE_CONFIG: file }).env.CONFORMANCE_REPORTS_DIR).toBe(resolve("out/conformance"));
  });

  it("reads YAML's booleans, numbers and lists as the variable's text", () => {
    const file = configFile("STRICT: true\nWORKERS: 2\nKINDS: [spec, oauth, assumption]\n");
    expect(runSettings({}, { CONFORMANCE_CONFIG: file }).env).toMatchObject({
      CONFORMANCE_STRICT: "true",
      CONFORMANCE_WORKERS: "2",
      CONFORMANCE_KINDS: "spec,oauth,assumption",
    });
  });

  it.each([
    [
      "CONFIG: other.yaml\n",
      "CONFIG can not be given in a config file: CONFORMANCE_CONFIG or --config names the one file",
    ],
    ["BASE_URL: { url: https://x.invalid }\n", "BASE_URL must be one value (a word, a number, a list), not a mapping"],
  ])("refuses %j, naming the key, rather than ignore it", (text, message) => {
    const file = configFile(text);
    expect(() => runSettings({}, { CONFORMANCE_CONFIG: file })).toThrow(UsageError);
    expect(() => runSettings({}, { CONFORMANCE_CONFIG: file })).toThrow(`CONFORMANCE_CONFIG ${file}: ${message}`);
  });

  // A target of a file has settings of its own, each read where that target's checks run; one the
  // run reads once for all targets would be taken and then not used.
  const perTarget = VARIABLES.map(([name]) => name).filter((n) => n !== "CONFORMANCE_CONFIG" && !(n in RUN_SETTINGS));

  it.each(perTarget)("%s under a target of the file is that target's own", (name) => {
    const value = `from-${keyOf(name).toLowerCase()}`;
    const file = configFile(`targets:\n  test:\n    ${keyOf(name)}: ${value}\n`);
    expect(configTargets({ CONFORMANCE_CONFIG: file })).toEqual([{ name: "test", settings: { [name]: value } }]);
  });

  it.each(Object.keys(RUN_SETTINGS))("%s under a target of the file is refused: it is the whole run's", (name) => {
    expect(VARIABLES.map(([n]) => n)).toContain(name);
    const file = configFile(`targets:\n  test:\n    ${keyOf(name)}: x\n`);
    expect(() => configTargets({ CONFORMANCE_CONFIG: file })).toThrow(ConfigError);
    expect(() => configTargets({ CONFORMANCE_CONFIG: file })).toThrow(
      `CONFORMANCE_CONFIG ${file}: targets.test: ${keyOf(name)} is a setting of the whole run (${RUN_SETTINGS[name]}); give it at the top of the file`,
    );
  });

  it("refuses CONFIG under a target of the file, as at its top", () => {
    const file = configFile("targets:\n  test:\n    CONFIG: other.yaml\n");
    expect(() => configTargets({ CONFORMANCE_CONFIG: file })).toThrow(
      `CONFORMANCE_CONFIG ${file}: targets.test: CONFIG can not be given in a config file`,
    );
  });

  it("reads the screens' wait as the target's, refusing one that is no number of milliseconds", () => {
    const base = { CONFORMANCE_BASE_URL: "https://test.example.invalid" };
    expect(loadTarget(base).screenTimeoutMs).toBe(5000);
    expect(loadTarget({ ...base, CONFORMANCE_SCREEN_TIMEOUT_MS: "1000" }).screenTimeoutMs).toBe(1000);
    expect(() => loadTarget({ ...base, CONFORMANCE_SCREEN_TIMEOUT_MS: "5s" })).toThrow(
      'CONFORMANCE_SCREEN_TIMEOUT_MS must be a whole number from 1 to 600000, not "5s"',
    );
  });

  it("a contract that is not there is refused with exit 2, naming the setting it was given in", async () => {
    const file = configFile("CONTRACT: nosuch.yaml\n");
    const missing = resolve(dir, "nosuch.yaml");
    for (const [args, env, named] of [
      [["--contract", "nosuch.yaml"], {}, "--contract nosuch.yaml"],
      [[], { CONFORMANCE_CONTRACT: "nosuch.yaml" }, "CONFORMANCE_CONTRACT=nosuch.yaml"],
      [[], { CONFORMANCE_CONFIG: file }, `CONTRACT: nosuch.yaml in ${file}`],
    ] as const) {
      const run = await runBawa([...args], { cwd: dir, env });
      expect(run.code, run.out).toBe(2);
      expect(run.out).toContain(`bawa conformance: ${named}: there is no file ${missing}\n`);
      // BAWA_CONTRACT is bawa mock's setting: `bawa conformance` never reads it for --contract.
      expect(run.out).not.toContain("BAWA_CONTRACT");
    }
  }, 30_000);
  it("Playwright colours its output for a terminal only, unless FORCE_COLOR or NO_COLOR says", () => {
    const terminal = { terminal: true, piped: false };
    const file = { terminal: false, piped: false };
    // Our terminal behind a pipe: asked for. Its own: Playwright sees it, and decides as it does.
    expect(suiteColour({}, { terminal: true, piped: true })).toEqual({ FORCE_COLOR: "1" });
    expect(suiteColour({}, terminal)).toEqual({});
    // A file, a pipe or a CI's log, in a CI or not: none, and no escape codes in the reports either.
    expect(suiteColour({}, file)).toEqual({ FORCE_COLOR: "0" });
    expect(suiteColour({}, { terminal: false, piped: true })).toEqual({ FORCE_COLOR: "0" });
    expect(suiteColour({ CI: "1" }, file)).toEqual({ FORCE_COLOR: "0" });
    expect(suiteColour({ NO_COLOR: "1" }, { terminal: true, piped: true })).toEqual({ FORCE_COLOR: "0" });
    expect(suiteColour({ NO_COLOR: "" }, { terminal: true, piped: true })).toEqual({ FORCE_COLOR: "1" });
    // The person's own FORCE_COLOR is passed on as it is, NO_COLOR or not.
    expect(suiteColour({ FORCE_COLOR: "1", NO_COLOR: "1" }, file)).toEqual({});
    expect(suiteColour({ FORCE_COLOR: "0" }, terminal)).toEqual({});
  });
});
