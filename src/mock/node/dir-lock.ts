// One process per data directory (decision 0018). Node.js has no flock, so the
// lock is a directory, `bawa.lock`, that holds one file naming its owner: the
// process id, the host, when it started. It comes into being whole, by renaming
// a prepared directory into place (a rename onto a directory that holds a file
// fails), so no one ever sees a lock without its owner. A lock whose owner is
// gone (killed with SIGKILL, a crash, a reboot) is taken over by removing that
// owner's file, by its own unique name, and then the directory only if it is
// empty: two starters that both find the same dead owner can not remove each
// other's fresh lock, and exactly one of their renames succeeds.
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";

export const LOCK_DIR = "bawa.lock";

/** Who holds a data directory, as its lock records it. */
export interface LockOwner {
  pid: number;
  host: string;
  /** When the process started (ISO 8601), for the message to whoever is refused. */
  started: string;
  /** Linux: the boot, and the kernel's start time of the process, so a reused process id is told apart. */
  bootId?: string;
  procStart?: string;
}

/** A data directory another process holds: the start stops with this message. */
export class DirLockedError extends Error {
  override name = "DirLockedError";
}

export interface HeldLock {
  path: string;
  release(): void;
}

/** Owner files of the locks this process holds: one data directory twice in one process is refused too. */
const held = new Set<string>();
const OWNER_FILE = /^owner-\d+-[0-9a-f]+\.json$/;
const STAGING = /^bawa\.lock\.(\d+)-[0-9a-f]+\.tmp$/;
const TRIES = 20;

export interface LockOptions {
  /** Told whose lock was taken over. */
  warn?(message: string): void;
  /** Runs after an owner was found gone, before its lock is removed: a test lets another start win the race there. */
  beforeTakeover?(): void;
}

/**
 * Takes the lock of `dir`, or throws DirLockedError naming the process that holds it.
 * A lock left by a process that is gone is taken over, and `warn` is told whose it was.
 */
export function lockDir(dir: string, opts: LockOptions = {}): HeldLock {
  const path = join(dir, LOCK_DIR);
  const name = `owner-${process.pid}-${randomBytes(8).toString("hex")}.json`;
  const record = `${JSON.stringify(ownerOfThisProcess())}\n`;
  for (let attempt = 0; attempt < TRIES; attempt++) {
    const staging = join(dir, `${LOCK_DIR}.${process.pid}-${randomBytes(8).toString("hex")}.tmp`);
    fs.mkdirSync(staging);
    try {
      fs.writeFileSync(join(staging, name), record);
      fs.renameSync(staging, path);
    } catch (err) {
      fs.rmSync(staging, { recursive: true, force: true });
      const code = (err as NodeJS.ErrnoException).code;
      // A lock is in the way (Linux says ENOTEMPTY or EEXIST; Windows EPERM for any directory).
      if (code !== "ENOTEMPTY" && code !== "EEXIST" && code !== "EPERM") throw err;
      const found = readOwner(path);
      if (!found) continue; // released meanwhile: try again
      if (found.owner) {
        const state = ownerState(found.owner, found.file);
        if (state !== "gone") throw new DirLockedError(lockedMessage(dir, path, found.owner, state === "elsewhere"));
        opts.warn?.(
          `${dir}: took over the lock of process ${found.owner.pid} (started ${found.owner.started}), which is gone: it ended without releasing it (killed or crashed)`,
        );
      } else {
        // Written whole before it was renamed into place, an owner file is unreadable only
        // after the machine crashed: its process is gone.
        opts.warn?.(`${dir}: took over a lock whose owner file ${found.file} can not be read (left by a crash)`);
      }
      opts.beforeTakeover?.();
      quietly(() => fs.unlinkSync(join(path, found.file)));
      // Only if empty: a lock another starter renamed into place meanwhile holds its owner file.
      quietly(() => fs.rmdirSync(path));
      continue;
    }
    held.add(name);
    sweepStaging(dir);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      held.delete(name);
      process.off("exit", release);
      // Our own file by its unique name, then the directory if empty: never another's lock.
      quietly(() => fs.unlinkSync(join(path, name)));
      quietly(() => fs.rmdirSync(path));
    };
    // An exit without close() (process.exit, an uncaught error) still leaves the directory free.
    process.on("exit", release);
    return { path, release };
  }
  throw new DirLockedError(
    `could not take the lock ${path} in ${TRIES} tries: other mocks keep starting on ${dir}. Give each mock its own --data-dir (BAWA_DATA_DIR).`,
  );
}

function lockedMessage(dir: string, path: string, o: LockOwner, elsewhere: boolean): string {
  const since = Date.parse(o.started);
  const ago = Number.isFinite(since) ? `, ${Math.max(0, Math.round((Date.now() - since) / 1000))} s ago` : "";
  return `the data directory ${dir} is in use by another mock: process ${o.pid}${elsewhere ? ` on host ${o.host}` : ""}, started ${o.started}${ago}. Two mocks on one data directory overwrite each other's changes: stop that mock, or give this one another --data-dir (BAWA_DATA_DIR).${
    elsewhere
      ? ` This host can not see whether that process still runs; if it is gone, delete ${path}.`
      : ` If process ${o.pid} is not a bawa mock (its id was reused), delete ${path}.`
  }`;
}

/** The owner file of the lock at `path` (owner undefined when it can not be read), or undefined when there is no lock. */
function readOwner(path: string): { file: string; owner: LockOwner | undefined } | undefined {
  let files: string[];
  try {
    files = fs.readdirSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
  const file = files.find((f) => OWNER_FILE.test(f));
  if (!file) {
    // Empty: a takeover that stopped between its two removals. Gone if empty; a full one stays.
    quietly(() => fs.rmdirSync(path));
    return undefined;
  }
  let text: string;
  try {
    text = fs.readFileSync(join(path, file), "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
  try {
    const owner = JSON.parse(text) as LockOwner;
    if (Number.isSafeInteger(owner.pid) && typeof owner.host === "string" && typeof owner.started === "string")
      return { file, owner };
  } catch {
    // Unreadable: see the caller.
  }
  return { file, owner: undefined };
}

/** Whether the process that wrote an owner record still runs: on this host, as the same process. */
function ownerState(o: LockOwner, file: string): "alive" | "gone" | "elsewhere" {
  if (o.host !== hostname()) return "elsewhere";
  const boot = bootId();
  if (o.bootId !== undefined && boot !== undefined && o.bootId !== boot) return "gone";
  // Our own id: held by this very process, or left by an earlier one that had the same id.
  if (o.pid === process.pid) return held.has(file) ? "alive" : "gone";
  if (!processRuns(o.pid)) return "gone";
  const start = procStart(o.pid);
  if (o.procStart !== undefined && start !== undefined && start !== o.procStart) return "gone";
  return "alive";
}

/** Whether a process of this id exists and is not a zombie (killed, not yet reaped by its parent). */
function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    // EPERM: it runs, as another user.
    if ((err as NodeJS.ErrnoException).code === "ESRCH") return false;
  }
  const state = procStat(pid)?.[0];
  return state !== "Z" && state !== "X";
}

function ownerOfThisProcess(): LockOwner {
  const boot = bootId();
  const start = procStart(process.pid);
  return {
    pid: process.pid,
    host: hostname(),
    started: new Date(Date.now() - process.uptime() * 1000).toISOString(),
    ...(boot !== undefined ? { bootId: boot } : {}),
    ...(start !== undefined ? { procStart: start } : {}),
  };
}

/** Fields 3 on of /proc/<pid>/stat (Linux), after the command name, which may hold spaces and parentheses. */
function procStat(pid: number): string[] | undefined {
  try {
    const text = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return text
      .slice(text.lastIndexOf(")") + 2)
      .trim()
      .split(" ");
  } catch {
    return undefined;
  }
}

/** The start time of a process in clock ticks since boot (field 22 of /proc/<pid>/stat). */
const procStart = (pid: number) => procStat(pid)?.[19];

function bootId(): string | undefined {
  try {
    return fs.readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
  } catch {
    return undefined;
  }
}

/** Staging directories of starts that died before their rename (their process is gone): removed. */
function sweepStaging(dir: string): void {
  for (const entry of fs.readdirSync(dir)) {
    const pid = Number(STAGING.exec(entry)?.[1]);
    if (pid && pid !== process.pid && !processRuns(pid))
      quietly(() => fs.rmSync(join(dir, entry), { recursive: true, force: true }));
  }
}

function quietly(remove: () => void): void {
  try {
    remove();
  } catch {
    // Already gone, or not empty (another's lock): either way not ours to remove.
  }
}
