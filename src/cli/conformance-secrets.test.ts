// No secret leaves a conformance run: the suite runs with secrets of its own
// (client secrets, the user's password, the refresh token, the control token)
// against the mock behind an observer that notes every token, code and cookie
// the mock hands out; then every file the runs wrote (zips unpacked, base64
// decoded) and everything they printed is searched for each of them.
// A passing target and a failing one whose answers quote requests and tokens,
// each as a shard (its blob) of a run, the failing one traced, the passing one
// merged from its blob.
import { randomBytes } from "node:crypto";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { type AddressInfo, connect, createServer as createNetServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { unzipSync } from "fflate";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { loadOAuth, seedAccounts } from "../mock/seed.ts";
import { spawnMock } from "../mock/testing.ts";
import { PROJECT_ROOT } from "../paths.ts";
import { ownMockSettings } from "./conformance.ts";
import { type BawaRun, runBawa } from "./conformance-testing.ts";

const distinct = (what: string) => `${what}-${randomBytes(9).toString("hex")}`;
const SECRETS = {
  clientSecret: distinct("ClientSecret"),
  secondSecret: distinct("SecondSecret"),
  password: distinct("Passw0rd"),
  otherPassword: distinct("OtherPassw0rd"),
  controlToken: distinct("ControlToken"),
};

/**
 * A tap in front of the mock (bytes passed on as they are, both ways) that notes every secret the
 * mock hands out: tokens of token answers, codes and tokens of redirects, cookies.
 */
async function observer(target: string) {
  const issued = new Set<string>();
  const PATTERNS = [
    /"(?:access_token|refresh_token)"\s*:\s*"([^"]+)"/g,
    /[?#&](?:code|access_token|refresh_token)=([^&#\s"]+)/g,
    /\r\nset-cookie:\s*[^=\r\n]*=([^;\r\n]*)/gi,
  ];
  const upstream = new URL(target);
  const server: Server = createNetServer((client) => {
    const mock = connect(Number(upstream.port), upstream.hostname);
    let window = "";
    mock.on("data", (chunk: Buffer) => {
      // A token cut in two by a chunk boundary is whole in the window of the last 64 KiB.
      window = (window + chunk.toString("latin1")).slice(-65_536);
      for (const p of PATTERNS) {
        for (const m of window.matchAll(p)) {
          const value = decodeURIComponent(m[1]!.replace(/\+/g, " "));
          if (value.length >= 8) issued.add(value);
        }
      }
    });
    client.pipe(mock).pipe(client);
    // A body the mock refused unread (413) resets its side: what it answered still goes out whole.
    mock.on("error", () => client.end());
    client.on("error", () => mock.destroy());
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { issued, server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** Every text in `dir`: files, zip entries (nested too), data: URLs and long base64 runs decoded. */
function textsUnder(dir: string): Array<{ where: string; text: string }> {
  const out: Array<{ where: string; text: string }> = [];
  const add = (where: string, bytes: Uint8Array) => {
    if (bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 3) {
      for (const [entry, data] of Object.entries(unzipSync(bytes))) add(`${where}!${entry}`, data);
      return;
    }
    const text = Buffer.from(bytes).toString("utf8");
    out.push({ where, text });
    for (const m of text.matchAll(/[A-Za-z0-9+/]{40,}={0,2}/g)) {
      const decoded = Buffer.from(m[0], "base64");
      if (decoded[0] === 0x50 && decoded[1] === 0x4b) add(`${where}#base64`, decoded);
      else out.push({ where: `${where}#base64`, text: decoded.toString("utf8") });
    }
  };
  for (const entry of readdirSync(dir, { recursive: true, encoding: "utf8" })) {
    let bytes: Buffer;
    try {
      bytes = readFileSync(join(dir, entry));
    } catch {
      continue;
    }
    add(entry, bytes);
  }
  return out;
}

/** Where each secret was found: `secret in file: ...context...`. */
function leaks(secrets: Iterable<string>, texts: Array<{ where: string; text: string }>): string[] {
  const found: string[] = [];
  for (const s of secrets) {
    for (const { where, text } of texts) {
      const at = text.indexOf(s);
      if (at >= 0) found.push(`${s} in ${where}: …${text.slice(Math.max(0, at - 80), at + s.length + 20)}…`);
    }
  }
  return found;
}

/** What the failing run checks, and what fails there: each failure quotes what it was answered. */
const FAILING = [
  "OAUTH-TOKEN-ERRORS",
  "OAUTH-CLIENT-BASIC",
  "OAUTH-TOKEN-ENTROPY",
  "OAUTH-IMPLICIT-FRAGMENT",
  "TOK-REFRESH-PARAMS",
];

describe("no secret leaves a conformance run", () => {
  let mock: Awaited<ReturnType<typeof spawnMock>>;
  let watch: Awaited<ReturnType<typeof observer>>;
  let dir: string;
  let settings: Record<string, string>;
  let refreshToken: string;
  const runs: Record<string, BawaRun> = {};
  const control = { "content-type": "application/json", "x-bawa-control-token": SECRETS.controlToken };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "bawa-secrets-"));
    // The project's seed with secrets of its own.
    const seed = join(dir, "seed");
    cpSync(resolve(PROJECT_ROOT, "mock-data"), seed, { recursive: true });
    const oauth = parse(readFileSync(join(seed, "oauth.yaml"), "utf8"));
    const defaults = seedAccounts();
    for (const app of oauth.applications) {
      if (app.clientId === defaults.app.clientId) app.clientSecret = SECRETS.clientSecret;
      if (app.clientId === defaults.second.clientId) app.clientSecret = SECRETS.secondSecret;
    }
    for (const user of oauth.users) {
      if (user.username === defaults.user.username) user.password = SECRETS.password;
      else user.password = SECRETS.otherPassword;
    }
    writeFileSync(join(seed, "oauth.yaml"), stringify(oauth));
    const accounts = seedAccounts(loadOAuth(seed));
    mock = await spawnMock(["--seed", seed, "--control-token", SECRETS.controlToken]);
    const generated = await fetch(`${mock.url}/__mock/refresh-tokens`, {
      method: "POST",
      headers: control,
      body: JSON.stringify({ clientId: accounts.app.clientId, clientSecret: SECRETS.clientSecret }),
    });
    refreshToken = ((await generated.json()) as { refresh_token: string }).refresh_token;
    expect(refreshToken).toBeTruthy();
    watch = await observer(mock.url);
    settings = {
      ...ownMockSettings(watch.url, refreshToken, accounts),
      CONFORMANCE_CONTROL_TOKEN: SECRETS.controlToken,
    };
    const bawa = (args: string[], env: Record<string, string> = {}) =>
      runBawa(args, { cwd: dir, env: { ...settings, ...env } });

    // A passing target: the whole suite as the one shard of a sharded run (its blob written),
    // merged into a verdict of its own (a report made from the blob).
    runs.passing = await bawa(["--shard", "1/1", "--output", "pass"]);
    runs.merged = await bawa(["merge", "pass", "--output", "merged"]);

    // A failing one, traced (traces are kept of failures): token errors that redirect and show the
    // request back (the client secret, a code, Basic credentials), short tokens the entropy check
    // lists, a token in a redirect's query, token answers a check quotes whole.
    const faults = ["token-errors-echo", "short-tokens", "implicit-in-query", "refresh-grant-without-redirect-uri"];
    const turn = (on: boolean) =>
      Promise.all(
        faults.map((f) =>
          fetch(`${mock.url}/__mock/scenarios/${f}`, {
            method: "POST",
            headers: control,
            body: JSON.stringify({ on }),
          }),
        ),
      );
    for (const res of await turn(true)) expect(res.status).toBe(200);
    try {
      runs.failing = await bawa(["--grep", FAILING.join("|"), "--shard", "1/1", "--output", "fail"], {
        CONFORMANCE_TRACE: "1",
      });
    } finally {
      await turn(false);
    }
  }, 420_000);

  afterAll(() => {
    mock?.child.kill();
    watch?.server.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("the runs ran: the passing one passed, the failing one failed and kept traces", () => {
    expect(runs.passing!.code, runs.passing!.out).toBe(0);
    expect(runs.merged!.code, runs.merged!.out).toBe(0);
    for (const run of ["pass", "fail"]) expect(readdirSync(join(dir, run, "blob")).length).toBe(1);
    expect(runs.failing!.code, runs.failing!.out).toBe(1);
    const summary = JSON.parse(readFileSync(join(dir, "fail/summary.json"), "utf8")) as {
      failures: Array<{ row: string }>;
    };
    expect([...new Set(summary.failures.map((f) => f.row))].sort()).toEqual([...FAILING].sort());
    const traces = readdirSync(join(dir, "fail"), { recursive: true, encoding: "utf8" }).filter((f) =>
      f.endsWith(".zip"),
    );
    expect(traces.length, "traces of the failures, in test-results and the HTML report").toBeGreaterThan(4);
    expect(watch.issued.size, "tokens, codes and cookies the mock handed out").toBeGreaterThan(50);
  });

  it("no file any run wrote, and nothing any printed, holds a secret it knew or was handed", () => {
    const secrets = [...Object.values(SECRETS), refreshToken, ...watch.issued];
    const texts = [
      ...["pass", "merged", "fail"].flatMap((out) =>
        textsUnder(join(dir, out)).map((t) => ({ ...t, where: `${out}/${t.where}` })),
      ),
      ...Object.entries(runs).map(([name, run]) => ({ where: `the terminal of ${name}`, text: run.out })),
    ];
    expect(texts.some((t) => t.where.includes("trace.zip!"))).toBe(true);
    expect(texts.some((t) => t.where.includes("html/index.html#base64!report.json"))).toBe(true);
    expect(leaks(secrets, texts)).toEqual([]);
    expect(existsSync(join(dir, "fail/html/index.html"))).toBe(true);
  });
});
