// The data directory: a snapshot of the whole state and a journal of the
// changes acknowledged since. Crash-safety rests on three rules (decision 0007):
// a change is written whole and fsync'ed before its answer leaves; a snapshot is
// written to a temporary file, fsync'ed and renamed over the old one before the
// journal is emptied; and replaying a journal over a snapshot that already holds
// it gives the same state (every change sets whole values), so a crash between
// the rename and the emptying loses nothing.
import * as fs from "node:fs";
import { dirname, join, resolve } from "node:path";
import { type Change, changeProblem, type Journal, StorageError } from "../core/changes.ts";
import { DirLockedError, type HeldLock, LOCK_DIR, lockDir } from "./dir-lock.ts";

export const SNAPSHOT_FILE = "snapshot.jsonl";
export const JOURNAL_FILE = "journal.jsonl";
/** The snapshot's form: 2 begins with {"op":"clear","form":2} and ends with {"op":"end","lines":n}. */
const SNAPSHOT_FORM = 2;
/** Who holds the directory: one mock process at a time (decision 0007, dir-lock.ts). */
export const LOCK_FILE = LOCK_DIR;
/** The journal of versions before snapshots: read once, folded into the first snapshot. */
const OLD_JOURNAL_FILE = "customers.journal.jsonl";
/** The journal is folded into a new snapshot once it is larger than this and than the snapshot. */
export const COMPACT_AT_BYTES = 16 * 1024 * 1024;
const CHUNK = 1024 * 1024;

/** The file operations the data directory writes with; a test swaps in a disk that fills up. */
export type WriteOps = Pick<typeof fs, "writeSync" | "fsyncSync">;

export interface DataDirOptions {
  /** Checks an object of a resource against the contract; a problem stops the start. */
  objectProblem(resource: string, object: unknown): string | undefined;
  /** Turns a line an earlier version wrote into today's shape (changes.ts upgradeChange). */
  upgrade?(line: unknown): unknown;
  compactAtBytes?: number;
  ops?: WriteOps;
  /** Told what the start repaired (a torn last line) and what compaction did. */
  warn?(message: string): void;
}

/** A data directory that can not be read: the start stops with this message. */
export class DataDirError extends Error {
  override name = "DataDirError";
}

export class DataDir implements Journal {
  readonly dir: string;
  readonly journalPath: string;
  readonly snapshotPath: string;
  #fd: number;
  /** Bytes of the journal that hold whole, acknowledged changes. */
  #size = 0;
  #snapshotSize = 0;
  #snapshot: (() => Iterable<Change>) | undefined;
  readonly #opts: DataDirOptions;
  readonly #ops: WriteOps;

  constructor(dir: string, opts: DataDirOptions) {
    this.dir = dir;
    this.#opts = opts;
    this.#ops = opts.ops ?? fs;
    this.journalPath = join(dir, JOURNAL_FILE);
    this.snapshotPath = join(dir, SNAPSHOT_FILE);
    usable(dir);
    try {
      this.#lock = lockDir(dir, opts.warn ? { warn: opts.warn } : {});
    } catch (err) {
      if (err instanceof DirLockedError) throw new DataDirError(err.message);
      throw new DataDirError(`${dir}: ${sentenceOf(err, "its lock can not be taken")}`);
    }
    try {
      // A compaction that did not finish left its temporary file; the old snapshot and the journal are whole.
      fs.rmSync(`${this.snapshotPath}.tmp`, { force: true });
      // Each file checked before anything is changed: the journal's mode below, the old journal's read.
      for (const path of [this.journalPath, this.snapshotPath, join(dir, OLD_JOURNAL_FILE)]) regularOrAbsent(path);
      // O_APPEND as well: whatever else might write here, a change is never written into another.
      // Readable by its owner alone: it holds live tokens and client secrets. O_NOFOLLOW: a link
      // put there after the check is refused too, never followed to a file elsewhere.
      this.#fd = fs.openSync(
        this.journalPath,
        fs.constants.O_RDWR | fs.constants.O_CREAT | fs.constants.O_APPEND | fs.constants.O_NOFOLLOW,
        0o600,
      );
      // A journal of an earlier version was made readable by all.
      fs.fchmodSync(this.#fd, 0o600);
    } catch (err) {
      this.#lock.release();
      if (err instanceof DataDirError) throw err;
      throw new DataDirError(`${dir}: ${sentenceOf(err, "the journal can not be opened")}`);
    }
  }

  /** Held while this mock runs; released on close and when the process exits. */
  readonly #lock: HeldLock;

  /**
   * Reads the snapshot, then the journal, handing each change to `apply`. A torn last line of
   * the journal (a write cut short by a crash, never acknowledged) is cut off before anything
   * is appended; damage anywhere else stops the start, naming the file, the line and the fix.
   */
  load(apply: (change: Change) => void): void {
    try {
      this.#load(apply);
    } catch (err) {
      // A start that stops leaves the directory to the next one.
      this.close();
      throw err;
    }
  }

  #load(apply: (change: Change) => void): void {
    const old = join(this.dir, OLD_JOURNAL_FILE);
    if (fs.existsSync(this.snapshotPath)) {
      this.#snapshotSize = this.#read(this.snapshotPath, apply, "snapshot").whole;
    } else if (fs.existsSync(old)) {
      this.#read(old, apply, "journal");
    }
    const { whole, torn } = this.#read(this.journalPath, apply, "journal");
    this.#size = whole;
    if (torn > 0) {
      fs.ftruncateSync(this.#fd, whole);
      fs.fsyncSync(this.#fd);
      this.#opts.warn?.(
        `${this.journalPath}: cut off a torn last line of ${torn} bytes (a write a crash interrupted; it was never acknowledged)`,
      );
    }
  }

  /** What a snapshot holds: the whole state, as changes. Set once the state is loaded. */
  snapshotWith(state: () => Iterable<Change>): void {
    this.#snapshot = state;
    if (fs.existsSync(join(this.dir, OLD_JOURNAL_FILE))) {
      this.compact();
      fs.rmSync(join(this.dir, OLD_JOURNAL_FILE));
    }
  }

  append(change: Change): void {
    const line = Buffer.from(`${JSON.stringify(change)}\n`);
    this.#write(this.#fd, line, this.#size, this.journalPath);
    this.#size += line.length;
    const limit = this.#opts.compactAtBytes ?? COMPACT_AT_BYTES;
    if (this.#size > limit && this.#size > this.#snapshotSize && !this.#compactionDue) {
      // Not now: the store records a change before it makes it, so a snapshot taken inside
      // append() would miss this very change, and emptying the journal would lose it. Once the
      // request is handled, memory holds every recorded change.
      this.#compactionDue = true;
      setImmediate(() => {
        this.#compactionDue = false;
        this.#compactQuietly();
      });
    }
  }

  #compactionDue = false;

  /** Bytes in the journal and the snapshot (the bench prints them). */
  get sizes(): { journal: number; snapshot: number } {
    return { journal: this.#size, snapshot: this.#snapshotSize };
  }

  /**
   * Writes the whole state as a new snapshot and empties the journal. A crash at any point
   * leaves either the old snapshot and the whole journal, or the new snapshot and a journal
   * whose replay over it changes nothing.
   */
  compact(): void {
    if (!this.#snapshot) throw new Error("data directory: compact() before snapshotWith()");
    const tmp = `${this.snapshotPath}.tmp`;
    const fd = fs.openSync(tmp, "w", 0o600);
    let size = 0;
    try {
      let chunk: string[] = [];
      let chunkBytes = 0;
      const flush = () => {
        const buf = Buffer.from(chunk.join(""));
        this.#write(fd, buf, size, tmp, false);
        size += buf.length;
        chunk = [];
        chunkBytes = 0;
      };
      let lines = 0;
      for (const change of this.#snapshot()) {
        // The first line says which form the snapshot has: from form 2 on, it must end with its end line.
        const line = `${JSON.stringify(lines === 0 && change.op === "clear" ? { ...change, form: SNAPSHOT_FORM } : change)}\n`;
        chunk.push(line);
        chunkBytes += line.length;
        lines++;
        if (chunkBytes >= CHUNK) flush();
      }
      // The last line says the snapshot is whole: one cut at a line boundary is refused at start.
      chunk.push(`${JSON.stringify({ op: "end", lines })}\n`);
      flush();
      this.#ops.fsyncSync(fd);
    } catch (err) {
      fs.closeSync(fd);
      fs.rmSync(tmp, { force: true });
      throw err;
    }
    fs.closeSync(fd);
    fs.renameSync(tmp, this.snapshotPath);
    syncDir(this.dir);
    this.#snapshotSize = size;
    fs.ftruncateSync(this.#fd, 0);
    fs.fsyncSync(this.#fd);
    this.#size = 0;
  }

  #compactQuietly(): void {
    if (this.#closed) return;
    try {
      this.compact();
    } catch (err) {
      // The change that asked for it is stored already; the journal just stays long for now.
      this.#opts.warn?.(`${this.dir}: compaction failed, the journal keeps growing: ${(err as Error).message}`);
    }
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    fs.closeSync(this.#fd);
    this.#lock.release();
  }

  #closed = false;

  /** Writes all of `buf` at `at`, then fsyncs; on any failure cuts the file back so no partial line stays. */
  #write(fd: number, buf: Buffer, at: number, path: string, sync = true): void {
    try {
      for (let done = 0; done < buf.length; ) {
        const n = this.#ops.writeSync(fd, buf, done, buf.length - done, at + done);
        if (n <= 0) throw Object.assign(new Error("no byte was written"), { code: "ENOSPC" });
        done += n;
      }
      if (sync) this.#ops.fsyncSync(fd);
    } catch (err) {
      try {
        fs.ftruncateSync(fd, at);
      } catch {
        // The cut fails on a broken disk too; the next start cuts the torn line off.
      }
      const e = err as NodeJS.ErrnoException;
      throw new StorageError(
        `${path}: ${e.code === "ENOSPC" ? "the disk is full" : (e.code ?? e.message)} (${e.message}); free space in ${this.dir} and send it again`,
      );
    }
  }

  /** Streams a file line by line; returns the bytes of whole lines and of a torn tail. */
  #read(path: string, apply: (change: Change) => void, kind: "snapshot" | "journal"): { whole: number; torn: number } {
    let fd: number;
    try {
      fd = fs.openSync(path, "r");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return { whole: 0, torn: 0 };
      throw new DataDirError(`${path}: can not be read (${(err as Error).message})`);
    }
    const damaged = (line: number, why: string) =>
      new DataDirError(
        kind === "snapshot"
          ? `${path}: line ${line} ${why}. The snapshot is damaged; restore it from a backup (the journal beside it holds only the changes made after it), or move the data directory away to start from the seed.`
          : `${path}: line ${line} ${why}. Correct or delete that line (the lines after it are later changes), or move the journal away to start from the snapshot alone.`,
      );
    const buf = Buffer.alloc(CHUNK);
    let rest = Buffer.alloc(0);
    let whole = 0;
    let line = 0;
    let changes = 0;
    let ended: number | undefined;
    let form = 1;
    try {
      for (;;) {
        const n = fs.readSync(fd, buf, 0, CHUNK, null);
        if (n === 0) break;
        let data = rest.length ? Buffer.concat([rest, buf.subarray(0, n)]) : buf.subarray(0, n);
        for (let nl = data.indexOf(10); nl !== -1; nl = data.indexOf(10)) {
          line++;
          const text = data.subarray(0, nl).toString("utf8");
          whole += nl + 1;
          data = data.subarray(nl + 1);
          if (text.trim() === "") continue;
          let value: unknown;
          try {
            value = JSON.parse(text);
          } catch (err) {
            throw damaged(line, `is not JSON (${(err as Error).message})`);
          }
          if (ended !== undefined) throw damaged(line, "follows the snapshot's end line");
          if (kind === "snapshot" && isEnd(value)) {
            if (value.lines !== changes) {
              throw damaged(line, `ends the snapshot after ${value.lines} lines, but ${changes} came before it`);
            }
            ended = line;
            continue;
          }
          if (this.#opts.upgrade) value = this.#opts.upgrade(value);
          const problem = changeProblem(value, this.#opts.objectProblem);
          if (problem) throw damaged(line, `is not a change: ${problem}`);
          if (kind === "snapshot" && changes === 0) {
            if ((value as Change).op !== "clear") {
              throw damaged(
                line,
                'is not "clear": a snapshot begins with it (this file is no snapshot, or lost its start)',
              );
            }
            form = Number((value as { form?: unknown }).form ?? 1);
          }
          changes++;
          apply(value as Change);
        }
        rest = Buffer.from(data);
      }
    } finally {
      fs.closeSync(fd);
    }
    if (rest.length > 0 && kind === "snapshot")
      throw damaged(line + 1, "is cut short (a snapshot is renamed into place only when whole)");
    if (kind === "snapshot" && changes === 0) {
      throw damaged(1, 'is missing: the snapshot is empty (a snapshot holds at least its "clear" line)');
    }
    if (kind === "snapshot" && ended === undefined) {
      if (form >= SNAPSHOT_FORM) {
        throw damaged(
          line + 1,
          `is missing: the snapshot ends without its end line after ${changes} lines, so it was cut short`,
        );
      }
      // Snapshots of versions before the end line have none: read, and given one at the next compaction.
      this.#opts.warn?.(`${path}: has no end line (written by an earlier version); read as it is`);
    }
    return { whole, torn: rest.length };
  }
}

/** The last line of a snapshot: how many lines came before it. */
const isEnd = (v: unknown): v is { op: "end"; lines: number } =>
  typeof v === "object" &&
  v !== null &&
  (v as { op?: unknown }).op === "end" &&
  typeof (v as { lines?: unknown }).lines === "number";

/** Makes a rename in `dir` durable (the directory entry itself). */
function syncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, "r");
    fs.fsyncSync(fd);
  } catch {
    // Some file systems refuse to sync a directory; the rename is then as durable as they make it.
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** Why a directory can not be used, in a sentence, from a failed file operation. */
export function sentenceOf(err: unknown, what: string): string {
  const e = err as NodeJS.ErrnoException;
  const why =
    e.code === "EROFS"
      ? "it is on a read-only file system"
      : e.code === "EACCES" || e.code === "EPERM"
        ? "this user may not write there"
        : e.code === "ENOTDIR"
          ? "a part of the path is a file, not a directory"
          : e.code === "ENOSPC"
            ? "the disk is full"
            : (e.message ?? String(err));
  return `${what}: ${why} (${e.code ?? "error"}). Give --data-dir a directory this mock may write, or leave it out to keep the state in memory.`;
}

/** The directory exists (made when missing) and may be written; else a DataDirError in words. */
function usable(dir: string): void {
  try {
    makeDirectory(dir);
    fs.accessSync(dir, fs.constants.W_OK);
  } catch (err) {
    throw new DataDirError(
      `${dir} can not be the data directory: ${sentenceOf(err, "it can not be written").replace(/^it can not be written: /, "")}`,
    );
  }
}

/**
 * `mkdir -p`, a level at a time: Node.js 20's `mkdirSync(dir, { recursive: true })` spins forever
 * (at full CPU, without a word) on a path under /proc, where mkdir answers ENOENT for a parent
 * that exists. From the nearest ancestor that exists, each missing level is made on its own, and
 * the first that can not be made ends it with its error.
 */
function makeDirectory(dir: string): void {
  const missing: string[] = [];
  for (let at = resolve(dir); !fs.existsSync(at); at = dirname(at)) {
    missing.push(at);
    if (dirname(at) === at) break;
  }
  for (const level of missing.reverse()) {
    try {
      fs.mkdirSync(level);
    } catch (err) {
      // Made meanwhile by another process (two mocks started at once on one directory).
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
  }
}

/**
 * A journal or snapshot that is there must be a regular file: reading a FIFO (or a device) would
 * wait for a writer forever, and the start would hang without a word. Nor a symbolic link: the
 * start makes the journal readable by its owner alone and writes to it, which must never reach a
 * file elsewhere.
 */
function regularOrAbsent(path: string): void {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return;
    throw err;
  }
  if (stat.isSymbolicLink()) {
    throw new DataDirError(
      `${path} is a symbolic link; bawa does not follow it, so that it changes no file elsewhere: put the file itself there, or give --data-dir another directory.`,
    );
  }
  if (!stat.isFile()) {
    throw new DataDirError(
      `${path} is not a regular file (a FIFO, a device or a directory): move it away, or give --data-dir another directory.`,
    );
  }
}
