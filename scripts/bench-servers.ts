// Servers under load for `npm run bench` and `npm run bench:proxy`: started as separate processes,
// loaded with autocannon on loopback, and measured by the CPU time their processes spent (/proc).
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { connect } from "node:net";
import autocannon from "autocannon";
import { freePort } from "../src/mock/node/listen.ts";

export const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
/** Requests per CPU measurement (BENCH_REQUESTS); Prism, about ten times slower, gets a tenth. */
export const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 20_000);

export interface Server {
  name: string;
  url: string;
  child: ChildProcess;
  startMs: number;
  /** Lines the server wrote to standard output so far, when it was started with `stdout: "pipe"`. */
  lines: () => number;
}

export interface StartOptions {
  /**
   * "pipe": standard output goes to a pipe this process reads (and counts the lines of), as a
   * terminal or `npm start | tee` takes it; "ignore" (the default): /dev/null.
   */
  stdout?: "pipe" | "ignore";
}

/** Starts `node <args>` ("{port}" in them replaced by a free port) and waits for `probePath` to answer. */
export async function start(name: string, args: string[], probePath: string, opts: StartOptions = {}): Promise<Server> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(
    process.execPath,
    args.map((a) => a.replace("{port}", String(port))),
    { stdio: ["ignore", opts.stdout ?? "ignore", "ignore"] },
  );
  return answering(name, child, `http://127.0.0.1:${port}`, probePath, started);
}

/** Waits for a started server to answer `probePath` (any answer), at most 60 s. */
export async function answering(
  name: string,
  child: ChildProcess,
  url: string,
  probePath: string,
  started = performance.now(),
): Promise<Server> {
  let lines = 0;
  child.stdout?.on("data", (chunk: Buffer) => {
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
  });
  const { hostname, port } = new URL(url);
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode} before answering`);
    // A TCP connection first, until the port is open: a refused fetch costs this process 1.1 ms
    // of CPU, a refused connection 0.2 ms, and every 10 ms the fetches took CPU from the start
    // being measured (at 100,000 customers, 6 alternating starts each: medians 1.84 s with fetches,
    // 1.74 s with connections first).
    if (await accepts(hostname.replace(/^\[|\]$/g, ""), Number(port))) {
      try {
        await fetch(`${url}${probePath}`, { signal: AbortSignal.timeout(500) });
        return { name, url, child, startMs: performance.now() - started, lines: () => lines };
      } catch {}
    }
    await new Promise((r) => setTimeout(r, 10));
    if (performance.now() - started > 60_000) throw new Error(`${name} did not answer within 60 s`);
  }
}

/** Whether a TCP connection to the port is accepted now. */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect(port, host);
    socket.once("error", () => done(false));
    socket.once("connect", () => {
      socket.destroy();
      done(true);
    });
  });
}

export const stop = (s: Server) =>
  new Promise<void>((done) => {
    if (s.child.exitCode !== null || s.child.signalCode !== null) return done();
    s.child.once("exit", () => done());
    s.child.kill("SIGTERM");
  });

/** One start is noise on a shared machine: the median of `n` starts (`first` were made already), each stopped again. */
export async function medianStart(name: string, args: string[], n: number, first: number[] = []): Promise<number> {
  return (await medianStarts([{ name, args, first }], n))[0]!;
}

/**
 * The median of `n` starts of each server, started in turn (one of each, then again), so that a
 * host's drift over the minutes they take falls on all of them alike: two medians taken one after
 * the other compare two moments as much as two servers. `first`: starts made already.
 */
export async function medianStarts(
  servers: ReadonlyArray<{ name: string; args: string[]; first?: number[] }>,
  n: number,
): Promise<number[]> {
  const starts = servers.map((s) => [...(s.first ?? [])]);
  while (starts.some((s) => s.length < n)) {
    for (const [i, s] of servers.entries()) {
      if (starts[i]!.length >= n) continue;
      const again = await start(s.name, s.args, "/__mock/clock");
      starts[i]!.push(again.startMs);
      await stop(again);
    }
  }
  return starts.map((s) => s.sort((a, b) => a - b)[Math.floor(n / 2)]!);
}

export interface Load {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  /** CPU time (user + system) the server's processes spent per answer, in µs; see cpuMs(). */
  cpuUs?: number;
  /** Answers the CPU time was measured over (in each round, when there were rounds). */
  requests?: number;
  /** The lowest and highest CPU per answer of the rounds, when the figure is their median. */
  cpuRange?: [number, number];
}

export interface LoadOptions {
  connections?: number;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  seconds?: number;
  /** Send exactly this many requests instead of running for `seconds` (CPU per answer needs a fixed count). */
  amount?: number;
}

export async function load(url: string, opts: LoadOptions = {}): Promise<Load> {
  const r = await autocannon({
    url,
    connections: opts.connections ?? 50,
    ...(opts.amount ? { amount: opts.amount } : { duration: opts.seconds ?? SECONDS }),
    method: (opts.method ?? "GET") as "GET",
    headers: opts.headers ?? {},
    ...(opts.body ? { body: opts.body } : {}),
  });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors };
}

const TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" })) || 100;
  } catch {
    return 100;
  }
})();

/**
 * CPU time (user + system, ms) of a process and every process below it, from /proc: the server's
 * own cost, whatever the load generator and the neighbours on a shared machine do meanwhile
 * (throughput measures them too). Prism answers from a child of `bawa prism`, hence the tree.
 * With `reaped`, also what the tree's processes that ended cost, as far as a process of the tree
 * waited for them (Chromium ends renderer processes as it navigates: read between two looks, a
 * live process's own time alone would lose theirs).
 */
export function cpuMs(root: number, { reaped = false }: { reaped?: boolean } = {}): number {
  const parent = new Map<number, number>();
  const ticks = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      parent.set(Number(entry), Number(f[1]));
      ticks.set(Number(entry), Number(f[11]) + Number(f[12]) + (reaped ? Number(f[13]) + Number(f[14]) : 0));
    } catch {
      // The process ended while we looked.
    }
  }
  let total = 0;
  for (const [pid, t] of ticks) {
    for (let p: number | undefined = pid; p !== undefined && p > 1; p = parent.get(p)) {
      if (p === root) {
        total += t;
        break;
      }
    }
  }
  return (total * 1000) / TICKS_PER_SECOND;
}

/** The requests measure() sends before it measures `amount`. */
export const warmUpOf = (amount: number) => Math.max(500, Math.round(amount / 10));

/**
 * Requests per round, at most `requests`, such that `rounds` rounds with their warm-ups send no
 * more than `cap` in all (with `spare` left for what the bench asked before).
 */
export function roundsUnder(cap: number, requests: number, rounds: number, spare = 100): number {
  let amount = requests;
  while (amount > 1 && rounds * (amount + warmUpOf(amount)) + spare > cap) amount -= 1000;
  return Math.max(1, amount);
}

/**
 * A fixed number of requests after a warm-up, with the server's CPU time over them: µs of CPU per
 * answer, beside req/s and latency of the same run.
 */
export async function measure(server: Server, url: string, opts: LoadOptions = {}): Promise<Load> {
  const amount = opts.amount ?? REQUESTS;
  await load(url, { ...opts, amount: warmUpOf(amount) });
  const before = cpuMs(server.child.pid!);
  const result = await load(url, { ...opts, amount });
  const spent = cpuMs(server.child.pid!) - before;
  return { ...result, cpuUs: (spent * 1000) / amount, requests: amount };
}

/** Rounds of each measurement (BENCH_ROUNDS): one figure of a shared machine is noise. */
export const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
if (!Number.isInteger(ROUNDS) || ROUNDS < 1 || ROUNDS > 50) {
  throw new Error(`BENCH_ROUNDS must be a whole number from 1 to 50, not ${process.env.BENCH_ROUNDS}`);
}

export interface Contender {
  server: Server;
  url: string;
  opts?: LoadOptions;
}

/**
 * Measures each contender `rounds` times, alternating the order (forward, then backward), and gives
 * each the round of its median CPU per answer (with its latency), and the range of the rounds'
 * CPU. Measured one after the other once each, the first of a row paid for what the machine was
 * doing meanwhile: the mock as npm start runs it came out about 20 µs over --quiet for GET in every
 * such bench, and 1–9 µs over it when the two alternated. An even count takes the lower middle.
 */
export async function measureRounds<K extends string>(
  contenders: Record<K, Contender>,
  rounds = ROUNDS,
): Promise<Record<K, Load>> {
  const keys = Object.keys(contenders) as K[];
  const runs = new Map<K, Load[]>(keys.map((k) => [k, []]));
  for (let r = 0; r < rounds; r++) {
    for (const k of r % 2 ? [...keys].reverse() : keys) {
      const c = contenders[k];
      runs.get(k)!.push(await measure(c.server, c.url, c.opts));
    }
  }
  const out = {} as Record<K, Load>;
  for (const k of keys) {
    const sorted = [...runs.get(k)!].sort((a, b) => (a.cpuUs ?? 0) - (b.cpuUs ?? 0));
    const median = sorted[Math.floor((sorted.length - 1) / 2)]!;
    out[k] = rounds > 1 ? { ...median, cpuRange: [sorted[0]!.cpuUs ?? 0, sorted.at(-1)!.cpuUs ?? 0] } : median;
  }
  return out;
}

export function rssMb(pid: number | undefined): number | undefined {
  try {
    const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]);
    return Number.isFinite(kb) ? kb / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The minute of an endurance run a reading taken `elapsedMs` after its start counts for: minute
 * 1 is the first 60 s, 61 s is minute 2 (a minute's own reading, taken as it ends, is given its
 * minute by the caller); the start itself is minute 0.
 */
export const minuteOf = (elapsedMs: number): number => (elapsedMs <= 0 ? 0 : Math.ceil(elapsedMs / 60_000));

/**
 * How much a process's memory grew over an endurance run: the highest RSS of its last three
 * minutes over the highest of minutes 1 to 3, less one; undefined for a run shorter than 6
 * minutes. Peaks, not one minute's reading: a minute read just after a collection is about 20 MB
 * lower (the runs of 2026-11-25 and -27: minute 2 at 88 MB between 110 and 95), which made the
 * end over minute 2 read 28 % growth while the heap in use stayed flat. Memory a process keeps
 * and should not raises its peaks as well as its lows. Each minute's peak is the highest of the
 * readings within it (the bench reads every 5 s): V8's young generation alone swings RSS by
 * 24 MB over a cycle of two to three minutes, which one reading a minute may miss.
 */
export function rssGrowth(samples: ReadonlyArray<{ minute: number; rssBytes: number }>): number | undefined {
  const last = samples.at(-1)?.minute ?? 0;
  if (last < 6) return undefined;
  const peak = (from: number, to: number) =>
    Math.max(...samples.filter((s) => s.minute >= from && s.minute <= to).map((s) => s.rssBytes));
  return peak(last - 2, last) / peak(1, 3) - 1;
}
