// The request log on standard output (`bawa mock`, `bawa proxy` without --quiet): one line per
// answer, written in batches off the answer's path (decision 0024).
import sonicBoom from "sonic-boom";
import { isoTime } from "../mock/core/clock.ts";
import type { Entry, RequestLog } from "../mock/core/request-log.ts";

// A CommonJS module: its class is a property of what Node.js gives as the default export.
const { SonicBoom } = sonicBoom;

/** The printed line of one request (without its newline). */
export function requestLine(e: Entry): string {
  const path = e.path.length > 100 ? `${e.path.slice(0, 100)}...` : e.path;
  let line = `${isoTime(e.at)} ${e.method} ${path} -> ${e.status} (${e.ms.toFixed(1)} ms)`;
  if (e.problem) line += ` ${e.problem.slice(0, 160)}`;
  if (e.ignored) line += ` [ignored: ${e.ignored.join(", ")}]`;
  // Rules an answer broke, as bawa proxy judged it: one indented line each.
  for (const v of e.violations ?? []) {
    line += `\n    ✗ ${v.requirement} ${v.where}: expected ${v.expected}${v.found === undefined ? "" : `, found ${v.found}`}`;
  }
  return line;
}

export interface PrintedLog {
  /** Resolves once every line so far is written. */
  flush(): Promise<void>;
}

/**
 * Prints every request of `log` to standard output. A line is appended to a buffer, which is
 * written while the process goes on answering; a burst of answers is one write. What is buffered
 * when the process exits is written then, synchronously (a signal handler first awaits flush()).
 */
export function printRequests(log: RequestLog, label: string): PrintedLog {
  const out = new SonicBoom({ fd: 1, sync: false, minLength: 0 });
  let open = true;
  out.on("error", (err: NodeJS.ErrnoException) => {
    // The reader went away (`bawa mock | head`): nobody is left to read the log; keep serving.
    open = false;
    if (err.code !== "EPIPE") console.error(`${label}: the request log can not be written: ${err.message}`);
  });
  process.once("exit", () => {
    if (!open) return;
    try {
      out.flushSync();
    } catch {
      // Standard output is gone: there is nobody to write to.
    }
  });
  log.subscribe((e) => {
    if (open) out.write(`${requestLine(e)}\n`);
  });
  return {
    flush: () => new Promise<void>((done) => (open ? out.flush(() => done()) : done())),
  };
}
