// `npm run bench:handle`: the mock's handle() in process, for each headline scenario of the bench:
// µs per call and bytes allocated per call, with no socket, load generator or neighbour in the
// figure. The CPU per answer of `npm run bench` is this plus node:http, the kernel and the
// collector; a change to the hot path shows here first, and steadily. Figures, not tests.
//
// Run with a young generation large enough that no collection falls inside a measured stretch of
// ALLOCATION_CALLS calls (the npm script passes --max-semi-space-size and --expose-gc, to empty it
// first), so the heap's growth over it is what the calls allocated.
import { buildMock } from "../src/mock/index.ts";
import { refreshForm } from "../src/mock/node/client.ts";
import { seedAccounts } from "../src/mock/seed.ts";
import { SCENARIOS } from "./bench-scenarios.ts";

/** Calls per timed round (BENCH_HANDLE_CALLS); three rounds after a warm-up as long, the median shown. */
const CALLS = Number(process.env.BENCH_HANDLE_CALLS ?? 20_000);
const ROUNDS = 3;
/** Calls over which allocation is read from the heap's growth: well inside a 64 MB young generation. */
const ALLOCATION_CALLS = 1_000;

function main(): void {
  const mock = buildMock();
  const call = (method: string, url: string, headers: Record<string, string>, body?: string) =>
    mock.handle({
      method,
      url,
      headers: { host: "127.0.0.1:4010", ...headers },
      body: body === undefined ? undefined : Buffer.from(body),
      remoteAddress: "127.0.0.1",
    });
  const { app } = seedAccounts();
  const generated = call(
    "POST",
    "/__mock/refresh-tokens",
    { "content-type": "application/json" },
    JSON.stringify({ clientId: app.clientId, clientSecret: app.clientSecret }),
  );
  const refresh = (JSON.parse(String(generated.body)) as { refresh_token: string }).refresh_token;
  const granted = call(
    "POST",
    "/v1/OAuth/Token",
    { "content-type": "application/x-www-form-urlencoded" },
    refreshForm(refresh),
  );
  const access = (JSON.parse(String(granted.body)) as { access_token?: string }).access_token;
  if (!access) throw new Error(`the mock refused the background user's refresh grant (${granted.status})`);

  console.log(
    `handle() in process, ${CALLS.toLocaleString("en")} calls per round, median of ${ROUNDS} after a warm-up`,
  );
  console.log(`${"scenario".padEnd(40)} ${"µs per call".padStart(12)} ${"bytes allocated per call".padStart(26)}`);
  for (const s of SCENARIOS) {
    const r = s.request({ access, refresh });
    // Headers as node:http gives them: lower-case names, and the body's length.
    const headers: Record<string, string> = {
      ...Object.fromEntries(Object.entries(r.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v])),
      ...(r.body ? { "content-length": String(Buffer.byteLength(r.body)) } : {}),
    };
    const body = r.body === undefined ? undefined : Buffer.from(r.body);
    const request = { method: r.method ?? "GET", url: s.path, headers, body, remoteAddress: "127.0.0.1" };
    const first = mock.handle(request);
    if (first.status >= 300) throw new Error(`${s.scenario} answered ${first.status}: ${String(first.body)}`);
    // Every call must succeed, not only the first: a store or a token cap that fills up would
    // measure its refusals (the per-client cap of access tokens, 100,000, is reached at 25,000).
    let refused = 0;
    let status = 0;
    const times: number[] = [];
    for (let round = -1; round < ROUNDS; round++) {
      const started = performance.now();
      for (let i = 0; i < CALLS; i++) {
        const answer = mock.handle(request);
        if (answer.status >= 300) {
          refused++;
          status = answer.status;
        }
      }
      if (round >= 0) times.push(((performance.now() - started) * 1000) / CALLS);
    }
    // An empty young generation first (the npm script exposes gc), so no collection falls inside.
    (globalThis as { gc?: () => void }).gc?.();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < ALLOCATION_CALLS; i++) if (mock.handle(request).status >= 300) refused++;
    const bytes = (process.memoryUsage().heapUsed - before) / ALLOCATION_CALLS;
    if (refused > 0) {
      throw new Error(
        `${s.scenario}: ${refused} of ${(ROUNDS + 1) * CALLS + ALLOCATION_CALLS} calls answered ${status}; measure fewer (BENCH_HANDLE_CALLS=${CALLS})`,
      );
    }
    const median = times.sort((a, b) => a - b)[Math.floor(ROUNDS / 2)]!;
    console.log(
      `${s.scenario.padEnd(40)} ${median.toFixed(1).padStart(12)} ${(bytes < 0 ? "n/a (a collection ran)" : Math.round(bytes).toLocaleString("en")).padStart(26)}`,
    );
  }
}

try {
  main();
} catch (err) {
  console.error(`bench:handle: ${(err as Error).message}`);
  process.exit(1);
}
