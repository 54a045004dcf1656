// The endurance run's growth figure: read from peaks, so a collection's low point is no growth
// and memory kept for good still is. A process tree's CPU, with what its ended processes cost.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { describe, expect, it } from "vitest";
import { MAX_ACCESS_TOKENS_PER_CLIENT } from "../src/mock/core/limits.ts";
import { cpuMs, roundsUnder, rssGrowth, warmUpOf } from "./bench-servers.ts";

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

  it("reads each minute's highest, so a young generation's peak between two minute marks counts", () => {
    // The 13:24 run of 2026-11-29 read once a minute: 92 MB at most in minutes 1-3, 108 in 7-10,
    // 17.5 %; read every 5 s, as two builds side by side were, each third minute peaks at 103-110.
    const minuteMarks = run([64, 90, 83, 92, 106, 106, 92, 107, 108, 85, 93]);
    const withPeaks = minuteMarks.map((s) => (s.minute === 2 ? { ...s, rssBytes: 105 * MB } : s));
    expect(rssGrowth(minuteMarks)).toBeGreaterThan(0.1);
    expect(rssGrowth(withPeaks)).toBeCloseTo(108 / 105 - 1, 6);
  });

  it("gives no figure for a run under 6 minutes", () => {
    expect(rssGrowth(run([70, 100, 90, 95, 96, 97]))).toBeUndefined();
    expect(rssGrowth(run([70, 100, 90, 95, 96, 97, 98]))).toBeCloseTo(98 / 100 - 1, 6);
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
