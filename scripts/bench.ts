#!/usr/bin/env -S npx tsx
// `npm run bench`: our mock against Prism and a bare node:http server, on this
// machine, with the same load generator (autocannon), on loopback only, each
// run bounded in time. Prints a table and writes reports/bench.md and .json.
// Figures, not tests: shared machines are noisy, so nothing here fails on speed.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir, totalmem } from "node:os";
import { join, resolve } from "node:path";
import autocannon from "autocannon";
import { backgroundTokens, refreshForm } from "../src/mock/node/client.ts";
import { freePort } from "../src/mock/node/listen.ts";
import { PROJECT_ROOT } from "../src/paths.ts";
import { SCENARIOS, SEED_CUSTOMER } from "./bench-scenarios.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
/** BENCH_QUICK=1: only the headline scenarios, printed, for trying a change. */
const QUICK = process.env.BENCH_QUICK === "1";
const BIN = resolve(PROJECT_ROOT, "bin/bawa.js");

interface Server {
  name: string;
  url: string;
  child: ChildProcess;
  startMs: number;
}

async function start(name: string, args: string[], probePath: string): Promise<Server> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const child = spawn(
    process.execPath,
    args.map((a) => a.replace("{port}", String(port))),
    { stdio: "ignore" },
  );
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode} before answering`);
    try {
      await fetch(`${url}${probePath}`, { signal: AbortSignal.timeout(500) });
      return { name, url, child, startMs: performance.now() - started };
    } catch {
      await new Promise((r) => setTimeout(r, 10));
    }
    if (performance.now() - started > 60_000) throw new Error(`${name} did not answer within 60 s`);
  }
}

/** One start is noise on a shared machine: the median of `n` starts (`first` were made already), each stopped again. */
async function medianStart(name: string, args: string[], n: number, first: number[] = []): Promise<number> {
  const starts = [...first];
  while (starts.length < n) {
    const again = await start(name, args, "/__mock/clock");
    starts.push(again.startMs);
    await stop(again);
  }
  return starts.sort((a, b) => a - b)[Math.floor(n / 2)]!;
}

const stop = (s: Server) =>
  new Promise<void>((done) => {
    s.child.once("exit", () => done());
    s.child.kill("SIGTERM");
  });

interface Load {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  /** CPU time (user + system) the server's processes spent per answer, in µs; see cpuMs(). */
  cpuUs?: number;
  /** Answers the CPU time was measured over. */
  requests?: number;
}

interface LoadOptions {
  connections?: number;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  seconds?: number;
  /** Send exactly this many requests instead of running for `seconds` (CPU per answer needs a fixed count). */
  amount?: number;
}

async function load(url: string, opts: LoadOptions = {}): Promise<Load> {
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
 */
function cpuMs(root: number): number {
  const parent = new Map<number, number>();
  const ticks = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      parent.set(Number(entry), Number(f[1]));
      ticks.set(Number(entry), Number(f[11]) + Number(f[12]));
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

/** Requests per CPU measurement (BENCH_REQUESTS); Prism, about ten times slower, gets a tenth. */
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 20_000);

/**
 * A fixed number of requests after a warm-up, with the server's CPU time over them: µs of CPU per
 * answer, beside req/s and latency of the same run.
 */
async function measure(server: Server, url: string, opts: LoadOptions & { amount?: number } = {}): Promise<Load> {
  const amount = opts.amount ?? REQUESTS;
  await load(url, { ...opts, amount: Math.max(500, Math.round(amount / 10)) });
  const before = cpuMs(server.child.pid!);
  const result = await load(url, { ...opts, amount });
  const spent = cpuMs(server.child.pid!) - before;
  return { ...result, cpuUs: (spent * 1000) / amount, requests: amount };
}

function seedDir(customers: number): string {
  const dir = mkdtempSync(join(tmpdir(), "bawa-bench-"));
  cpSync(resolve(PROJECT_ROOT, "mock-data"), dir, { recursive: true });
  const list = Array.from({ length: customers }, (_, i) => ({
    ...SEED_CUSTOMER,
    CustomerId: String(100000 + i),
    OrganizationId: 1000 + i,
    Name: `Klant ${i}`,
  }));
  writeFileSync(join(dir, "Customer/DEMO.json"), JSON.stringify(list));
  return dir;
}

function rssMb(pid: number | undefined): number | undefined {
  try {
    const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]);
    return Number.isFinite(kb) ? kb / 1024 : undefined;
  } catch {
    return undefined;
  }
}

interface Row {
  scenario: string;
  bare?: Load;
  prism?: Load;
  ours?: Load;
  /** POST only: node:http that parses each body, keeps the object and answers it re-encoded. */
  keeping?: Load;
}

async function main(): Promise<void> {
  const rows: Row[] = [];
  const log = (s: string) => console.error(`bench: ${s}`);

  log("starting bawa mock and Prism");
  const ours = await start("bawa mock", [BIN, "mock", "--port", "{port}", "--quiet"], "/__mock/clock");
  const prism = await start("Prism", [BIN, "prism", "--port", "{port}"], "/v1/api/DEMO/CustomerInfoList");
  const tokens = await backgroundTokens(ours.url);
  const auth = (token: string) => ({ authorization: `Bearer ${token}` });
  // Each scenario: the request, as bawa and Prism get it. Bare node:http answers each path with
  // the very bytes bawa answers it with: the cost of HTTP and the socket writes alone.
  const scenarios = SCENARIOS;
  const forPrism = { ...tokens, access: "prism" };
  const answers: Record<string, { type: string; body: string }> = {};
  for (const s of scenarios) {
    const o = s.request(tokens);
    const res = await fetch(`${ours.url}${s.path}`, {
      method: o.method ?? "GET",
      headers: o.headers ?? {},
      ...(o.body ? { body: o.body } : {}),
    });
    answers[`${o.method ?? "GET"} ${s.path}#${o.headers?.accept ?? ""}`] = {
      type: res.headers.get("content-type") ?? "",
      body: await res.text(),
    };
  }
  const bareScript = `const a=${JSON.stringify(answers)};require("http").createServer((q,s)=>{const x=a[q.method+" "+q.url+"#"+(q.headers.accept??"")]??{type:"text/plain",body:""};q.resume();q.on("end",()=>{s.writeHead(200,{"content-type":x.type});s.end(x.body)})}).listen({port},"127.0.0.1")`;
  log("starting bare node:http");
  const bare = await start("bare node:http", ["-e", bareScript], "/");
  // The least a create can cost in Node.js: parse the body, keep the object, answer it re-encoded.
  // No routing, token, binding, validation or dates; what it keeps the collector must trace.
  const keepingScript = `const kept=[];require("http").createServer((q,s)=>{const c=[];q.on("data",d=>c.push(d));q.on("end",()=>{let b="";if(c.length){const o=JSON.parse(Buffer.concat(c).toString());kept.push(o);b=JSON.stringify(o)}s.writeHead(200,{"content-type":"application/json; charset=utf-8"});s.end(b)})}).listen({port},"127.0.0.1")`;
  const keeping = await start("node:http keeping each body", ["-e", keepingScript], "/");
  ours.startMs = await medianStart("bawa mock (start-up)", [BIN, "mock", "--port", "{port}", "--quiet"], 5);

  try {
    for (const s of scenarios) {
      log(`${s.scenario}: bare node:http, bawa mock, Prism (${REQUESTS}, ${REQUESTS / 10} requests)`);
      rows.push({
        scenario: s.scenario,
        bare: await measure(bare, `${bare.url}${s.path}`, s.request(tokens)),
        ours: await measure(ours, `${ours.url}${s.path}`, s.request(tokens)),
        prism: await measure(prism, `${prism.url}${s.path}`, { ...s.request(forPrism), amount: REQUESTS / 10 }),
        ...(s.scenario === "POST Customer"
          ? { keeping: await measure(keeping, `${keeping.url}${s.path}`, s.request(tokens)) }
          : {}),
      });
    }
  } finally {
    await Promise.all([stop(bare), stop(keeping), stop(prism), stop(ours)]);
  }
  if (QUICK) {
    // The headline alone, for trying a change: nothing is written to reports/.
    for (const r of rows) {
      const us = (l?: Load) => `${l?.cpuUs?.toFixed(1) ?? "—"} µs (${Math.round(l?.rps ?? 0)} req/s, p99 ${l?.p99} ms)`;
      console.log(
        `${r.scenario.padEnd(40)} bare ${us(r.bare)}  ours ${us(r.ours)}  prism ${us(r.prism)}${r.keeping ? `  keeping ${us(r.keeping)}` : ""}`,
      );
    }
    return;
  }

  const lists: Array<{
    n: number;
    load: Load;
    page: Load;
    ms: number;
    rss?: number;
    memory?: Record<string, number>;
  }> = [];
  for (const n of [100, 10_000, 100_000]) {
    log(`GET CustomerInfoList with ${n} customers`);
    const dir = seedDir(n);
    const args = [BIN, "mock", "--port", "{port}", "--quiet", "--seed", dir];
    const big = await start(`bawa mock (${n})`, args, "/__mock/clock");
    const t = await backgroundTokens(big.url);
    const list = `${big.url}/v1/api/DEMO/CustomerInfoList`;
    const result = await load(list, { headers: auth(t.access), connections: 10 });
    // A page near the end: its cost must follow the page, not the database.
    const page = await load(`${list}?$top=50&$skip=${Math.max(0, n - 100)}`, {
      headers: auth(t.access),
      connections: 10,
    });
    const memory = (await (await fetch(`${big.url}/__mock/stats`)).json()) as Record<string, number>;
    const rss = rssMb(big.child.pid);
    await stop(big);
    const ms = await medianStart(`bawa mock (${n}, start-up)`, args, 3, [big.startMs]);
    lists.push({ n, load: result, page, ms, memory, ...(rss !== undefined ? { rss } : {}) });
    rmSync(dir, { recursive: true, force: true });
    rows.push({ scenario: `GET CustomerInfoList (${n.toLocaleString("en")})`, ours: result });
    rows.push({ scenario: `GET CustomerInfoList $top=50 near the end (${n.toLocaleString("en")})`, ours: page });
  }

  const endurance = await enduranceRun(log);

  const machine = `${cpus().length} × ${cpus()[0]?.model.trim() ?? "cpu"}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node.js ${process.version}`;
  const ratio = (a?: number, b?: number) => (a && b ? `${(a / b).toFixed(2)}×` : "—");
  const fmt = (l?: Load) =>
    l
      ? `${l.cpuUs === undefined ? "" : `**${l.cpuUs.toFixed(0)} µs CPU**; `}${Math.round(l.rps).toLocaleString("en")} req/s, p50 ${l.p50} ms, p99 ${l.p99} ms${l.non2xx || l.errors ? `, ${l.non2xx} non-2xx, ${l.errors} errors` : ""}`
      : "—";
  /** How many times the CPU per answer of `a` is that of `b`. */
  const cpuRatio = (a?: Load, b?: Load) => (a?.cpuUs && b?.cpuUs ? a.cpuUs / b.cpuUs : undefined);
  const times = (x?: number) => (x === undefined ? "—" : `${x.toFixed(2)}×`);
  const get = rows[0]!;
  const post = rows.find((r) => r.scenario === "POST Customer")!;
  const perItem = lists.map((l) => ({ n: l.n, usPerItem: (1e6 / l.load.rps / l.n) * 10 }));
  const perPage = lists.map((l) => ({ n: l.n, us: (1e6 / l.page.rps) * 10 }));
  const hundredK = lists[2]!;
  const mb = (bytes?: number) => (bytes === undefined ? "n/a" : `${(bytes / 2 ** 20).toFixed(0)} MB`);
  // The known reason of each target, printed when it is missed on this run.
  const targets = [
    [
      "GET Customer/{id}: CPU per answer ≤ 2× bare node:http's",
      `${times(cpuRatio(get.ours, get.bare))} (${get.ours?.cpuUs?.toFixed(0)} µs against ${get.bare?.cpuUs?.toFixed(0)} µs)`,
      (cpuRatio(get.ours, get.bare) ?? Infinity) <= 2,
      "each call checks the token, routes, negotiates and logs where bare node:http only writes a fixed text",
    ],
    [
      "GET Customer/{id}: CPU per answer ≥ 20× cheaper than Prism's",
      `${times(cpuRatio(get.prism, get.ours))} cheaper`,
      (cpuRatio(get.prism, get.ours) ?? 0) >= 20,
      "—",
    ],
    [
      "POST Customer: ≥ 15× Prism (CPU per answer; req/s beside it)",
      `${times(cpuRatio(post.prism, post.ours))} cheaper; ${ratio(post.ours?.rps, post.prism?.rps)} the req/s`,
      (cpuRatio(post.prism, post.ours) ?? 0) >= 15,
      `each create is bound, validated against the contract, stored and encoded, and what is stored the collector traces ever after; Prism keeps nothing. node:http that only parses each body, keeps the object and answers it re-encoded costs ${post.keeping?.cpuUs?.toFixed(0) ?? "—"} µs here (${times(cpuRatio(post.prism, post.keeping))} cheaper than Prism)`,
    ],
    [
      "GET Customer/{id}: p99 < 10 ms (50 connections)",
      `${get.ours?.p99} ms`,
      (get.ours?.p99 ?? Infinity) < 10,
      "load generator and mock share 2 cores: in a profile the mock is idle a quarter of the time, waiting for requests, and spends another quarter in socket writes; the tail follows the scheduler and garbage collection",
    ],
    [
      "start-up < 0.5 s (process start to first answer, median of 5)",
      `${(ours.startMs / 1000).toFixed(2)} s`,
      ours.startMs < 500,
      "the compiled code loads in ≈0.15 s and Ajv's set-up takes ≈0.1 s before the port opens; noise of a shared machine on top",
    ],
    [
      "CustomerInfoList per item at 100,000 within 1.5× of 10,000",
      perItem.map((p) => `${p.n.toLocaleString("en")}: ${p.usPerItem.toFixed(2)} µs/item`).join("; "),
      perItem[2]!.usPerItem <= 1.5 * perItem[1]!.usPerItem,
      "the whole list is cached as bytes until a write; at 100,000 each answer is 18 MB on loopback, and 10 connections share 2 cores with the load generator",
    ],
    [
      "a page ($top=50) costs the same at 100,000 as at 10,000 (within 1.5×)",
      perPage.map((p) => `${p.n.toLocaleString("en")}: ${p.us.toFixed(0)} µs/request`).join("; "),
      perPage[2]!.us <= 1.5 * perPage[1]!.us,
      "—",
    ],
    [
      "RSS at 100,000 customers after the list load ≤ 400 MB",
      hundredK.rss ? `${hundredK.rss.toFixed(0)} MB` : "n/a",
      (hundredK.rss ?? Infinity) <= 400,
      "live data after a full GC is ≈110 MB of heap (the customers ≈90 MB, the cached list's text 18 MB) and 18 MB of buffers (its bytes); the heap grows by a fifth between collections, and Node.js itself takes ≈80 MB",
    ],
    [
      "start-up at 100,000 customers ≤ 1.5 s (median of 3)",
      `${(hundredK.ms / 1000).toFixed(2)} s`,
      hundredK.ms <= 1500,
      "JSON.parse of the 190 MB seed file takes 0.7–0.9 s, garbage collection while its objects are promoted ≈0.25 s, checking 100,000 customers against the contract ≈0.2 s, and Node.js with the compiled code ≈0.4 s",
    ],
    [
      "endurance: RSS growth from minute 2 to the end < 10 %",
      endurance.growth === undefined ? "n/a" : `${(endurance.growth * 100).toFixed(1)} %`,
      endurance.growth !== undefined && endurance.growth < 0.1,
      endurance.minutes < 3
        ? `the run lasted ${endurance.minutes} min (BENCH_ENDURANCE_MINUTES); the figure needs 10`
        : "each refresh issues an access token valid 7200 s, so none expires within the run (swept 10 min after expiry, at most 100,000); the heap in use stays flat",
    ],
  ] as const;

  const md = [
    "# Benchmark",
    "",
    `Measured ${new Date().toISOString()} on ${machine}; autocannon, 50 connections, loopback. The headline is **CPU per answer**: user and system time of the server's processes (from /proc) over ${REQUESTS.toLocaleString("en")} requests (Prism: ${(REQUESTS / 10).toLocaleString("en")}) after a warm-up, divided by the count; req/s and latency are of the same run and swing with the load generator and the neighbours on a shared machine. Bare node:http answers each request with the very bytes bawa answers it with. Lists at 10,000 and 100,000: ${SECONDS} s per run, 10 connections.`,
    "",
    "| scenario | bare node:http | Prism | bawa mock | ours / bare (CPU) | Prism / ours (CPU) |",
    "|---|---|---|---|---|---|",
    ...rows.map(
      (r) =>
        `| ${r.scenario} | ${fmt(r.bare)} | ${fmt(r.prism)} | ${fmt(r.ours)} | ${times(cpuRatio(r.ours, r.bare))} | ${times(cpuRatio(r.prism, r.ours))} |`,
    ),
    "",
    `The least a create can cost here: node:http that parses each body, keeps the object and answers it re-encoded (no routing, token, binding, validation or dates) spends **${post.keeping?.cpuUs?.toFixed(0) ?? "—"} µs CPU** per answer on the same ${REQUESTS.toLocaleString("en")} creates (${times(cpuRatio(post.prism, post.keeping))} cheaper than Prism; bawa ${times(cpuRatio(post.ours, post.keeping))} of it).`,
    "",
    `Start-up, process start to first answer: bawa mock ${(ours.startMs / 1000).toFixed(2)} s, Prism ${(prism.startMs / 1000).toFixed(2)} s, bare node:http ${(bare.startMs / 1000).toFixed(2)} s.`,
    `bawa mock with 100, 10,000 and 100,000 customers: start-up (median of 3) ${lists.map((l) => `${(l.ms / 1000).toFixed(2)} s`).join(", ")}; memory (RSS) ${lists.map((l) => (l.rss ? `${l.rss.toFixed(0)} MB` : "n/a")).join(", ")}.`,
    `Where the memory goes at 100,000 after the list load: RSS ${mb(hundredK.memory?.rssBytes)} = V8 heap ${mb(hundredK.memory?.heapTotalBytes)} (${mb(hundredK.memory?.heapUsedBytes)} in use, garbage not yet collected included: the customers and the cached list's text) + buffers outside the heap ${mb(hundredK.memory?.externalBytes)} (the cached list's bytes) + code and Node.js itself.`,
    "",
    `Endurance: ${endurance.minutes} min of mixed load (refresh grant, create, read, replace, delete, list) at ${ENDURANCE_RATE} operations/s (a create-read-replace-delete cycle is one), ${endurance.requests.toLocaleString("en")} operations, ${endurance.failures} not 2xx:`,
    "",
    "| minute | RSS | heap used | access tokens | refresh tokens | customers |",
    "|---|---|---|---|---|---|",
    ...endurance.samples.map(
      (x) =>
        `| ${x.minute} | ${mb(x.stats.rssBytes)} | ${mb(x.stats.heapUsedBytes)} | ${x.stats.accessTokens} | ${x.stats.refreshTokens} | ${x.stats.objects} |`,
    ),
    "",
    "| target | measured | met | why not |",
    "|---|---|---|---|",
    ...targets.map(([t, m, ok, why]) => `| ${t} | ${m} | ${ok ? "yes" : "no"} | ${ok ? "" : why} |`),
    "",
  ].join("\n");
  mkdirSync(resolve(PROJECT_ROOT, "reports"), { recursive: true });
  writeFileSync(resolve(PROJECT_ROOT, "reports/bench.md"), md);
  writeFileSync(
    resolve(PROJECT_ROOT, "reports/bench.json"),
    `${JSON.stringify({ machine, seconds: SECONDS, rows, lists, endurance, startup: { ours: ours.startMs, prism: prism.startMs, bare: bare.startMs } }, null, 2)}\n`,
  );
  console.log(md);
}

const ENDURANCE_MINUTES = Number(process.env.BENCH_ENDURANCE_MINUTES ?? 10);
const ENDURANCE_RATE = 100;

interface Endurance {
  minutes: number;
  requests: number;
  failures: number;
  samples: Array<{ minute: number; stats: Record<string, number> }>;
  /** RSS at the end over RSS at minute 2, less one; undefined when the run was shorter than 3 minutes. */
  growth?: number;
}

/**
 * Mixed load at a fixed rate for BENCH_ENDURANCE_MINUTES, sampling the mock's memory and stores
 * every minute: a mock that keeps something it should drop grows here.
 */
async function enduranceRun(log: (s: string) => void): Promise<Endurance> {
  log(`endurance: ${ENDURANCE_MINUTES} min at ${ENDURANCE_RATE} requests/s (BENCH_ENDURANCE_MINUTES to change)`);
  const mock = await start("bawa mock (endurance)", [BIN, "mock", "--port", "{port}", "--quiet"], "/__mock/clock");
  const { refresh } = await backgroundTokens(mock.url);
  let access = (await backgroundTokens(mock.url)).access;
  const out: Endurance = { minutes: ENDURANCE_MINUTES, requests: 0, failures: 0, samples: [] };
  const stats = async () => (await (await fetch(`${mock.url}/__mock/stats`)).json()) as Record<string, number>;
  const api = `${mock.url}/v1/api/DEMO`;
  const json = () => ({ authorization: `Bearer ${access}`, "content-type": "application/json" });
  const body = JSON.stringify({ ...SEED_CUSTOMER, CustomerId: "", Name: "Endurance" });
  const steps: Array<() => Promise<Response>> = [
    async () => {
      const res = await fetch(`${mock.url}/v1/OAuth/Token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: refreshForm(refresh),
      });
      if (res.ok) access = ((await res.clone().json()) as { access_token: string }).access_token;
      return res;
    },
    async () => {
      const made = await fetch(`${api}/Customer`, { method: "POST", headers: json(), body });
      if (!made.ok) return made;
      const id = ((await made.json()) as { CustomerId: string }).CustomerId;
      await fetch(`${api}/Customer/${id}`, { headers: json() });
      await fetch(`${api}/Customer/${id}`, { method: "PUT", headers: json(), body });
      return fetch(`${api}/Customer/${id}`, { method: "DELETE", headers: json() });
    },
    () => fetch(`${api}/CustomerInfoList`, { headers: json() }),
    () => fetch(`${api}/Customer/1001`, { headers: json() }),
  ];
  const started = performance.now();
  const end = started + ENDURANCE_MINUTES * 60_000;
  let nextSample = 1;
  out.samples.push({ minute: 0, stats: await stats() });
  try {
    for (let i = 0; performance.now() < end; i++) {
      const due = started + (i * 1000) / ENDURANCE_RATE;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const res = await steps[i % steps.length]!().catch(() => undefined);
      out.requests++;
      if (!res?.ok) out.failures++;
      await res?.arrayBuffer().catch(() => undefined);
      if (performance.now() - started >= nextSample * 60_000) {
        const s = await stats();
        out.samples.push({ minute: nextSample, stats: s });
        log(
          `endurance minute ${nextSample}: RSS ${(s.rssBytes! / 2 ** 20).toFixed(0)} MB, heap ${(s.heapUsedBytes! / 2 ** 20).toFixed(0)} MB, ${out.requests} requests`,
        );
        nextSample++;
      }
    }
  } finally {
    await stop(mock);
  }
  const at2 = out.samples.find((x) => x.minute === 2)?.stats.rssBytes;
  const last = out.samples.at(-1)!;
  if (at2 && last.minute >= 3) out.growth = last.stats.rssBytes! / at2 - 1;
  return out;
}

await main();
