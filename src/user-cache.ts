// A folder of the user's own where bawa keeps what it worked out from a team's contract, to read
// back at the next start instead of working it out again: the YAML's parse and the validators'
// code (decision 0041). The build keeps both for the project's own contract in dist/ (decision
// 0036); a team's contract, read with --contract, cost every process that loads it (the mock, the
// suite's runner and each worker, bawa proxy) a second or more of parsing and compiling.
//
// What is kept there is keyed by everything it was made from, so an edited contract is a new key
// and a kept entry is missing at worst, never stale. Validators are code this process runs: the
// folder is used only when it is this user's and no one else may write to it (Node's own compile
// cache in the shared temporary folder checks neither). Nothing here ever fails a command: a
// folder that can not be made, read or written is a cache that keeps nothing.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";

/** BAWA_CACHE_DIR: another folder; `off` (or empty) keeps nothing. */
export const CACHE_DIR_ENV = "BAWA_CACHE_DIR";
/** Entries kept of each kind: a contract edited all day is a new key at every edit. */
export const KEPT_ENTRIES = 32;
/** And what they may weigh together (a contract at its 4 MiB limit makes validators of megabytes). */
export const KEPT_BYTES = 64 * 1024 * 1024;

/** What is kept: the YAML's parse, the validators' code, and Node.js's compile cache (bin/bawa.js). */
export type CacheKind = "yaml" | "validators" | "node-compile-cache";

/** The folder, when there is one to keep things in: BAWA_CACHE_DIR, else XDG's cache folder's `bawa`. */
export function userCacheDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const given = env[CACHE_DIR_ENV];
  if (given !== undefined) return given === "" || given.toLowerCase() === "off" ? undefined : resolve(given);
  try {
    return join(env.XDG_CACHE_HOME || join(homedir(), ".cache"), "bawa");
  } catch {
    return undefined; // No home folder.
  }
}

/**
 * Whether a folder is this user's alone to write: owned by this user, neither group nor others
 * may write to it. Where a process has no user id (Windows), the folder is the user's profile's.
 */
function ownFolder(folder: string): boolean {
  const uid = process.getuid?.();
  if (uid === undefined) return true;
  const s = statSync(folder);
  return s.isDirectory() && s.uid === uid && (s.mode & 0o022) === 0;
}

/** The folder of one kind, made when missing; undefined when there is none or it is not the user's own. */
export function kindFolder(kind: CacheKind, make: boolean): string | undefined {
  const root = userCacheDir();
  if (!root) return undefined;
  const folder = join(root, kind);
  try {
    if (make) mkdirSync(folder, { recursive: true, mode: 0o700 });
    return ownFolder(root) && ownFolder(folder) ? folder : undefined;
  } catch {
    return undefined;
  }
}

/** An entry's bytes, when it is kept in a folder of the user's own. */
export function readCached(kind: CacheKind, name: string): Buffer | undefined {
  const folder = kindFolder(kind, false);
  if (!folder) return undefined;
  try {
    return readFileSync(join(folder, name));
  } catch {
    return undefined;
  }
}

/**
 * Keeps an entry: written whole under another name and renamed into place, so a process reading
 * meanwhile finds the whole entry or none; the oldest entries past KEPT_ENTRIES or KEPT_BYTES go.
 */
export function writeCached(kind: CacheKind, name: string, data: string | Uint8Array): void {
  const folder = kindFolder(kind, true);
  if (!folder) return;
  const file = join(folder, name);
  const partial = `${file}.${process.pid}.partial`;
  try {
    writeFileSync(partial, data, { mode: 0o600 });
    renameSync(partial, file);
    prune(folder);
  } catch {
    rmSync(partial, { force: true });
  }
}

/**
 * The newest entries stay, up to KEPT_ENTRIES and KEPT_BYTES (the newest always); a partial one a
 * crashed process left goes after an hour.
 */
function prune(folder: string): void {
  const entries: Array<{ name: string; at: number; size: number }> = [];
  for (const name of readdirSync(folder)) {
    try {
      const { mtimeMs: at, size } = statSync(join(folder, name));
      if (name.endsWith(".partial")) {
        if (Date.now() - at > 3_600_000) rmSync(join(folder, name), { force: true });
      } else entries.push({ name, at, size });
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
