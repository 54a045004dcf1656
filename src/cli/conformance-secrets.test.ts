// No secret leaves a conformance run: the suite runs with secrets of its own
// (client secrets, the user's password, the refresh token, the control token)
// against the mock behind an observer that notes every token, code and cookie
// the mock hands out; then every file the runs wrote (zips unpacked, base64
// decoded) and everything they printed is searched for each of them.
// Here a failing target, whose answers quote requests and tokens, as the one
// shard (its blob) of a traced run, and the verdict merged from that blob; the
// passing whole run is conformance-beyond.test.ts's, searched there.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { type BawaRun, conformanceHarness } from "./conformance-testing.ts";
import { leaks, type SecretMock, secretMock, textsUnder } from "./secrets-testing.ts";

/** What the failing run checks, and what fails there: each failure quotes what it was answered. */
const FAILING = [
  "OAUTH-TOKEN-ERRORS",
  "OAUTH-CLIENT-BASIC",
  "OAUTH-TOKEN-ENTROPY",
  "OAUTH-IMPLICIT-FRAGMENT",
  "TOK-REFRESH-PARAMS",
];

let mock: SecretMock;
const h = conformanceHarness(async (dir) => {
  mock = await secretMock(dir);
  return mock;
});

describe("no secret leaves a conformance run", () => {
  const runs: Record<string, BawaRun> = {};

  beforeAll(async () => {
    const bawa = (args: string[], env: Record<string, string> = {}) => h.bawa(args, { ...h.settings, ...env });

    // A failing one, traced (traces are kept of failures): token errors that redirect and show the
    // request back (the client secret, a code, Basic credentials), short tokens the entropy check
    // lists, a token in a redirect's query, token answers a check quotes whole.
    const faults = ["token-errors-echo", "short-tokens", "implicit-in-query", "refresh-grant-without-redirect-uri"];
    const turn = (on: boolean) => Promise.all(faults.map((f) => mock.control(`/__mock/scenarios/${f}`, { on })));
    for (const res of await turn(true)) expect(res.status).toBe(200);
    try {
      runs.failing = await bawa(["--grep", FAILING.join("|"), "--shard", "1/1", "--output", "fail"], {
        CONFORMANCE_TRACE: "1",
      });
    } finally {
      await turn(false);
    }
    // The verdict merged from the shard's blob (a report made from the blob).
    runs.merged = await bawa(["merge", "fail", "--output", "merged"]);
  }, 420_000);

  it("the runs ran: the failing one failed and kept traces, its merged verdict failed too", () => {
    expect(readdirSync(join(h.dir, "fail", "blob")).length).toBe(1);
    expect(runs.failing!.code, runs.failing!.out).toBe(1);
    expect(runs.merged!.code, runs.merged!.out).toBe(1);
    expect(existsSync(join(h.dir, "merged/summary.json")), runs.merged!.out).toBe(true);
    const summary = JSON.parse(readFileSync(join(h.dir, "fail/summary.json"), "utf8")) as {
      failures: Array<{ row: string }>;
    };
    expect([...new Set(summary.failures.map((f) => f.row))].sort()).toEqual([...FAILING].sort());
    const traces = readdirSync(join(h.dir, "fail"), { recursive: true, encoding: "utf8" }).filter((f) =>
      f.endsWith(".zip"),
    );
    expect(traces.length, "traces of the failures, in test-results and the HTML report").toBeGreaterThan(4);
    expect(mock.issuedCount, "tokens, codes and cookies the mock handed out").toBeGreaterThan(20);
  });

  it("no file any run wrote, and nothing any printed, holds a secret it knew or was handed", () => {
    const texts = [
      ...["merged", "fail"].flatMap((out) =>
        textsUnder(join(h.dir, out)).map((t) => ({ ...t, where: `${out}/${t.where}` })),
      ),
      ...Object.entries(runs).map(([name, run]) => ({ where: `the terminal of ${name}`, text: run.out })),
    ];
    expect(texts.some((t) => t.where.includes("trace.zip!"))).toBe(true);
    expect(texts.some((t) => t.where.includes("html/index.html#base64!report.json"))).toBe(true);
    expect(leaks(mock.secrets(), texts)).toEqual([]);
    expect(existsSync(join(h.dir, "fail/html/index.html"))).toBe(true);
  });
});
