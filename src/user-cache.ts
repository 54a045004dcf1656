// A folder of the user's own where bawa keeps what it worked out from a team's contract, to read
// back at the next start instead of working it out again: the YAML's parse and the validators'
// code (decision 0041). The build keeps both for the project's own contract in dist/ (decision
// 0036); a team's contract, read with --contract, cost every process that loads it (the mock, the
// suite's runner and each worker, bawa proxy) a second or more of parsing and compiling.
//
// What is kept there is keyed by everything it was made from, so an edited contract is a new key
// and a kept entry is missing at worst, never stale. Validators are code this process runs, so
// nothing is read that another user could have written or swapped in: the folder and every folder
// above it must be this user's or root's and closed to others' writes (a sticky one like /tmp
// aside), and each entry is checked on the open file itself (this user's, a regular file, one link,
// closed to others' writes) before it is read. Node's own compile cache in the shared temporary
// folder checks none of it. Nothing here ever fails a command: a folder that can not be made,
// read or written is a cache that keeps nothing.
import {
  closeSync,
  fstatSync,
  fsyncSync,
  futimesSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";

/** BAWA_CACHE_DIR: another folder; `off` (or empty) keeps nothing. */
export const CACHE_DIR_ENV = "BAWA_CACHE_DIR";
/** Entries kept of each kind: a contract edited all day is a new key at every edit. */
export const KEPT_ENTRIES = 32;
/** And what they may weigh together (a contract at its 4 MiB limit makes validators of megabytes). */
export const KEPT_BYTES = 64 * 1024 * 1024;
/** No entry larger than this is kept: one that large would push out every other. */
export const KEPT_ENTRY_BYTES = KEPT_BYTES / 4;

/**
 * What is kept: the YAML's parse, the validators' code, Node.js's compile cache (bin/bawa.js) and
 * where the objects of a large seed file lie (seed-index.ts).
 */
export type CacheKind = "yaml" | "validators" | "node-compile-cache" | "seed-index";

/**
 * The folder, when there is one to keep things in: BAWA_CACHE_DIR, else `bawa` in XDG's cache
 * folder (a relative XDG_CACHE_HOME is ignored, as XDG says), else in `~/.cache`.
 */
export function userCacheDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const given = env[CACHE_DIR_ENV];
  if (given !== undefined) return given === "" || given.toLowerCase() === "off" ? undefined : resolve(given);
  try {
    const xdg = env.XDG_CACHE_HOME;
    return join(xdg && isAbsolute(xdg) ? xdg : join(homedir(), ".cache"), "bawa");
  } catch {
    return undefined; // No home folder.
  }
}

const uid = process.getuid?.();

/** This user's alone: owned by this user, and neither group nor others may write. */
const ours = (s: { uid: number; mode: number }) => s.uid === uid && (s.mode & 0o022) === 0;

/**
 * Whether no one but this user (and root) can change what a path leads to: every folder above it
 * is this user's or root's, and closed to others' writes unless sticky (where no one may rename
 * another's entry: /tmp). Where a process has no user id (Windows), the folder is the profile's.
 */
function safeAbove(folder: string): boolean {
  for (let dir = dirname(folder); ; dir = dirname(dir)) {
    const s = statSync(dir);
    if (!(s.uid === uid || s.uid === 0) || ((s.mode & 0o022) !== 0 && (s.mode & 0o1000) === 0)) return false;
    if (dirname(dir) === dir) return true;
  }
}

/**
 * A folder of this user's alone, made when missing (and `make`). One of this user's that others
 * may write to (made under a loose umask, or by an earlier version) is emptied and closed: what
 * others could have put in it is gone. Undefined when that can not be had.
 */
function ownFolder(folder: string, make: boolean): string | undefined {
  if (make) {
    try {
      mkdirSync(folder, { mode: 0o700 });
    } catch (err) {
      // Made meanwhile by another process starting at the same time: checked as any other.
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
  }
  const s = statSync(folder);
  if (!s.isDirectory() || s.uid !== uid) return undefined;
  if ((s.mode & 0o022) !== 0) {
    rmSync(folder, { recursive: true, force: true });
    mkdirSync(folder, { mode: 0o700 });
  }
  return folder;
}

/**
 * The folder of one kind, made when missing (and `make`); undefined when there is none, or it or a
 * folder above it is not safe from other users. The root is checked before anything is made in it.
 */
export function kindFolder(kind: CacheKind, make: boolean): string | undefined {
  const root = userCacheDir();
  if (!root) return undefined;
  const folder = join(root, kind);
  if (uid === undefined) {
    try {
      if (make) mkdirSync(folder, { recursive: true });
      return statSync(folder).isDirectory() ? folder : undefined;
    } catch {
      return undefined;
    }
  }
  try {
    if (make) mkdirSync(dirname(root), { recursive: true, mode: 0o700 });
    if (!safeAbove(root)) return undefined;
    if (!ownFolder(root, make)) return undefined;
    return ownFolder(folder, make);
  } catch {
    return undefined;
  }
}

/**
 * An entry's bytes, when it is kept in a folder of the user's own and the open file is this user's
 * alone (a regular file with one link: not a name another user linked to a file of theirs). A hit
 * marks the entry as used, so pruning takes the least recently used.
 */
export function readCached(kind: CacheKind, name: string): Buffer | undefined {
  const folder = kindFolder(kind, false);
  if (!folder) return undefined;
  let fd: number | undefined;
  try {
    fd = openSync(join(folder, name), "r");
    const s = fstatSync(fd);
    if (uid !== undefined && (!s.isFile() || !ours(s) || s.nlink !== 1)) return undefined;
    const bytes = readFileSync(fd);
    if (bytes.length === 0) return undefined;
    const now = new Date();
    futimesSync(fd, now, now);
    return bytes;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Whether an entry could be kept now: the folder is there and the user's alone. */
export const canKeep = (kind: CacheKind): boolean => kindFolder(kind, true) !== undefined;

/**
 * Keeps an entry: written whole to a new file of this process (never one that exists), flushed to
 * disk, and renamed into place, so a reader finds the whole entry or none, after a crash too; the
 * least recently used past KEPT_ENTRIES or KEPT_BYTES go. An entry over KEPT_ENTRY_BYTES is not kept.
 */
export function writeCached(kind: CacheKind, name: string, data: string | Uint8Array): void {
  if (Buffer.byteLength(data) > KEPT_ENTRY_BYTES) return;
  const folder = kindFolder(kind, true);
  if (!folder) return;
  const file = join(folder, name);
  const partial = `${file}.${process.pid}.partial`;
  let fd: number | undefined;
  try {
    fd = openSync(partial, "wx", 0o600);
    writeSync(fd, typeof data === "string" ? Buffer.from(data) : data);
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(partial, file);
    prune(folder, name);
  } catch {
    if (fd !== undefined) closeSync(fd);
    rmSync(partial, { force: true });
  }
}

/**
 * The most recently used entries stay, up to KEPT_ENTRIES and KEPT_BYTES (the one just written
 * always); a partial one a crashed process left goes after an hour.
 */
function prune(folder: string, written: string): void {
  const entries: Array<{ name: string; at: number; size: number }> = [];
  for (const name of readdirSync(folder)) {
    try {
      const { mtimeMs: at, size } = statSync(join(folder, name));
      if (name.endsWith(".partial")) {
        if (Date.now() - at > 3_600_000) rmSync(join(folder, name), { force: true });
      } else entries.push({ name, at: name === written ? Number.POSITIVE_INFINITY : at, size });
    } catch {
      // Gone meanwhile: another process pruned it.
    }
  }
  entries.sort((a, b) => b.at - a.at);
  let bytes = 0;
  entries.forEach(({ name, size }, i) => {
    bytes += size;
    if (i > 0 && (i >= KEPT_ENTRIES || bytes > KEPT_BYTES)) rmSync(join(folder, name), { force: true });
  });
}
