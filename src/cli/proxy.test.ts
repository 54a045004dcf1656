// `bawa proxy` as a user runs it: a process in front of a running mock, the
// answers it judged, and the report it writes when it stops.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contractInUse } from "../contract/index.ts";
import { backgroundTokens } from "../mock/node/client.ts";
import { spawnMock } from "../mock/testing.ts";
import { PROJECT_ROOT } from "../paths.ts";
import { serveOnLoopback } from "../proxy/testing.ts";
import { type CoverageReport, declaredOperations } from "../rules/coverage.ts";

const BIN = resolve(PROJECT_ROOT, "bin/bawa.js");
const customer = (
  JSON.parse(readFileSync(resolve(PROJECT_ROOT, "mock-data/Customer/DEMO.json"), "utf8")) as Array<
    Record<string, unknown>
  >
)[0]!;
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
    const { child, proxy, output } = await spawnProxy(url, reports);
    const { access } = await backgroundTokens(proxy);
    expect(
      (await fetch(`${proxy}/v1/api/DEMO/Customer/1001`, { headers: { authorization: `Bearer ${access}` } })).status,
    ).toBe(200);
    const exited = new Promise<number | null>((done) => child.on("exit", done));
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    const out = output();
    expect(out).toContain("✗ TOKEN-RESPONSE body.expires_in: expected 7200, found 3600");
    expect(out).toMatch(/bawa proxy stopped: 3 exchanges, 1 broke a rule \(TOKEN-RESPONSE ×1\)/);
    const report = JSON.parse(readFileSync(join(reports, "violations.json"), "utf8"));
    expect(report.requirements.map((r: { id: string; count: number }) => [r.id, r.count])).toEqual([
      ["TOKEN-RESPONSE", 1],
    ]);
    expect(readFileSync(join(reports, "violations.md"), "utf8")).toContain("| TOKEN-RESPONSE | spec |");
    // The coverage of its traffic: the token grant and the read it passed were exercised, the
    // rest of the contract's operations (derived from it, not listed here) never were.
    const coverage = JSON.parse(readFileSync(join(reports, "coverage.json"), "utf8")) as CoverageReport;
    const declared = declaredOperations(contractInUse().doc);
    expect(coverage.operations.map((o) => o.key).sort()).toEqual(declared.map((o) => o.key).sort());
    const exercised = coverage.operations.filter((o) => o.exchanges > 0);
    expect(exercised.map((o) => [o.method, o.path, o.seen.statuses]).sort()).toEqual([
      ["GET", "/api/{database_id}/Customer/{customer_id}", ["200"]],
      ["POST", "/OAuth/Token", ["200"]],
    ]);
    expect(coverage.operations.slice(0, declared.length - 2).every((o) => o.exchanges === 0)).toBe(true);
    expect(readFileSync(join(reports, "violations.md"), "utf8")).toMatch(
      new RegExp(`## Contract coverage of the traffic\n\nOperations exercised: 2 of ${declared.length};`),
    );
  }, 30_000);
});

/** `bawa proxy` in front of `target`, writing its report to `dir`; its output so far. */
async function spawnProxy(target: string, dir: string) {
  const child = spawn(process.execPath, [BIN, "proxy", "--target", target, "--port", "0", "--report", dir], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stderr.on("data", (d) => (out += d));
  const proxy = await new Promise<string>((done, fail) => {
    child.stdout.on("data", (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+),/.exec(out);
      if (m) done(m[1]!);
    });
    child.on("exit", (code) => fail(new Error(`proxy exited with ${code}: ${out}`)));
  });
  return { child, proxy, output: () => out };
}

describe("what bawa proxy writes", () => {
  it("never shows a token, code or password of a query or fragment, nor a target's markup as markup", async () => {
    const secret = (name: string) => `${name}-${randomBytes(12).toString("hex")}`;
    const implicit = [secret("implicit"), secret("implicit")];
    const password = secret("password");
    const queryToken = secret("query-token");
    const code = secret("code");
    // A target whose answers break the rules that quote a redirect, and a customer with markup in a date.
    const target = createServer((req, res) => {
      const u = new URL(req.url ?? "/", "http://t.invalid");
      if (u.pathname === "/v1/OAuth/Authorize") {
        const token = u.searchParams.get("response_type") === "token" ? implicit[0] : implicit[1];
        const back = `${u.searchParams.get("redirect_uri")}#access_token=${token}&token_type=bearer&expires_in=7200&scope=api&state=${u.searchParams.get("state")}&code=${code}`;
        res.writeHead(302, { location: back }).end();
      } else if (u.pathname === "/v1/api/DEMO/Customer/1001") {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ ...customer, CocDate: "<script>alert(1)</script>" }));
      } else {
        res.writeHead(200, { "content-type": "text/html" }).end("<p>ok</p>");
      }
    });
    const base = await serveOnLoopback(target);
    const dir = mkdtempSync(join(tmpdir(), "bawa-proxy-redacted-"));
    try {
      const { child, proxy, output } = await spawnProxy(base, dir);
      const authorize = (params: Record<string, string>) =>
        fetch(`${proxy}/v1/OAuth/Authorize?${new URLSearchParams(params)}`, { redirect: "manual" });
      const client = { client_id: "c", redirect_uri: "http://app.test/cb", state: "s" };
      // The token flow without scope (AUTHZ-PARAMS-REQUIRED), then in full, then an unsupported
      // response_type answered with a token instead of an error (OAUTH-ERROR-REDIRECT).
      await authorize({ ...client, response_type: "token" });
      await authorize({ ...client, response_type: "token", scope: "api" });
      await authorize({ ...client, response_type: "bogus", scope: "api" });
      await fetch(`${proxy}/v1/OAuth/Login?username=erin&password=${password}`);
      await fetch(`${proxy}/v1/api/DEMO/CustomerInfoList?access_token=${queryToken}`);
      await fetch(`${proxy}/v1/api/DEMO/Customer/1001`, { headers: { authorization: "Bearer t" } });
      const requests = await (await fetch(`${proxy}/__mock/requests`)).text();
      const exited = new Promise<number | null>((done) => child.on("exit", done));
      child.kill("SIGTERM");
      expect(await exited).toBe(0);
      const written = {
        stdout: output(),
        requests,
        json: readFileSync(join(dir, "violations.json"), "utf8"),
        md: readFileSync(join(dir, "violations.md"), "utf8"),
      };
      const report = JSON.parse(written.json) as { requirements: Array<{ id: string }> };
      expect(report.requirements.map((r) => r.id)).toEqual(
        expect.arrayContaining(["AUTHZ-PARAMS-REQUIRED", "OAUTH-ERROR-REDIRECT", "CUST-DATES"]),
      );
      for (const [where, text] of Object.entries(written)) {
        for (const s of [...implicit, password, queryToken, code]) expect(text, `${s} in ${where}`).not.toContain(s);
      }
      // The rules quote a redirect without its query or fragment: where it went, not what it carried.
      expect(written.stdout).toContain("found 302 to http://app.test/cb\n");
      expect(written.stdout).toContain("/v1/OAuth/Login?username=erin&password=[redacted]");
      // Markup of the target's is written as text: every < escaped.
      expect(written.md).not.toMatch(/(^|[^\\])<script/im);
      expect(written.md).toContain("\\<script\\>alert(1)\\</script\\>");
    } finally {
      target.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
