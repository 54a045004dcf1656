// In-process figures of the bench's headline scenarios: the mock's handle() per call (µs and
// bytes allocated), and what bawa proxy's judge spends per exchange. No socket, load generator or
// neighbour in them: a change to a hot path shows here first, and steadily. Figures, not tests.
import type { MockRequest, MockResponse } from "../src/mock/core/http.ts";
import { bodyBytes } from "../src/mock/core/http.ts";
import { buildMock } from "../src/mock/index.ts";
import { refreshForm } from "../src/mock/node/client.ts";
import { seedAccounts } from "../src/mock/seed.ts";
import type { Exchange } from "../src/rules/exchange.ts";
import { Judge } from "../src/rules/judge/index.ts";
import { SCENARIOS, type Scenario } from "./bench-scenarios.ts";

/** Calls per timed round (BENCH_HANDLE_CALLS); three rounds after a warm-up as long, the median shown. */
const CALLS = Number(process.env.BENCH_HANDLE_CALLS ?? 20_000);
const ROUNDS = 3;
/** Calls over which allocation is read from the heap's growth: well inside a 64 MB young generation. */
const ALLOCATION_CALLS = 1_000;

export interface Cost {
  scenario: string;
  /** Median µs per call. */
  us: number;
  /** Bytes allocated per call; undefined when a collection ran meanwhile or gc is not exposed. */
  bytes?: number;
}

/** A mock in this process with the background user's tokens, and a scenario's request as node:http gives it. */
function inProcessMock() {
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
  const requestOf = (s: Scenario): MockRequest => {
    const r = s.request({ access, refresh });
    // Headers as node:http gives them: lower-case names, and the body's length.
    const headers: Record<string, string> = {
      host: "127.0.0.1:4010",
      ...Object.fromEntries(Object.entries(r.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v])),
      ...(r.body ? { "content-length": String(Buffer.byteLength(r.body)) } : {}),
    };
    const body = r.body === undefined ? undefined : Buffer.from(r.body);
    return { method: r.method ?? "GET", url: s.path, headers, body, remoteAddress: "127.0.0.1" };
  };
  return { mock, requestOf };
}

/**
 * Times `once` over ROUNDS rounds of CALLS after a warm-up as long (the median), then reads the
 * bytes it allocates from the heap's growth over ALLOCATION_CALLS (with gc exposed, so no
 * collection falls inside). `once` returns false when the call was refused.
 */
function cost(scenario: string, once: () => boolean): Cost {
  let refused = 0;
  const times: number[] = [];
  for (let round = -1; round < ROUNDS; round++) {
    const started = performance.now();
    for (let i = 0; i < CALLS; i++) if (!once()) refused++;
    if (round >= 0) times.push(((performance.now() - started) * 1000) / CALLS);
  }
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < ALLOCATION_CALLS; i++) if (!once()) refused++;
  const bytes = (process.memoryUsage().heapUsed - before) / ALLOCATION_CALLS;
  if (refused > 0) {
    throw new Error(
      `${scenario}: ${refused} of ${(ROUNDS + 1) * CALLS + ALLOCATION_CALLS} calls were refused; measure fewer (BENCH_HANDLE_CALLS=${CALLS})`,
    );
  }
  const us = times.sort((a, b) => a - b)[Math.floor(ROUNDS / 2)]!;
  return { scenario, us, ...(gc && bytes >= 0 ? { bytes } : {}) };
}

/** handle() per call for each headline scenario. */
export function handleCosts(scenarios: readonly Scenario[] = SCENARIOS): Cost[] {
  const { mock, requestOf } = inProcessMock();
  return scenarios.map((s) => {
    const request = requestOf(s);
    const first = mock.handle(request);
    if (first.status >= 300) throw new Error(`${s.scenario} answered ${first.status}: ${String(first.body)}`);
    // Every call must succeed, not only the first: a store or a token cap that fills up would
    // measure its refusals (the per-client cap of access tokens, 100,000, is reached at 25,000).
    return cost(s.scenario, () => mock.handle(request).status < 300);
  });
}

/** One exchange as bawa proxy hands it to its judge: the request and the mock's answer to it. */
function exchangeOf(request: MockRequest, answer: MockResponse): Exchange {
  const body = bodyBytes(answer);
  return {
    method: request.method,
    url: request.url,
    requestHeaders: request.headers,
    requestBody: request.body,
    status: answer.status,
    headers: answer.headers as Exchange["headers"],
    body: body === undefined ? undefined : Buffer.from(body),
    at: Date.now(),
  };
}

/**
 * What bawa proxy's judge spends per exchange (src/proxy/node.ts runs these three on each):
 * `judge()` of the answer, `requestProblem()` of the request, and the place the log names.
 */
export function judgeCosts(scenarios: readonly Scenario[]): Cost[] {
  const { mock, requestOf } = inProcessMock();
  const judge = new Judge(mock.ctx.contract);
  return scenarios.map((s) => {
    const request = requestOf(s);
    const ex = exchangeOf(request, mock.handle(request));
    if (ex.status >= 300) throw new Error(`${s.scenario} answered ${ex.status}`);
    if (judge.judge(ex).length > 0) throw new Error(`${s.scenario}: the judge found the mock's answer wrong`);
    // Each call judges a new exchange, as the proxy hands over: its own object, headers and
    // buffers, so no reading of an earlier call (the place, the parsed body) is found cached.
    return cost(s.scenario, () => {
      const fresh: Exchange = {
        ...ex,
        requestHeaders: { ...ex.requestHeaders },
        requestBody: ex.requestBody && Buffer.from(ex.requestBody),
        headers: { ...ex.headers },
        body: ex.body && Buffer.from(ex.body),
      };
      judge.judge(fresh);
      judge.requestProblem(fresh);
      judge.placeOf(fresh);
      return true;
    });
  });
}
