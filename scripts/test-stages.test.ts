// `npm test`'s summary (scripts/test.mjs) as a person and a CI log read it: each stage's time,
// CPU and result, how busy the cores were, the host's speed, and the exit code a gate reads. The
// stage run here is the cheapest one that checks nothing of its own: ensure-browser, pointed at a
// file that exists (node's own), so it finds it at once and installs nothing. What the summary's
// figures are made of is scripts/stage-cpu.test.ts's.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../src/paths.ts";

const run = (args: string[], env: NodeJS.ProcessEnv = {}) => {
  const r = spawnSync(process.execPath, [resolve(PROJECT_ROOT, "scripts/test.mjs"), ...args], {
    cwd: PROJECT_ROOT,
    encoding: "utf8",
    env: { ...process.env, ...env },
  });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
};

describe.skipIf(process.platform === "win32")("npm test's stage summary", () => {
  it("gives each stage's time and CPU, how busy the cores were, and the host's speed", () => {
    const { code, out } = run(["--only", "ensure-browser"], { BAWA_CHROMIUM: process.execPath });
    expect(code, out).toBe(0);
    expect(out).toMatch(/^── ensure-browser: passed in \d+\.\d s, \d+\.\d CPU-s$/m);
    expect(out).toMatch(/^ {2}ensure-browser +\d+\.\d s +\d+\.\d CPU-s {2}passed$/m);
    expect(out).toMatch(
      /^ {2}total +\d+\.\d s +\d+\.\d CPU-s {2}\(stages side by side overlap; \d+ cores, busy \d+ % of the run\)$/m,
    );
    expect(out).toMatch(
      /^ {2}host check: JSON\.parse of mock-data's first customer \(\d+ bytes\) \d+\.\d µs \(\d+\.\d–\d+\.\d over 9 rounds\)$/m,
    );
    expect(out).toContain("npm test: everything passed");
  });

  it("keeps a failed stage's exit code and exits 1, naming the stage", () => {
    const { code, out } = run(["--only", "ensure-browser"], {
      BAWA_CHROMIUM: resolve(PROJECT_ROOT, "no-such-browser"),
    });
    expect(code, out).toBe(1);
    expect(out).toMatch(/^── ensure-browser: failed \(1\) in \d+\.\d s, \d+\.\d CPU-s$/m);
    expect(out).toMatch(/^ {2}ensure-browser .* FAILED \(1\)$/m);
    expect(out).toContain("npm test: failed: ensure-browser");
  });

  it("names the signal that ended a stage's script", () => {
    // A stage's script killed by SIGTERM as it starts (its node process loads this first).
    const dir = mkdtempSync(join(tmpdir(), "bawa-test-stages-"));
    try {
      const die = join(dir, "die.cjs");
      writeFileSync(
        die,
        'if (process.argv[1]?.endsWith("ensure-browser.mjs")) process.kill(process.pid, "SIGTERM");\n',
      );
      const { code, out } = run(["--only", "ensure-browser"], { NODE_OPTIONS: `--require "${die}"` });
      expect(code, out).toBe(1);
      expect(out).toMatch(/^── ensure-browser: failed \(SIGTERM\) in /m);
      expect(out).toMatch(/^ {2}ensure-browser .* FAILED \(SIGTERM\)$/m);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("refuses a stage it does not know with exit 2 and the list of stages", () => {
    const { code, out } = run(["--only", "lint,nope"]);
    expect(code, out).toBe(2);
    expect(out).toContain("unknown stage nope");
    expect(out).toMatch(/^stages: ensure-browser, build, /m);
  });
});
