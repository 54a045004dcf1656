// `bawa conformance` as a team runs it against a busy environment and in parts:
// retries of busy answers, shards merged into one verdict. Each runs the compiled
// command line against a mock in its own process (beside conformance-cli.test.ts).
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { conformanceHarness, passOn, verdicts } from "./conformance-testing.ts";

const h = conformanceHarness();

/**
 * A rate-limiting gateway in front of the mock, as real environments have: every `every`-th API
 * request is answered busy without reaching the mock, alternately 429 with Retry-After in seconds
 * and 503 with Retry-After as an HTTP-date, up to `most` busy answers (each
 * retried answer costs the run a second of waiting: a few show the retries as well as many).
 */
async function busyGateway(every: number, most: number) {
  let apiRequests = 0;
  const state = { busy: 0, url: "", server: undefined as unknown as Server, most };
  state.server = createServer((req, res) => {
    if (/\/api\//i.test(req.url ?? "") && ++apiRequests % every === 0 && state.busy < state.most) {
      state.busy++;
      const seconds429 = state.busy % 2 === 1;
      req.resume();
      res
        .writeHead(seconds429 ? 429 : 503, {
          "retry-after": seconds429 ? "1" : new Date(Date.now() + 1000).toUTCString(),
        })
        .end();
      return;
    }
    passOn(req, res, h.url);
  });
  await new Promise<void>((r) => state.server.listen(0, "127.0.0.1", r));
  state.url = `http://127.0.0.1:${(state.server.address() as AddressInfo).port}`;
  return state;
}

describe("bawa conformance in a busy environment and in parts", () => {
  it("answers 429 and 503 are retried as Retry-After says, and the summary counts the requests and the retries", async () => {
    const grep = ["--grep", "ERR-|CUST-FIELDS|INFO-LIST"];
    const gateway = await busyGateway(7, 4);
    try {
      const run = await h.bawa([...grep, "--output", "busy"], { ...h.settings, CONFORMANCE_BASE_URL: gateway.url });
      expect(run.code, run.out).toBe(0);
      expect(gateway.busy).toBe(4);
      const summary = JSON.parse(readFileSync(join(h.dir, "busy/summary.json"), "utf8"));
      expect(summary.requests).toMatchObject({ retried: gateway.busy, refused: 0 });
      expect(summary.requests.requests).toBeGreaterThan(gateway.busy * 6);
      expect(run.out).toContain(`requests: ${summary.requests.requests} sent, ${gateway.busy} retried after 429/503`);

      // Without retries every busy answer reaches the check, fails it, and is counted.
      const before = gateway.busy;
      gateway.most += 4;
      const strict = await h.bawa([...grep, "--output", "busy-strict"], {
        ...h.settings,
        CONFORMANCE_BASE_URL: gateway.url,
        CONFORMANCE_RETRIES: "0",
      });
      expect(strict.code, strict.out).toBe(1);
      const counted = JSON.parse(readFileSync(join(h.dir, "busy-strict/summary.json"), "utf8")).requests;
      expect(counted).toMatchObject({ retried: 0, refused: gateway.busy - before });
    } finally {
      gateway.server.close();
    }
  }, 180_000);

  it("two shards merged give the same matrix as one run", async () => {
    const grep = ["--grep", "ERR-|VER-|TOKEN-RESPONSE|CUST-NAMES"];
    const whole = await h.bawa([...grep, "--output", "whole"]);
    expect(whole.code, whole.out).toBe(0);
    for (const part of ["1/2", "2/2"]) {
      const run = await h.bawa([...grep, "--shard", part, "--output", `shard-${part[0]}`]);
      expect(run.code, run.out).toBe(0);
    }
    const merged = await h.bawa(["merge", "shard-1", "shard-2", "--output", "merged"]);
    expect(merged.code, merged.out).toBe(0);
    const one = verdicts(join(h.dir, "whole/summary.json"));
    expect(Object.values(one).filter((v) => v === "passed").length).toBeGreaterThan(5);
    expect(verdicts(join(h.dir, "merged/summary.json"))).toEqual(one);
    // Merged with a profile, the shards are judged against its known results as the profile's run
    // would be: the mock passes ERR-2-ID, which Prism is known to fail, an unexpected pass.
    const asPrism = await h.bawa(["merge", "shard-1", "shard-2", "--profile", "prism", "--output", "as-prism"]);
    expect(asPrism.code, asPrism.out).toBe(1);
    expect(verdicts(join(h.dir, "as-prism/summary.json"))["ERR-2-ID"]).toBe("unexpected pass");
  }, 180_000);
});
