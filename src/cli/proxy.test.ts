// `bawa proxy` as a user runs it: a process in front of a running mock, the
// answers it judged, and the report it writes when it stops.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backgroundTokens } from "../mock/node/client.ts";
import { spawnMock } from "../mock/testing.ts";
import { PROJECT_ROOT } from "../paths.ts";

const BIN = resolve(PROJECT_ROOT, "bin/bawa.js");
const run = promisify(execFile);
let mock: ChildProcess;
let url: string;
const reports = mkdtempSync(join(tmpdir(), "bawa-proxy-report-"));

beforeAll(async () => {
  ({ child: mock, url } = await spawnMock(["--faults", "expires-in-3600"]));
}, 30_000);
afterAll(() => {
  if (mock.exitCode === null) mock.kill("SIGKILL");
  rmSync(reports, { recursive: true, force: true });
});

describe("bawa proxy", () => {
  it.each([
    [[], /--target \(BAWA_PROXY_TARGET\) is required/],
    [["--target", "ftp://x.example"], /--target must be an http or https URL/],
    [["--target", "https://test.example.com/v221"], /without the version segment \(https:\/\/test\.example\.com\)/],
  ])("refuses %j with exit 2, naming the problem", async (args, message) => {
    const failed = await run(process.execPath, [BIN, "proxy", ...args], {
      env: { ...process.env, BAWA_PROXY_TARGET: "" },
    }).catch((e: { code: number; stderr: string }) => e);
    expect(failed).toMatchObject({ code: 2 });
    expect((failed as { stderr: string }).stderr).toMatch(message);
  });

  it("judges what passes, prints it, and writes the report grouped by requirement when it stops", async () => {
    const child = spawn(process.execPath, [BIN, "proxy", "--target", url, "--port", "0", "--report", reports], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    const proxy = await new Promise<string>((done, fail) => {
      child.stdout.on("data", (d) => {
        out += d;
        const m = /listening on (http:\/\/\S+),/.exec(out);
        if (m) done(m[1]!);
      });
      child.on("exit", (code) => fail(new Error(`proxy exited with ${code}: ${out}`)));
    });
    const { access } = await backgroundTokens(proxy);
    expect(
      (await fetch(`${proxy}/v1/api/DEMO/Customer/1001`, { headers: { authorization: `Bearer ${access}` } })).status,
    ).toBe(200);
    const exited = new Promise<number | null>((done) => child.on("exit", done));
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(out).toContain("✗ TOKEN-RESPONSE body.expires_in: expected 7200, found 3600");
    expect(out).toMatch(/bawa proxy stopped: 3 exchanges, 1 broke a rule \(TOKEN-RESPONSE ×1\)/);
    const report = JSON.parse(readFileSync(join(reports, "violations.json"), "utf8"));
    expect(report.requirements.map((r: { id: string; count: number }) => [r.id, r.count])).toEqual([
      ["TOKEN-RESPONSE", 1],
    ]);
    expect(readFileSync(join(reports, "violations.md"), "utf8")).toContain("| TOKEN-RESPONSE | spec |");
  }, 30_000);
});
