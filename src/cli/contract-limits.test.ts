// A contract given to `bawa mock`, `bawa proxy` or `bawa conformance` that can
// not be used stops the command at its start with exit 2 and the node named
// (A-LIMITS, decision 0021); a pattern in it holds no one up. Each contract is
// an attacker's reproduction from issue 33.
import { type ChildProcess, execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { type JsonSchema, loadContract } from "../contract/index.ts";
import { backgroundTokens } from "../mock/node/client.ts";
import { spawnMock } from "../mock/testing.ts";
import { PROJECT_ROOT } from "../paths.ts";

const BIN = resolve(PROJECT_ROOT, "bin/bawa.js");
const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), "bawa-contract-limits-"));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

type Schemas = Record<string, JsonSchema & { properties?: Record<string, JsonSchema> }>;

/** The project's contract with its schemas edited, written where a command can be given it. */
function contractFile(name: string, edit: (schemas: Schemas) => void): string {
  const doc = structuredClone(loadContract());
  edit(doc.components.schemas as Schemas);
  const path = join(dir, name);
  // JSON is YAML too, and the shortest: a large contract stays under the size limit to reach its node.
  writeFileSync(path, name.endsWith(".json") ? JSON.stringify(doc) : stringify(doc, { aliasDuplicateObjects: false }));
  return path;
}

/** How a command that should not start ended: its exit code and what it said. */
async function refused(args: string[]): Promise<{ code: number | null; stderr: string; stdout: string }> {
  const ended = await run(process.execPath, [BIN, ...args], {
    timeout: 60_000,
    env: { ...process.env, BAWA_CONTRACT: "", CONFORMANCE_CONTRACT: "", CONFORMANCE_BASE_URL: "" },
  }).then(
    (ok) => ({ code: 0, ...ok }),
    (e: { code: number | null; stderr: string; stdout: string }) => e,
  );
  return { code: ended.code, stderr: ended.stderr, stdout: ended.stdout };
}

describe("a contract that can not be used", () => {
  it("bawa mock: 10,000 properties (22 s to start before) are refused at once, naming the schema", async () => {
    const path = contractFile("wide.yaml", (s) => {
      for (let i = 0; i < 10_000; i++) s.CustomerRequest!.properties![`Extra${i}`] = { type: "string" };
    });
    const ended = await refused(["mock", "--port", "0", "--contract", path]);
    expect(ended.code).toBe(2);
    expect(ended.stderr).toContain(
      `bawa mock: the contract ${path} can not be used: #/components/schemas/CustomerRequest/properties: 10,055 properties, more than the 1,000 one schema may declare (A-LIMITS)`,
    );
    expect(ended.stdout).not.toContain("listening");
  }, 90_000);

  it("bawa proxy: a $ref loop (which ended in 'Maximum call stack size exceeded') is named with its path", async () => {
    const path = contractFile("loop.yaml", (s) => {
      s.A = { $ref: "#/components/schemas/B" };
      s.B = { $ref: "#/components/schemas/A" };
      s.CustomerRequest!.properties!.City = { $ref: "#/components/schemas/A" };
    });
    const ended = await refused(["proxy", "--target", "http://127.0.0.1:9", "--port", "0", "--contract", path]);
    expect(ended.code).toBe(2);
    expect(ended.stderr).toContain(
      `bawa proxy: the contract ${path} can not be used: #/components/schemas/A: its $refs loop back to it without reaching a value to check: #/components/schemas/A → B → A`,
    );
    expect(ended.stderr).not.toContain("Maximum call stack");
  }, 90_000);

  it("bawa conformance: an enum too long (300,000 cost 0.4 s per wrong value) is refused at once, naming it", async () => {
    const path = contractFile("enum.json", (s) => {
      s.CustomerRequest!.properties!.CountryId = { enum: Array.from({ length: 5_000 }, (_, i) => i) };
    });
    const ended = await refused(["conformance", "--contract", path]);
    expect(ended.code).toBe(2);
    expect(ended.stderr).toContain(
      "#/components/schemas/CustomerRequest/properties/CountryId/enum: 5,000 values, more than the 1,000 one enum may list (A-LIMITS)",
    );
  }, 90_000);

  it("bawa mock: a pattern a linear-time engine can not run is refused, naming it and its place", async () => {
    const path = contractFile("lookahead.yaml", (s) => {
      s.CustomerRequest!.properties!.City = { type: ["string", "null"], pattern: "^(?!x)" };
    });
    const ended = await refused(["mock", "--port", "0", "--contract", path]);
    expect(ended.code).toBe(2);
    expect(ended.stderr).toContain(
      '#/components/schemas/CustomerRequest/properties/City/pattern: the pattern "^(?!x)" can not be used: a linear-time engine can not run it',
    );
  }, 90_000);

  it.each([
    [
      "a type misspelt",
      (s: Schemas) => {
        s.Unused = { type: "strnig" };
      },
      "#/components/schemas/Unused: does not compile: ",
    ],
    [
      "a required property it does not declare",
      (s: Schemas) => {
        (s.CustomerRequest!.required as string[]).push("Owner");
      },
      "#/components/schemas/CustomerRequest: does not compile: ",
    ],
  ])(
    "bawa mock: a schema with %s stops the start with exit 2 naming it, before the mock says it listens",
    async (name, edit, message) => {
      const path = contractFile(`${name.replaceAll(" ", "-")}.yaml`, edit);
      const failed = await run(process.execPath, [BIN, "mock", "--port", "0", "--contract", path]).then(
        () => undefined,
        (e: { code: number; stdout: string; stderr: string }) => e,
      );
      expect(failed?.code).toBe(2);
      expect(failed?.stderr).toContain(`can not be used: ${message}`);
      expect(failed?.stdout).not.toContain("listening");
    },
    90_000,
  );
});

describe("a pattern of the contract", () => {
  it("^(a+)+$ holds the mock up no longer than any other check (30 characters held it 12 s)", async () => {
    const path = contractFile("evil.yaml", (s) => {
      s.CustomerRequest!.properties!.City = { type: ["string", "null"], default: null, pattern: "^(a+)+$" };
    });
    const { child, url } = await spawnMock(["--contract", path]);
    children.push(child);
    const { access } = await backgroundTokens(url);
    const post = (City: string) =>
      fetch(`${url}/v1/api/DEMO/Customer`, {
        method: "POST",
        headers: { authorization: `Bearer ${access}`, "content-type": "application/json" },
        body: JSON.stringify({ Name: "Evil", City }),
        // A backtracking engine would not answer 100 characters before the universe ends.
        signal: AbortSignal.timeout(20_000),
      });
    const refusedPost = await post(`${"a".repeat(100)}!`);
    expect(refusedPost.status).toBe(400);
    expect(await refusedPost.json()).toMatchObject({ ModelState: { "customer.City": ["City must match ^(a+)+$"] } });
    expect((await post("a".repeat(100))).status).toBe(200);
  }, 90_000);
});
