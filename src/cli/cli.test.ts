// The command line as a user runs it: separate processes, a real port.
import { type ChildProcess, execFile } from "node:child_process";
import { mkdtempSync, rmSync, statSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { refreshForm } from "../mock/node/client.ts";
import { DEMO_APP, portalPostHttp, spawnMock } from "../mock/testing.ts";
import { PROJECT_ROOT } from "../paths.ts";

const BIN = resolve(PROJECT_ROOT, "bin/bawa.js");
const CLI = resolve(PROJECT_ROOT, "dist/src/cli");

/**
 * Runs `body` (an ECMAScript module's code) in a fresh Node.js and answers what it print()s, where
 * `await loaded()` is every module file loaded so far: CommonJS ones from require's cache, and
 * those of ECMAScript as the loader resolved them (a resolve hook), since a package of ECMAScript
 * modules (fast-xml-parser's import build, re2js) never enters require's cache.
 */
async function modulesLoaded<T>(body: string): Promise<T> {
  const hook = `let port;
export function initialize(data) { port = data.port; }
export async function resolve(specifier, context, next) { const r = await next(specifier, context); port.postMessage(r.url); return r; }`;
  const script = `import { createRequire, register } from "node:module";
import { fileURLToPath } from "node:url";
import { MessageChannel } from "node:worker_threads";
const resolved = new Set();
const { port1, port2 } = new MessageChannel();
port1.on("message", (url) => resolved.add(url));
port1.unref();
register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hook)}`)}, import.meta.url, { data: { port: port2 }, transferList: [port2] });
const loaded = async () => {
  // The hook posts from the loader's thread as it resolves: a timer lets every message in.
  await new Promise((r) => setTimeout(r, 100));
  const esm = [...resolved].filter((u) => u.startsWith("file:")).map((u) => fileURLToPath(u));
  return [...new Set([...Object.keys(createRequire(import.meta.url).cache), ...esm])];
};
const print = (o) => console.log(JSON.stringify(o));
${body}`;
  const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", script]);
  return JSON.parse(stdout) as T;
}

/** The packages loaded by importing these commands' modules (dist/src/cli/<name>.js), in one process. */
async function packagesOfCommands(commands: string[]): Promise<string[]> {
  const { files } = await modulesLoaded<{ files: string[] }>(
    `for (const m of ${JSON.stringify(commands)}) await import(${JSON.stringify(CLI)} + "/" + m + ".js");
print({ files: await loaded() });`,
  );
  return packagesIn(files);
}

/** The packages of node_modules that files belong to ("@scope/name" or "name"), once each, sorted. */
const packagesIn = (files: string[]): string[] =>
  [
    ...new Set(
      files.flatMap((f) => {
        const m = /[\\/]node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)/.exec(f);
        return m ? [m[1]!.replace("\\", "/")] : [];
      }),
    ),
  ].sort();
const run = promisify(execFile);
const bawa = (...args: string[]) => run(process.execPath, [BIN, ...args], { timeout: 30_000 });

let mock: ChildProcess;
let url: string;

beforeAll(async () => {
  ({ child: mock, url } = await spawnMock());
}, 30_000);
afterAll(() => {
  if (mock.exitCode === null) mock.kill("SIGKILL");
});

describe("bawa", () => {
  it("loads no test runner when the mock or the proxy starts: Playwright alone cost the mock's start 0.26 s", async () => {
    // bawa imports a command's module when it runs; a check helper reached from the proxy once
    // brought @playwright/test into `bawa mock`'s start.
    const packages = await packagesOfCommands(["bawa", "mock", "proxy"]);
    // The mock's linear-time patterns are an ECMAScript package: seen, so such packages are.
    expect(packages).toContain("re2js");
    expect(packages.filter((p) => /^(playwright|playwright-core|@playwright\/|vitest|fast-check)/.test(p))).toEqual([]);
  });

  it("loads no contract compiler for a run against a target, a usage or the operator's commands (0.2 s each)", async () => {
    // Ajv, the contract's compiler, stands for the mock's and the contract's code: bawa conformance
    // against a target hands the contract to the suite's processes, and npm test starts ~60 runs.
    const packages = await packagesOfCommands(["bawa", "conformance", "operator"]);
    expect(packages.filter((p) => /^(ajv|ajv-formats|fast-xml-parser|re2js)$/.test(p))).toEqual([]);
  });

  it("starts a mock without loading the XML parser, the $filter parser or Ajv's compiler until used", async () => {
    // Each loaded when first needed (an XML body, a $filter, a schema the build did not keep):
    // together about 100 ms of every mock's start. Reading one XML body then loads its parser.
    const parts = (files: string[]) =>
      [
        ...new Set([
          ...packagesIn(files).filter((p) => p === "fast-xml-parser" || p === "odata-v4-parser"),
          ...files.filter((f) => /[\\/]ajv[\\/]dist[\\/](2020|core)\.js$/.test(f)).map(() => "Ajv's compiler"),
        ]),
      ].sort();
    const loaded = await modulesLoaded<{
      atStart: string[];
      afterXml: string[];
    }>(`const { buildMock } = await import(${JSON.stringify(resolve(PROJECT_ROOT, "dist/src/mock/index.js"))});
const { contractInUse, warmContract } = await import(${JSON.stringify(resolve(PROJECT_ROOT, "dist/src/contract/index.js"))});
buildMock();
warmContract(contractInUse());
const atStart = await loaded();
try { contractInUse().xml.parse("Customer", "<Customer/>"); } catch {}
print({ atStart, afterXml: await loaded() });`);
    expect(parts(loaded.atStart)).toEqual([]);
    expect(parts(loaded.afterXml)).toEqual(["fast-xml-parser"]);
  });

  it("a background application: generated refresh token, then the customer lifecycle in JSON and XML", async () => {
    const { stdout } = await bawa(
      "refresh-token",
      "--client",
      DEMO_APP.clientId,
      "--secret",
      DEMO_APP.clientSecret,
      "--url",
      url,
    );
    const refreshToken = stdout.trim();
    expect(refreshToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const tokenRes = await fetch(`${url}/v1/OAuth/Token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: refreshForm(refreshToken),
    });
    const { access_token } = (await tokenRes.json()) as { access_token: string };
    const auth = { authorization: `Bearer ${access_token}` };

    const created = (await (
      await fetch(`${url}/v1/api/DEMO/Customer`, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify({ CustomerId: "", Name: "Loodgieter Lek B.V.", City: "Leiden" }),
      })
    ).json()) as { CustomerId: string };
    const xml = await (
      await fetch(`${url}/V1/api/DEMO/Customer/${created.CustomerId}`, {
        headers: { ...auth, accept: "application/xml" },
      })
    ).text();
    expect(xml).toContain("<Name>Loodgieter Lek B.V.</Name>");
    const changed = await fetch(`${url}/v1/api/DEMO/Customer/${created.CustomerId}`, {
      method: "PUT",
      headers: { ...auth, "content-type": "application/xml" },
      body: xml.replace("<City>Leiden</City>", "<City>Katwijk</City>"),
    });
    expect(changed.status).toBe(200);
    expect(((await changed.json()) as { City: string }).City).toBe("Katwijk");
    expect(
      (await fetch(`${url}/v1/api/DEMO/Customer/${created.CustomerId}`, { method: "DELETE", headers: auth })).status,
    ).toBe(200);
    expect((await fetch(`${url}/v1/api/DEMO/Customer/${created.CustomerId}`, { headers: auth })).status).toBe(404);
  }, 60_000);

  it("activate: the operator activates an application registered in the portal", async () => {
    const registered = await portalPostHttp(url, "/portal", "/portal/applications", {
      name: "Kassa",
      redirect_uri: "http://localhost:9000/cb",
    });
    const clientId = registered.headers.get("location")!.split("/").pop()!;
    const { stdout } = await bawa("activate", clientId, "--url", url);
    expect(stdout).toContain(`${clientId} is Actief`);
    expect(stdout).toMatch(/client_secret=\S{20,}/);
    const failure = await bawa("activate", "nobody", "--base-url", url).catch((e) => e);
    expect(failure.code).toBe(1);
    expect(failure.stderr).toContain("No application is registered with client_id nobody");
  }, 60_000);

  it("says what is wrong with the command line and exits 2", async () => {
    for (const args of [
      [],
      ["nope"],
      ["constructor"],
      ["__proto__"],
      ["mock", "--port", "x"],
      ["mock", "--versions", "one"],
      ["refresh-token"],
      ["mock", "--frob"],
    ]) {
      const failure = await bawa(...args).catch((e) => e);
      expect(failure.code, args.join(" ")).toBe(2);
      expect(failure.stderr, args.join(" ")).toMatch(/^bawa/);
    }
    // Names that only Object.prototype knows are no rules: named, with the usage, never a TypeError.
    for (const rule of ["constructor=1", "__proto__=1", "toString=true"]) {
      const failure = await bawa("mock", "--port", "0", "--rules", rule).catch((e) => e);
      expect(failure.code, rule).toBe(2);
      expect(failure.stderr, rule).toMatch(
        new RegExp(`^bawa mock: --rules: There is no rule ${rule.split("=")[0]}; the rules are: requireActiveClient`),
      );
      expect(failure.stderr, rule).toContain("usage: bawa mock");
    }
  }, 60_000);

  it("a mock the tests start that does not listen fails the test with what it said", async () => {
    const failure = await spawnMock(["--rules", "constructor=1"]).catch((e: Error) => e);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toMatch(/^mock exited with 2 before listening:\n/);
    expect((failure as Error).message).toContain("bawa mock: --rules: There is no rule constructor");
  }, 30_000);

  it("says in a checkout when the build is older than a source, and names the source", async () => {
    const file = resolve(PROJECT_ROOT, "src/mock/core/limits.ts");
    const { atime, mtime } = statSync(file);
    try {
      utimesSync(file, atime, new Date(Date.now() + 3_600_000));
      const { stderr } = await bawa("mock", "--list-faults");
      expect(stderr).toContain("bawa: the build (dist/) is older than src/mock/core/limits.ts");
      expect(stderr).toContain("run `npm run build` first");
    } finally {
      utimesSync(file, atime, mtime);
    }
    expect((await bawa("mock", "--list-faults")).stderr).toBe("");
  }, 30_000);

  it("names a mistyped option in its own words, with the usage", async () => {
    for (const [args, message] of [
      [["activate", "foo", "--base-url"], "bawa activate: --base-url needs a value"],
      [["conformance", "--baseurl", "x"], "bawa conformance: unknown option --baseurl; did you mean --base-url?"],
      [["mock", "extra"], 'bawa mock: this command takes no argument (got "extra")'],
      [["mock", "--seed", "no-such-seed"], "bawa mock: --seed (BAWA_SEED_DIR): there is no folder "],
      [["conformance", "--refresh-token", "--grep", "x"], "bawa conformance: --refresh-token needs a value"],
      // A mistyped option after it is not taken as the value: it would have been the token.
      [["conformance", "--refresh-token", "--gerp", "x"], "bawa conformance: --refresh-token needs a value"],
    ] as const) {
      const failure = await bawa(...args).catch((e) => e);
      expect(failure.code, args.join(" ")).toBe(2);
      expect(failure.stderr, args.join(" ")).toContain(message);
      expect(failure.stderr, args.join(" ")).not.toContain("positional argument");
      expect(failure.stderr, args.join(" ")).toContain(`usage: bawa ${args[0]}`);
    }
  }, 30_000);

  it("names the option of an address it can not listen on, exit 1", async () => {
    const failure = await bawa("mock", "--host", "999.1.1.1", "--port", "0", "--quiet").catch((e) => e);
    expect(failure.code).toBe(1);
    expect(failure.stderr).toContain(
      "bawa mock: cannot listen on 999.1.1.1: no address or host name that resolves (--host, BAWA_HOST)",
    );
  }, 30_000);

  it("takes a value that begins with a dash: one refresh token in 64 does", async () => {
    // Parsed, the value reaches the command, which names it; before, parseArgs called it
    // ambiguous and bawa said "--refresh-token takes no value" (a CI run of test:package failed so).
    for (const [args, message] of [
      [["conformance", "--refresh-token", "-Xa9_tok", "--workers", "x"], "bawa conformance: --workers x: must be"],
      [["mock", "--port", "-1"], 'must be a port number 0-65535, not "-1"'],
    ] as const) {
      const failure = await bawa(...args).catch((e) => e);
      expect(failure.code, args.join(" ")).toBe(2);
      expect(failure.stderr, args.join(" ")).toContain(message);
    }
  }, 30_000);

  it("bawa conformance --help says one thing of --workers on the own mock, and the command does it", async () => {
    const { stdout } = await bawa("conformance", "--help");
    const flag = /^ {2}--workers <n> +CONFORMANCE_WORKERS: (.+)$/m.exec(stdout)?.[1];
    const setting = /^ {2}CONFORMANCE_WORKERS +(.+)$/m.exec(stdout)?.[1];
    expect(flag, stdout).toBeDefined();
    expect(flag).toBe(setting);
    expect(setting).toContain("the own mock: one mock per worker, 1 to 8");
    const own = { ...process.env, CONFORMANCE_BASE_URL: "", CONFORMANCE_CONFIG: "" };
    for (const env of [{}, { CONFORMANCE_WORKERS: "9" }]) {
      const args = "CONFORMANCE_WORKERS" in env ? [] : ["--workers", "9"];
      const failure = await run(process.execPath, [BIN, "conformance", ...args], {
        timeout: 30_000,
        env: { ...own, ...env },
      }).catch((e) => e);
      expect(failure.code, JSON.stringify(env)).toBe(2);
      // The setting named as it was given: the flag, or the variable.
      expect(failure.stderr).toContain(
        `${"CONFORMANCE_WORKERS" in env ? "CONFORMANCE_WORKERS=9" : "--workers 9"}: the own mock runs one mock per worker, 1 to 8 of them`,
      );
    }
    // Two workers, two mocks: each worker checks its own.
    const dir = mkdtempSync(join(tmpdir(), "bawa-workers-"));
    try {
      const two = await run(
        process.execPath,
        [BIN, "conformance", "--workers", "2", "--grep", "VER-PATH|ERR-4-TOKEN"],
        {
          timeout: 60_000,
          cwd: dir,
          env: own,
        },
      );
      const mocks = /checking the project's own mock at (\S+) and (\S+) \(one per worker, 2 workers\)/.exec(two.stdout);
      expect(mocks, two.stdout).not.toBeNull();
      expect(mocks![1]).not.toBe(mocks![2]);
      expect(two.stdout).toContain("Verdict: PASSED");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);

  it("refuses a port in use with exit 1 and a hint", async () => {
    const failure = await bawa("mock", "--port", new URL(url).port).catch((e) => e);
    expect(failure.code).toBe(1);
    expect(failure.stderr).toMatch(/is in use; pick another with --port or BAWA_PORT/);
  }, 30_000);

  it("stops cleanly on SIGTERM", async () => {
    mock.kill("SIGTERM");
    const code = await new Promise((done) => mock.on("exit", done));
    expect(code).toBe(0);
  }, 30_000);
});
