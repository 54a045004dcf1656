// Requests to the target, with Node's fetch. Each protocol step is a pair: one
// function sends, the checks only read the Reply. Every request is bounded: in
// time (CONFORMANCE_REQUEST_TIMEOUT, its answer read whole), in size
// (CONFORMANCE_MAX_ANSWER_BYTES: a larger answer is read no further), and a
// target that stopped answering is not waited for again by any check of the
// run (targetDown). Playwright's request context reads every answer whole
// before a check sees it, which is why the suite does not use it.
import { readFileSync, writeFileSync } from "node:fs";
import { test } from "@playwright/test";
import type { Reply as Answer } from "../../src/contract/responses.ts";
import type { RetryPolicy, Target } from "./config.ts";
import { runFile, takeForGone, targetDown } from "./gone.ts";
import { exchangeOf, observe } from "./observed.ts";
import { NOT_CHECKED, TARGET_DOWN } from "./requirements.ts";
import { learnFromAnswer, learnFromRequest, redact } from "./secrets.ts";

export interface Reply extends Answer {
  /** "GET /v1/api/..." for messages. */
  call: string;
}

export interface SendOptions {
  headers?: Record<string, string>;
  body?: string;
  form?: Record<string, string | undefined>;
}

/**
 * How a worker sends to its target. In a read-only run, a request that could change customer
 * data is a bug of the check: it must carry @writes.
 */
export interface Api {
  baseUrl: string;
  readOnly: boolean;
  retries: RetryPolicy;
  timeoutMs: number;
  maxAnswerBytes: number;
}

export const apiFor = (t: Target): Api => ({
  baseUrl: t.baseUrl,
  readOnly: t.readOnly,
  retries: t.retries,
  timeoutMs: t.requestTimeoutMs,
  maxAnswerBytes: t.maxAnswerBytes,
});

/** What the requests of one check cost: sent (retries not counted), retried, still refused after retrying. */
export interface RequestCounts {
  requests: number;
  retried: number;
  refused: number;
}
let counts: RequestCounts = { requests: 0, retried: 0, refused: 0 };
/** The annotation a check's counts travel in to the reporter, as countsText writes them. */
export const REQUESTS_ANNOTATION = "requests";
export const countsText = (c: RequestCounts) =>
  `${c.requests} sent, ${c.retried} retried after 429/503, ${c.refused} still 429/503 after retrying`;
export function parseCounts(text: string | undefined): RequestCounts | undefined {
  const m = /^(\d+) sent, (\d+) retried after 429\/503, (\d+) still/.exec(text ?? "");
  return m ? { requests: Number(m[1]), retried: Number(m[2]), refused: Number(m[3]) } : undefined;
}

/** The counts since the last call; the fixture takes them after each check. */
export function takeCounts(): RequestCounts {
  const out = counts;
  counts = { requests: 0, retried: 0, refused: 0 };
  return out;
}

// An environment behind a rate limiter or a gateway answers these while it is busy: the request
// was not processed, so sending it again is safe even for a POST (RFC 9110 15.6.4, RFC 6585 4).
const BUSY = new Set([429, 503]);

/** Seconds a Retry-After asks for (delay-seconds or an HTTP-date); without one, 1, 2, 4 ... */
export function retryDelaySeconds(header: string | undefined, attempt: number, now = Date.now()): number {
  const value = header?.trim();
  if (value && /^\d+$/.test(value)) return Number(value);
  const date = value ? Date.parse(value) : Number.NaN;
  if (!Number.isNaN(date)) return Math.max(0, Math.ceil((date - now) / 1000));
  return 2 ** attempt;
}
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
export const STALE_CONNECTION = /socket hang up|other side closed|ECONNRESET|EPIPE|UND_ERR_SOCKET/;
const USER_AGENT = `bawa-conformance (Node.js ${process.version})`;

// ── a target that stopped answering ──

/** Requests in a row that got no answer, by target, in any worker: this many, and the target is taken for gone. */
export const NO_ANSWER_LIMIT = 3;
const unanswered = new Map<string, number>();

/** Requests in a row that got no answer from the target, in this run; `change` adds one or starts again at 0. */
function inARow(baseUrl: string, change: "add" | "reset"): number {
  const file = runFile("unanswered", baseUrl);
  let count = unanswered.get(baseUrl) ?? 0;
  try {
    if (file) count = Number(readFileSync(file, "utf8")) || 0;
  } catch {
    // None yet.
  }
  const next = change === "add" ? count + 1 : 0;
  unanswered.set(baseUrl, next);
  if (file && next !== count) writeFileSync(file, String(next), { mode: 0o600 });
  return next;
}

/** Takes the target for gone for the rest of the run (gone.ts), naming the check that found it so. */
function declareDown(baseUrl: string, why: string): void {
  const check = runningCheck();
  takeForGone(baseUrl, why, check ? { during: check.title } : {});
}

/** The check this worker runs, if any: none in the runner, in `bawa conformance`, or outside Playwright. */
function runningCheck(): ReturnType<typeof test.info> | undefined {
  try {
    return test.info();
  } catch {
    return undefined;
  }
}

/**
 * Ends the running check as not checked when its target is known to have stopped answering: what
 * a check cut off by a target that went away saw says nothing of its rule. The verdict says once
 * that the target stopped answering, so no check fails for it. Outside a check, nothing.
 */
export function skipIfDown(baseUrl: string): void {
  const gone = targetDown(baseUrl);
  if (gone !== undefined && runningCheck()) test.skip(true, `${TARGET_DOWN} (${gone})`);
}

/** Undefined when the target's base address answers within the probe's time (at most 5 s), else why not. */
export async function probeTarget(api: Pick<Api, "baseUrl" | "timeoutMs">): Promise<string | undefined> {
  const limit = Math.min(api.timeoutMs, 5_000);
  try {
    const res = await fetch(api.baseUrl, { redirect: "manual", signal: AbortSignal.timeout(limit) });
    await res.body?.cancel();
    return undefined;
  } catch (err) {
    return failureOf(err, limit);
  }
}

/**
 * A request (or a page of the screens) got no answer: after NO_ANSWER_LIMIT in a row, or when the
 * target's address does not answer either, the target is taken for gone.
 */
export async function noAnswer(api: Api, why: string): Promise<void> {
  const count = inARow(api.baseUrl, "add");
  if (count >= NO_ANSWER_LIMIT) {
    declareDown(api.baseUrl, `${count} requests in a row got no answer; the last: ${why}`);
    return;
  }
  const probed = await probeTarget(api);
  if (probed)
    declareDown(api.baseUrl, `a request got no answer (${why}), and ${api.baseUrl} did not answer either (${probed})`);
}

/**
 * A page of the screens did not load: the browser follows the target's redirects, and one to a
 * client's redirect URI where nothing listens fails as a page the target never answered would
 * (`net::ERR_CONNECTION_REFUSED at <the target's address>`). It counts as the target's request
 * without an answer only when the target's address does not answer now either; else the count
 * of requests without an answer starts again (the target just answered the probe).
 */
export async function pageNotLoaded(api: Api, why: string): Promise<void> {
  if ((await probeTarget(api)) === undefined) {
    inARow(api.baseUrl, "reset");
    return;
  }
  await noAnswer(api, why);
}

/** What went wrong with a request, in a few words. */
export function failureOf(err: unknown, limitMs: number): string {
  const e = err as Error & { cause?: Error & { code?: string } };
  if (e.name === "TimeoutError" || e.cause?.name === "TimeoutError")
    return `no answer within ${limitMs / 1000} s, the limit CONFORMANCE_REQUEST_TIMEOUT sets`;
  return String(e.cause?.message ?? e.cause?.code ?? e.message).split("\n")[0]!;
}

/** An answer over CONFORMANCE_MAX_ANSWER_BYTES: read no further. */
class AnswerTooLarge extends Error {
  override name = "AnswerTooLarge";
}

/** The body of an answer, read until its end or until it is larger than `max` bytes. */
async function readBody(res: Response, max: number, call: string): Promise<Buffer> {
  const tooLarge = (size: string) =>
    new AnswerTooLarge(
      `${call}: the answer is larger than ${max} bytes (${size}), the limit CONFORMANCE_MAX_ANSWER_BYTES sets; it was not read further`,
    );
  const declared = Number(res.headers.get("content-length") ?? Number.NaN);
  if (declared > max) {
    await res.body?.cancel();
    throw tooLarge(`Content-Length ${declared}`);
  }
  if (!res.body) return Buffer.alloc(0);
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (let part = await reader.read(); !part.done; part = await reader.read()) {
    size += part.value.byteLength;
    if (size > max) {
      // The rest is never read: the connection is closed.
      await reader.cancel();
      throw tooLarge(`${size} bytes read`);
    }
    chunks.push(part.value);
  }
  return Buffer.concat(chunks, size);
}

/** Header names in lower case; several Set-Cookie headers one per line. */
function headersOf(res: Response): Record<string, string> {
  const out: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    if (name !== "set-cookie") out[name] = value;
  });
  const cookies = res.headers.getSetCookie();
  if (cookies.length > 0) out["set-cookie"] = cookies.join("\n");
  return out;
}

export async function send(api: Api, method: string, url: string, opts: SendOptions = {}): Promise<Reply> {
  const headers: Record<string, string> = { "user-agent": USER_AGENT, ...opts.headers };
  let data: string | undefined = opts.body;
  if (opts.form) {
    const pairs = new URLSearchParams();
    for (const [k, v] of Object.entries(opts.form)) if (v !== undefined) pairs.set(k, v);
    data = pairs.toString();
    headers["content-type"] ??= "application/x-www-form-urlencoded";
  }
  learnFromRequest(headers, opts.form);
  const path = new URL(url).pathname;
  const call = `${method} ${path}`;
  if (api.readOnly && !SAFE_METHODS.has(method.toUpperCase()) && /\/api\//i.test(path))
    throw new Error(`read-only run: ${call} could change customer data, so this check must be tagged @writes`);
  skipIfDown(api.baseUrl);
  const gone = targetDown(api.baseUrl);
  if (gone) throw new Error(`${call}: not sent: the target stopped answering earlier in this run (${gone})`);
  const attempt = async () => {
    const res = await fetch(url, {
      method,
      headers,
      ...(data === undefined ? {} : { body: data }),
      redirect: "manual",
      signal: AbortSignal.timeout(api.timeoutMs),
    });
    return { status: res.status, headers: headersOf(res), body: await readBody(res, api.maxAnswerBytes, call) };
  };
  const answer = async () => {
    try {
      try {
        return await attempt();
      } catch (err) {
        // A kept-alive connection the target closed just as the request went out (Node servers
        // close idle ones after 5 s) resets before any answer: the target never saw the request.
        const cause = (err as { cause?: Error & { code?: string } }).cause;
        if (!STALE_CONNECTION.test(`${cause?.code} ${cause?.message}`)) throw err;
        return await attempt();
      }
    } catch (err) {
      // Too large: the target answered. No cause and no timeout: the request itself was wrong (a bug of the check).
      const e = err as Error & { cause?: unknown };
      if (err instanceof AnswerTooLarge || (e.cause === undefined && e.name !== "TimeoutError")) throw err;
      const why = failureOf(err, api.timeoutMs);
      await noAnswer(api, `${call}: ${why}`);
      skipIfDown(api.baseUrl);
      throw new Error(`${call}: no answer from the target (${why})`);
    }
  };
  counts.requests++;
  let res = await answer();
  for (let retry = 0; BUSY.has(res.status); retry++) {
    const wait = retryDelaySeconds(res.headers["retry-after"], retry);
    if (retry >= api.retries.times || wait > api.retries.maxWaitSeconds) {
      counts.refused++;
      break;
    }
    if (retry === 0) counts.retried++;
    await new Promise((r) => setTimeout(r, wait * 1000));
    res = await answer();
  }
  inARow(api.baseUrl, "reset");
  const text = res.body.toString("utf8");
  learnFromAnswer({ headers: res.headers, text });
  await observe(
    exchangeOf({
      method,
      url,
      requestHeaders: headers,
      requestBody: data === undefined ? undefined : Buffer.from(data, "utf8"),
      status: res.status,
      headers: Object.entries(res.headers).flatMap(([name, value]) =>
        name === "set-cookie" ? value.split("\n").map((v) => ({ name, value: v })) : [{ name, value }],
      ),
      body: res.body,
    }),
  );
  return {
    status: res.status,
    headers: res.headers,
    text,
    call,
    json: () => {
      try {
        return JSON.parse(text);
      } catch {
        throw new Error(`${call} answered ${res.status} with a body that is not JSON: ${quote(text)}`);
      }
    },
  };
}

/** Text of an answer for a message: its secrets replaced, then cut to `max` characters. */
export const quote = (text: string, max = 200): string => redact(text).slice(0, max);

/** A 2xx other than 200 is ERR-200's finding, reported once by its own check: this one is not checked. */
export function skipOtherSuccess(reply: { status: number; call: string }): void {
  test.skip(
    reply.status > 200 && reply.status < 300,
    `${NOT_CHECKED}ERR-200: ${reply.call} answered ${reply.status} for a call that succeeds`,
  );
}

/**
 * A check that needs an object the target would not create is not checked because of the rule
 * the refusal breaks (`rule`; a 2xx other than 200 is ERR-200's): that rule's own check reports it.
 */
export function notCreated(reply: Reply, rule: string): void {
  skipOtherSuccess(reply);
  test.skip(
    reply.status !== 200,
    `${NOT_CHECKED}${rule}: ${reply.call} answered ${reply.status}: ${quote(reply.text)}`,
  );
}

// Per worker (a worker is a process): whether the ids POST answers address their objects, by target
// (its Api, made once per target and worker: a worker may check several, decision 0031) and resource.
const addresses = new WeakMap<Pick<Api, "baseUrl">, Map<string, Promise<number>>>();

/**
 * A check that creates an object to work on it needs the id POST answered to address it; one
 * that does not is SVC-RESOURCE-ADDRESS's finding, reported by its own check. Read once per
 * resource, target and worker, at the first object a helper creates: `read` GETs it at the id POST
 * answered.
 */
export async function notAddressable(
  api: Pick<Api, "baseUrl">,
  resource: string,
  read: () => Promise<Reply>,
): Promise<void> {
  let ofTarget = addresses.get(api);
  if (!ofTarget) {
    ofTarget = new Map();
    addresses.set(api, ofTarget);
  }
  let status = ofTarget.get(resource);
  if (!status) {
    status = read().then((r) => r.status);
    ofTarget.set(resource, status);
  }
  const answered = await status;
  test.skip(
    answered === 404,
    `${NOT_CHECKED}SVC-RESOURCE-ADDRESS · ${resource}: an id POST answered reads 404 at the ${resource}'s address`,
  );
}
