// What npm test reads about a stage (scripts/stage-cpu.mjs, decision 0038): the CPU of what its
// script ran, from the shell's `times` as dash, bash and BusyBox write it; the signal that ended
// it; how busy the cores were. The wrapper is run through the real /bin/sh, with shapes of script
// whose status it must keep.
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { CPU_FD, childrenCpu, idleShare, signalOf, stageCommand } from "./stage-cpu.mjs";

describe("the children's CPU in `times`'s output", () => {
  it("is the second line's user and system seconds, as dash, bash and BusyBox write them", () => {
    expect(childrenCpu("0m0.004000s 0m0.000000s\n1m2.500000s 0m4.250000s\n")).toBeCloseTo(66.75, 6);
    expect(childrenCpu("0m0.001s 0m0.003s\n8m51.100s 1m15.250s\n")).toBeCloseTo(606.35, 6);
    expect(childrenCpu("0m 0.01s 0m 0.00s\n")).toBeUndefined();
  });

  it("reads a decimal comma, and seconds of 60 or more as the whole time (old ash)", () => {
    expect(childrenCpu("0m0,001s 0m0,003s\n0m0,443s 0m0,019s\n")).toBeCloseTo(0.462, 6);
    expect(childrenCpu("0m0.0s 0m0.0s\n8m531.1s 1m75.25s\n")).toBeCloseTo(606.35, 6);
  });

  it("is unknown for anything else: no output, one line, stray text", () => {
    for (const text of ["", "0m0.1s 0m0.2s\n", "a\nb\n", "0m0.1s 0m0.2s\n0m0.1s\n", "x\ny\nz\n"]) {
      expect(childrenCpu(text), JSON.stringify(text)).toBeUndefined();
    }
  });
});

describe("the signal that ended a stage", () => {
  it("is named from the shell's status 128 + its number, and only then", () => {
    expect(signalOf(143)).toBe("SIGTERM");
    expect(signalOf(137)).toBe("SIGKILL");
    expect(signalOf(130)).toBe("SIGINT");
    for (const code of [null, 0, 1, 2, 127, 128]) expect(signalOf(code)).toBeUndefined();
  });
});

describe("how busy the cores were", () => {
  const reading = (...cores: Array<[number, number]>) =>
    cores.map(([busy, idle]) => ({ times: { user: busy, nice: 0, sys: 0, idle, irq: 0 } }));

  it("is the idle share of every core's time between two readings", () => {
    expect(idleShare(reading([100, 100], [100, 100]), reading([190, 110], [170, 130]))).toBeCloseTo(0.2, 6);
  });

  it("is unknown where the readings do not compare: none, a core come or gone, a counter gone back", () => {
    expect(idleShare([], [])).toBeUndefined();
    expect(idleShare(reading([100, 100]), reading([190, 110], [10, 10]))).toBeUndefined();
    expect(idleShare(reading([100, 100], [1, 1]), reading([190, 110]))).toBeUndefined();
    expect(idleShare(reading([100, 100]), reading([190, 90]))).toBeUndefined();
    expect(idleShare(reading([100, 100]), reading([100, 100]))).toBeUndefined();
  });
});

describe.skipIf(process.platform === "win32")("a stage's script through /bin/sh", () => {
  const run = (script: string) => {
    const { file, args } = stageCommand(script);
    const r = spawnSync(file, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe", "pipe"], timeout: 20_000 });
    return { status: r.status, out: r.stdout, cpu: childrenCpu(String(r.output[CPU_FD] ?? "")) };
  };

  it("keeps the script's status and reads its CPU whatever the script's shape", () => {
    const cases: Array<[string, number]> = [
      ["true", 0],
      ["exit 3", 3],
      ["set -e; false; echo after", 1],
      ["false # a comment", 1],
      ["echo one > /dev/null && exit 5", 5],
      ["false &&", 2],
    ];
    for (const [script, status] of cases) {
      const r = run(script);
      expect(r.status, script).toBe(status);
      expect(r.cpu, script).toBeGreaterThanOrEqual(0);
    }
    expect(run("set -e; false; echo after").out).toBe("");
  });

  it("counts the CPU of what the script ran, a process it waited for", () => {
    const r = run(
      `"${process.execPath}" -e "const t = process.cpuUsage(); while (process.cpuUsage(t).user < 300000);"`,
    );
    expect(r.status).toBe(0);
    expect(r.cpu).toBeGreaterThanOrEqual(0.25);
  });

  it("ends with the script, even when it leaves a process running (the CPU pipe is not its)", () => {
    const t0 = performance.now();
    const r = run("(sleep 5 > /dev/null 2>&1 &); echo started");
    expect(r.status).toBe(0);
    expect(r.out).toBe("started\n");
    expect(performance.now() - t0).toBeLessThan(4000);
  });

  it("gives a script killed by a signal the shell's status for it", () => {
    const r = run(`"${process.execPath}" -e "process.kill(process.pid, 'SIGTERM')"`);
    expect(signalOf(r.status)).toBe("SIGTERM");
    expect(r.cpu).toBeGreaterThanOrEqual(0);
  });
});
