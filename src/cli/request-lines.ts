// The request log on standard output (`bawa mock`, `bawa proxy` without --quiet): one line per
// answer, written in batches off the answer's path (decision 0024).
import { writeSync } from "node:fs";
import sonicBoom from "sonic-boom";
import { isoTime, MAX_DATE_MS } from "../mock/core/clock.ts";
import type { Entry, RequestLog } from "../mock/core/request-log.ts";
import { printable } from "../printable.ts";

// A CommonJS module: its class is a property of what Node.js gives as the default export.
const { SonicBoom } = sonicBoom;

// The text of the current second, "2026-11-24T09:30:00.": V8 makes an ISO date with a printf and
// a Date object each time, and a loaded mock prints many lines a second.
let second = Number.NaN;
let secondText = "";

/** `isoTime(ms)`, reusing the text of its second. */
function lineTime(ms: number): string {
  if (!Number.isInteger(ms) || ms < 0 || ms >= MAX_DATE_MS) return isoTime(ms);
  const s = Math.floor(ms / 1000);
  if (s !== second) {
    const text = isoTime(s * 1000);
    secondText = text.slice(0, text.length - 4); // without "000Z"; years past 9999 are longer
    second = s;
  }
  const milli = ms - s * 1000;
  return `${secondText}${milli < 10 ? "00" : milli < 100 ? "0" : ""}${milli}Z`;
}

/** The printed line of one request (without its newline). */
export function requestLine(e: Entry): string {
  const path = e.path.length > 100 ? `${e.path.slice(0, 100)}...` : e.path;
  // Once the mock's clock was moved, the time on it too: what tokens age by (and bawa proxy judges at).
  const moved = Math.abs(e.mockAt - e.at) > 1000 ? `; mock clock ${isoTime(e.mockAt)}` : "";
  let line = `${lineTime(e.at)} ${e.method} ${printable(path)} -> ${e.status} (${e.ms.toFixed(1)} ms${moved})`;
  if (e.problem) line += ` ${printable(e.problem.slice(0, 160))}`;
  if (e.ignored) line += ` [ignored: ${printable(e.ignored.join(", "))}]`;
  // Rules an answer broke, as bawa proxy judged it: one indented line each.
  for (const v of e.violations ?? []) {
    const found = v.found === undefined ? "" : `, found ${v.found}`;
    line += `\n    ✗ ${v.requirement} ${printable(`${v.where}: expected ${v.expected}${found}`)}`;
  }
  return line;
}

export interface PrintedLog {
  /** Resolves once every line so far is written. */
  flush(): Promise<void>;
}

/** How long a line waits for others to be written with it (ms), and how many bytes hand a batch over sooner. */
const GATHER_MS = 10;
const GATHER_BYTES = 16_384;
/**
 * The room of a batch. A line that may not fit in what is left (3 bytes per UTF-16 unit at most)
 * starts the next batch; one that may not fit in an empty batch is written alone.
 */
const BATCH_BYTES = 65_536;

/**
 * Prints every request of `log` to standard output. Each line is written into a batch of bytes as
 * it comes; the batch is handed to a sonic-boom stream after GATHER_MS or once it holds
 * GATHER_BYTES, and written while the process goes on answering. Handed over line by line, a
 * loaded mock made a write per one to three lines (13.3 µs of CPU per entry against 4.8 gathered,
 * decision 0024); gathered as strings and joined, the join read lines made a batch ago, cold in
 * the cache: about 4 % of a loaded mock's CPU under GET (perf). What is pending when the process
 * exits is written then, synchronously (a signal handler first awaits flush()).
 */
export function printRequests(log: RequestLog, label: string): PrintedLog {
  // Buffers, not text: the batch is bytes already, and sonic-boom keeps each as given.
  const out = new SonicBoom({ fd: 1, sync: false, minLength: 0, contentMode: "buffer" });
  // Its types know write() of text only; in buffer mode it takes a Buffer.
  const put = out.write.bind(out) as unknown as (bytes: Buffer) => boolean;
  let open = true;
  // One batch for the process's life: sonic-boom is handed a copy of what it holds (16 KB under
  // load, a line or two when quiet), where a new 64 KB buffer per hand-over would be allocated
  // every 10 ms for a lone line.
  const batch = Buffer.allocUnsafeSlow(BATCH_BYTES);
  let used = 0;
  let timer: NodeJS.Timeout | undefined;
  const handOver = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (used && open) put(Buffer.from(batch.subarray(0, used)));
    used = 0;
  };
  out.on("error", (err: NodeJS.ErrnoException) => {
    // The reader went away (`bawa mock | head`): nobody is left to read the log; keep serving.
    open = false;
    if (err.code !== "EPIPE") console.error(`${label}: the request log can not be written: ${err.message}`);
  });
  process.once("exit", () => {
    if (timer) clearTimeout(timer);
    if (!open) return;
    try {
      // What sonic-boom holds first, then the batch, both synchronously: handed over now, the
      // batch would start an asynchronous write that flushSync() leaves in flight.
      out.flushSync();
      writeAllSync(1, batch.subarray(0, used));
    } catch {
      // Standard output is gone: there is nobody to write to.
    }
  });
  log.subscribe((e) => {
    if (!open) return;
    const line = `${requestLine(e)}\n`;
    if (used + line.length * 3 > BATCH_BYTES) {
      handOver();
      // Longer than a batch (a long list of violations): written on its own, after the batch.
      if (line.length * 3 > BATCH_BYTES) {
        put(Buffer.from(line));
        return;
      }
    }
    used += batch.write(line, used);
    if (used >= GATHER_BYTES) handOver();
    // Not holding the process open: on exit, what is gathered is written synchronously.
    else if (!timer) timer = setTimeout(handOver, GATHER_MS).unref();
  });
  return {
    flush: () =>
      new Promise<void>((done) => {
        handOver();
        if (open) out.flush(() => done());
        else done();
      }),
  };
}

/** Writes all of `bytes` to `fd` now, through partial writes and a non-blocking descriptor's EAGAIN (at most a second). */
function writeAllSync(fd: number, bytes: Buffer): void {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let at = 0, waits = 0; at < bytes.length; ) {
    try {
      at += writeSync(fd, bytes, at);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EAGAIN" || ++waits > 1000) throw err;
      Atomics.wait(pause, 0, 0, 1);
    }
  }
}
