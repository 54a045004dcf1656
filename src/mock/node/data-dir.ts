// The data directory: a snapshot of the whole state and a journal of the
// changes acknowledged since. Crash-safety rests on three rules (decision 0007):
// a change is written whole and fsync'ed before its answer leaves; a snapshot is
// written to a temporary file, fsync'ed and renamed over the old one before the
// journal is emptied; and replaying a journal over a snapshot that already holds
// it gives the same state (every change sets whole values), so a crash between
// the rename and the emptying loses nothing.
import * as fs from "node:fs";
import { join } from "node:path";
import { type Change, changeProblem, type Journal, StorageError } from "../core/changes.ts";

export const SNAPSHOT_FILE = "snapshot.jsonl";
export const JOURNAL_FILE = "journal.jsonl";
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
    fs.mkdirSync(dir, { recursive: true });
    this.journalPath = join(dir, JOURNAL_FILE);
    this.snapshotPath = join(dir, SNAPSHOT_FILE);
    // A compaction that did not finish left its temporary file; the old snapshot and the journal are whole.
    fs.rmSync(`${this.snapshotPath}.tmp`, { force: true });
    this.#fd = fs.openSync(this.journalPath, fs.constants.O_RDWR | fs.constants.O_CREAT);
  }

  /**
   * Reads the snapshot, then the journal, handing each change to `apply`. A torn last line of
   * the journal (a write cut short by a crash, never acknowledged) is cut off before anything
   * is appended; damage anywhere else stops the start, naming the file, the line and the fix.
   */
  load(apply: (change: Change) => void): void {
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
    const fd = fs.openSync(tmp, "w");
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
      for (const change of this.#snapshot()) {
        const line = `${JSON.stringify(change)}\n`;
        chunk.push(line);
        chunkBytes += line.length;
        if (chunkBytes >= CHUNK) flush();
      }
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
    this.#closed = true;
    fs.closeSync(this.#fd);
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
          if (this.#opts.upgrade) value = this.#opts.upgrade(value);
          const problem = changeProblem(value, this.#opts.objectProblem);
          if (problem) throw damaged(line, `is not a change: ${problem}`);
          apply(value as Change);
        }
        rest = Buffer.from(data);
      }
    } finally {
      fs.closeSync(fd);
    }
    if (rest.length > 0 && kind === "snapshot")
      throw damaged(line + 1, "is cut short (a snapshot is renamed into place only when whole)");
    return { whole, torn: rest.length };
  }
}

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
