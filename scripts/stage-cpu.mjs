// What npm test (scripts/test.mjs) reads about a stage besides its output: the CPU of the
// processes it waited for, the signal that ended it, and how busy the cores were (decision 0038).
import { constants } from "node:os";

/** Where the stage's shell has `times` (every platform Node.js runs scripts on but Windows, whose cmd.exe has none). */
const POSIX_SHELL = process.platform !== "win32";

/** The descriptor the outer shell writes `times` to: a pipe of npm test's own. */
export const CPU_FD = 3;

// The script runs in a shell of its own, as `npm run` would run it (`/bin/sh -c`), with the CPU
// pipe closed, so nothing it starts holds the pipe (and the stage) open after it ends. The outer
// shell waits for it and prints its children's times in the C locale (bash writes the locale's
// decimal comma otherwise), and exits with its status. The script is an argument, not spliced into
// the wrapper's text: an `exit`, `exec`, `set -e` or a syntax error of its own stays its own.
const WRAPPER = `/bin/sh -c "$1" ${CPU_FD}>&-
__bawa_code=$?
{ LC_ALL=C times; } 2>/dev/null >&${CPU_FD}
exit "$__bawa_code"`;

/**
 * How to spawn a stage's script: through the wrapper above where the shell has `times`, with the
 * pipe it writes them to as `cpuPipe` (stdio's entry CPU_FD); else as `spawn(script, { shell:
 * true })` runs it, with no pipe (the CPU then unknown).
 * @param {string} script
 * @returns {{ file: string, args: string[], shell: boolean, cpuPipe: boolean }}
 */
export function stageCommand(script) {
  return POSIX_SHELL
    ? { file: "/bin/sh", args: ["-c", WRAPPER, "sh", script], shell: false, cpuPipe: true }
    : { file: script, args: [], shell: true, cpuPipe: false };
}

/**
 * The children's user and system seconds of `times`'s output (its second line: dash, bash and
 * BusyBox write `0m1.250000s 0m0.120000s`), or undefined when it has no such line. Seconds of 60
 * and more are read as the whole time (old ash wrote the total after the minutes).
 * @param {string} text
 * @returns {number | undefined}
 */
export function childrenCpu(text) {
  const lines = text.trim().split("\n");
  if (lines.length !== 2) return undefined;
  const figures = [...lines[1].matchAll(/(\d+)m(\d+(?:[.,]\d+)?)s/g)].map(([, minutes, seconds]) => {
    const s = Number(seconds.replace(",", "."));
    return s >= 60 ? s : Number(minutes) * 60 + s;
  });
  return figures.length === 2 && figures.every(Number.isFinite) ? figures[0] + figures[1] : undefined;
}

/**
 * The signal that ended a stage's script, from its shell's status (128 + the signal's number, as
 * POSIX shells report it; a script that exits with such a status itself is named the same way).
 * @param {number | null} code
 * @returns {string | undefined}
 */
export function signalOf(code) {
  if (!POSIX_SHELL || code === null || code <= 128) return undefined;
  return Object.entries(constants.signals).find(([, number]) => number === code - 128)?.[0];
}

/**
 * The share of the cores' time spent idle between two readings of `os.cpus()` (libuv's: user,
 * nice, sys, idle and irq; iowait, softirq and steal are in neither), or undefined where the two
 * do not compare: no times, a core gone or come, a counter gone back.
 * @param {Array<{ times: Record<string, number> }>} before
 * @param {Array<{ times: Record<string, number> }>} after
 * @returns {number | undefined}
 */
export function idleShare(before, after) {
  if (before.length === 0 || before.length !== after.length) return undefined;
  let idle = 0;
  let all = 0;
  for (const [i, core] of after.entries()) {
    for (const [kind, ms] of Object.entries(core.times)) {
      const spent = ms - (before[i].times[kind] ?? Number.NaN);
      if (!(spent >= 0)) return undefined;
      all += spent;
      if (kind === "idle") idle += spent;
    }
  }
  return all > 0 ? idle / all : undefined;
}
