// What the runner and the command line take out of what they print: the secrets the workers
// learned, read from the run's file as it grows (a worker may be writing a line as it is read).
import { appendFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { MARK } from "../../src/rules/redact.ts";
import { RunSecrets } from "./secrets.ts";

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
