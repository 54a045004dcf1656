// The lock of a data directory on its own: the moment two starts both find the
// same dead owner, which real processes hit only by chance (the crash tests with
// real mocks are in persistence.test.ts).
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DirLockedError, type HeldLock, LOCK_DIR, lockDir } from "./dir-lock.ts";

const dirs: string[] = [];
const held: HeldLock[] = [];
afterEach(() => {
  for (const h of held.splice(0)) h.release();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** A directory whose lock a killed process left. */
function leftByDeadProcess(): string {
  const dir = fs.mkdtempSync(join(tmpdir(), "bawa-lock-"));
  dirs.push(dir);
  const pid = spawnSync(process.execPath, ["-e", ""]).pid;
  fs.mkdirSync(join(dir, LOCK_DIR));
  const owner = { pid, host: hostname(), started: "2026-01-02T03:04:05.000Z" };
  fs.writeFileSync(join(dir, LOCK_DIR, `owner-${pid}-0123456789abcdef.json`), JSON.stringify(owner));
  return dir;
}

describe("taking over a lock whose owner is gone", () => {
  it("never removes the fresh lock of a start that took it over first", () => {
    const dir = leftByDeadProcess();
    let first: HeldLock | undefined;
    // Both found the dead owner; the first takes over while the second is about to.
    const refused = () =>
      lockDir(dir, {
        beforeTakeover: () => {
          first ??= lockDir(dir);
          held.push(first);
        },
      });
    expect(refused).toThrow(DirLockedError);
    expect(refused).toThrow(new RegExp(`is in use by another mock: process ${process.pid}`));
    expect(first).toBeDefined();
    const owners = fs.readdirSync(join(dir, LOCK_DIR));
    expect(owners).toHaveLength(1);
    expect(owners[0]).toMatch(new RegExp(`^owner-${process.pid}-`));
    first!.release();
    expect(fs.existsSync(join(dir, LOCK_DIR))).toBe(false);
  });

  it("leaves no staging directory behind, its own or one of a start that died before its rename", () => {
    const dir = leftByDeadProcess();
    const deadPid = spawnSync(process.execPath, ["-e", ""]).pid;
    fs.mkdirSync(join(dir, `${LOCK_DIR}.${deadPid}-00ff.tmp`));
    held.push(lockDir(dir));
    expect(fs.readdirSync(dir)).toEqual([LOCK_DIR]);
  });
});
