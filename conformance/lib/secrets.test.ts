// What the runner and the command line take out of what they print: the secrets the workers
// learned, read from the run's file as it grows (a worker may be writing a line as it is read).
import { execFileSync } from "node:child_process";
import { appendFileSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { MARK } from "../../src/rules/redact.ts";
import { RUN_DIR_VARIABLE, RunSecrets } from "./secrets.ts";

const dir = mkdtempSync(join(tmpdir(), "bawa-run-secrets-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const learned = join(dir, "learned-secrets");
const line = (value: string) => `${JSON.stringify(value)}\n`;

describe("RunSecrets", () => {
  it("takes up each learned line once it is whole, before the file exists and after, through one open file", () => {
    const secrets = new RunSecrets(dir);
    const first = "tok_AAAAAAAAAAAAAAAA";
    const second = "tok_BBBBBBBBBBBBBBBB";
    // A secret of several bytes per character, written in two pieces split inside a character.
    const third = "géheim-wachtwoord-ë";
    expect(secrets.redact(`a ${first} b`)).toBe(`a ${first} b`);

    appendFileSync(learned, line(first) + line(second));
    expect(secrets.redact(`a ${first} b ${second}`)).toBe(`a ${MARK} b ${MARK}`);

    const bytes = Buffer.from(line(third));
    const cut = bytes.indexOf(Buffer.from("ë")) + 1;
    appendFileSync(learned, bytes.subarray(0, cut));
    expect(secrets.redact(third)).toBe(third);
    appendFileSync(learned, bytes.subarray(cut));
    expect(secrets.redact(`x ${third} y`)).toBe(`x ${MARK} y`);
    expect(secrets.redactor.redactKnown(first)).toBe(MARK);
  });

  it("a run without a folder knows its settings alone", () => {
    const secrets = new RunSecrets("");
    secrets.addSettings({ CONFORMANCE_CLIENT_SECRET: "s3cr3t-of-the-client" });
    expect(secrets.redact("s3cr3t-of-the-client")).toBe(MARK);
  });
});

describe("ensureRunDir", () => {
  // In a process of its own, as Playwright's runner loads the config: `playwright test` run
  // without `bawa conformance` (a --list, a user's own command) left its folder behind, one per run.
  const inProcess = (env: NodeJS.ProcessEnv) => {
    const temp = mkdtempSync(join(tmpdir(), "bawa-run-dir-"));
    const script = `import { ensureRunDir } from ${JSON.stringify(pathToFileURL(join(import.meta.dirname, "secrets.ts")).href)};
const dir = ensureRunDir(); process.stdout.write(dir + "\\n" + String((await import("node:fs")).existsSync(dir)));`;
    try {
      const [dir, existed] = execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
        env: { ...process.env, TMPDIR: temp, ...env },
        encoding: "utf8",
      }).split("\n");
      return { dir: dir!, existed: existed === "true", left: readdirSync(temp).filter((f) => f.startsWith("bawa-")) };
    } finally {
      rmSync(temp, { recursive: true, force: true });
    }
  };

  it("a folder it made is there while the process runs and gone when it exits", () => {
    const run = inProcess({ [RUN_DIR_VARIABLE]: "" });
    expect(run.dir).toMatch(/bawa-conformance-run-/);
    expect(run.existed).toBe(true);
    expect(run.left).toEqual([]);
    // A process with tsx: about a second, many more on a loaded machine.
  }, 60_000);

  it("a folder the environment names is its maker's: used, never removed", () => {
    const named = mkdtempSync(join(tmpdir(), "bawa-run-dir-named-"));
    try {
      const run = inProcess({ [RUN_DIR_VARIABLE]: named });
      expect(run.dir).toBe(named);
      expect(existsSync(named)).toBe(true);
    } finally {
      rmSync(named, { recursive: true, force: true });
    }
  }, 60_000);
});
