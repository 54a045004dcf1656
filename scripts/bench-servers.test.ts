// The endurance run's growth figure: read from peaks, so a collection's low point is no growth
// and memory kept for good still is. A process tree's CPU, with what its ended processes cost.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { describe, expect, it } from "vitest";
import { MAX_ACCESS_TOKENS_PER_CLIENT } from "../src/mock/core/limits.ts";
import { cpuMs, minuteOf, roundsUnder, rssGrowth, warmUpOf } from "./bench-servers.ts";

const MB = 2 ** 20;
const run = (mb: number[]) => mb.map((m, minute) => ({ minute, rssBytes: m * MB }));

describe("rssGrowth", () => {
  it("reads the 2026-11-25 run, minute 2 after a collection, as the 3 MB it grew", () => {
    const samples = run([77, 110, 88, 95, 90, 109, 111, 112, 113, 113, 113]);
    // The reading it replaces, the end over minute 2, would say 28 % (113 / 88 - 1).
    expect(rssGrowth(samples)).toBeCloseTo(113 / 110 - 1, 6);
  });

  it("a process that keeps 5 MB a minute grows past 10 %, whatever minute its collections fall on", () => {
    const leaking = run([70, 100, 80, 110, 95, 125, 105, 140, 115, 155, 130]);
    expect(rssGrowth(leaking)).toBeGreaterThan(0.1);
  });

  it("gives no figure for a run under 6 minutes", () => {
    expect(rssGrowth(run([70, 100, 90, 95, 96, 97]))).toBeUndefined();
    expect(rssGrowth(run([70, 100, 90, 95, 96, 97, 98]))).toBeCloseTo(98 / 100 - 1, 6);
  });
});

describe("minuteOf", () => {
  it("gives a reading between two minute marks to the minute it falls in", () => {
    // The readings every 5 s find each minute's highest RSS: V8's young generation swings it by
    // 24 MB over two to three minutes, and the 13:24 run of 2026-11-29, read once a minute, put
    // 17.5 % growth on a mock whose heap in use stayed flat.
    expect([0, 5_000, 59_999, 60_000, 61_000, 119_000, 600_000].map(minuteOf)).toEqual([0, 1, 1, 1, 2, 2, 10]);
  });
});

describe("cpuMs", () => {
  it("with reaped, counts a child that ended and was waited for; without, only the live processes", async () => {
    // A parent that starts a child burning 300 ms of CPU, waits for it, then waits to be read. CPU,
    // not wall time: on a loaded machine 300 ms of wall time gave the child 180 ms of CPU.
    const burn = "for (let u = process.cpuUsage(); u.user + u.system < 300000; u = process.cpuUsage());";
    const parent = spawn(process.execPath, [
      "-e",
      `require("child_process").spawnSync(process.execPath, ["-e", ${JSON.stringify(burn)}]); console.log("done"); setTimeout(() => {}, 30000);`,
    ]);
    try {
      await once(parent.stdout, "data");
      const live = cpuMs(parent.pid!);
      const withReaped = cpuMs(parent.pid!, { reaped: true });
      expect(withReaped - live).toBeGreaterThan(200);
    } finally {
      parent.kill();
    }
  });
});

describe("roundsUnder", () => {
  it("keeps the token refresh's five rounds of 20,000 and their warm-ups under one client's access tokens", () => {
    // The run of 2026-11-29 07:09: 5 × 22,000 against one mock, 10,002 refusals in its median round.
    expect(5 * (20_000 + warmUpOf(20_000))).toBeGreaterThan(MAX_ACCESS_TOKENS_PER_CLIENT);
    const amount = roundsUnder(MAX_ACCESS_TOKENS_PER_CLIENT, 20_000, 5);
    expect(amount).toBeLessThan(20_000);
    expect(5 * (amount + warmUpOf(amount)) + 100).toBeLessThanOrEqual(MAX_ACCESS_TOKENS_PER_CLIENT);
    expect(5 * (amount + 1000 + warmUpOf(amount + 1000)) + 100).toBeGreaterThan(MAX_ACCESS_TOKENS_PER_CLIENT);
  });

  it("leaves rounds that fit as they are", () => {
    expect(roundsUnder(MAX_ACCESS_TOKENS_PER_CLIENT, 20_000, 3)).toBe(20_000);
  });
});
