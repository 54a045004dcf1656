// Requests to the target through Playwright's request context. Each protocol
// step is a pair: one function sends, the checks only read the Reply.
import { type APIRequestContext, test } from "@playwright/test";
import type { Reply as Answer } from "../../src/contract/responses.ts";
import type { RetryPolicy } from "./config.ts";
import { exchangeOf, observe } from "./observed.ts";
import { NOT_CHECKED } from "./requirements.ts";

export interface Reply extends Answer {
  /** "GET /v1/api/..." for messages. */
  call: string;
}

export interface SendOptions {
  headers?: Record<string, string>;
  body?: string;
  form?: Record<string, string | undefined>;
}

const TIMEOUT_MS = 15_000;

let readOnly = false;
let retries: RetryPolicy = { times: 0, maxWaitSeconds: 0 };
/**
 * How this worker sends. In a read-only run, a request that could change customer data is a
 * bug of the check: it must carry @writes.
 */
export function configureSending(opts: { readOnly: boolean; retries: RetryPolicy }): void {
  readOnly = opts.readOnly;
  retries = opts.retries;
}

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
const STALE_CONNECTION = /socket hang up|ECONNRESET|EPIPE/;

export async function send(
  api: APIRequestContext,
  method: string,
  url: string,
  opts: SendOptions = {},
): Promise<Reply> {
  const headers = { ...opts.headers };
  let data: string | undefined = opts.body;
  if (opts.form) {
    const pairs = new URLSearchParams();
    for (const [k, v] of Object.entries(opts.form)) if (v !== undefined) pairs.set(k, v);
    data = pairs.toString();
    headers["content-type"] ??= "application/x-www-form-urlencoded";
  }
  const path = new URL(url).pathname;
  const call = `${method} ${path}`;
  if (readOnly && !SAFE_METHODS.has(method.toUpperCase()) && /\/api\//i.test(path))
    throw new Error(`read-only run: ${call} could change customer data, so this check must be tagged @writes`);
  const attempt = () =>
    api.fetch(url, {
      method,
      headers,
      ...(data === undefined ? {} : { data }),
      maxRedirects: 0,
      failOnStatusCode: false,
      timeout: TIMEOUT_MS,
    });
  const answer = async () => {
    try {
      try {
        return await attempt();
      } catch (err) {
        // A kept-alive connection the target closed just as the request went out (Node servers
        // close idle ones after 5 s) resets before any answer: the target never saw the request.
        if (!STALE_CONNECTION.test((err as Error).message)) throw err;
        return await attempt();
      }
    } catch (err) {
      throw new Error(`${call}: no answer from the target (${(err as Error).message.split("\n")[0]})`);
    }
  };
  counts.requests++;
  let res = await answer();
  for (let retry = 0; BUSY.has(res.status()); retry++) {
    const wait = retryDelaySeconds(res.headers()["retry-after"], retry);
    if (retry >= retries.times || wait > retries.maxWaitSeconds) {
      counts.refused++;
      break;
    }
    if (retry === 0) counts.retried++;
    await res.dispose();
    await new Promise((r) => setTimeout(r, wait * 1000));
    res = await answer();
  }
  const bytes = await res.body();
  const text = bytes.toString("utf8");
  await observe(
    exchangeOf({
      method,
      url,
      requestHeaders: headers,
      requestBody: data === undefined ? undefined : Buffer.from(data, "utf8"),
      status: res.status(),
      headers: res.headersArray(),
      body: bytes,
    }),
  );
  return {
    status: res.status(),
    headers: res.headers(),
    text,
    call,
    json: () => {
      try {
        return JSON.parse(text);
      } catch {
        throw new Error(`${call} answered ${res.status()} with a body that is not JSON: ${text.slice(0, 200)}`);
      }
    },
  };
}

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
    `${NOT_CHECKED}${rule}: ${reply.call} answered ${reply.status}: ${reply.text.slice(0, 200)}`,
  );
}

// Per worker (a worker is a process): whether the ids POST answers address their objects, by resource.
const addresses = new Map<string, Promise<number>>();

/**
 * A check that creates an object to work on it needs the id POST answered to address it; one
 * that does not is SVC-RESOURCE-ADDRESS's finding, reported by its own check. Read once per
 * resource and worker, at the first object a helper creates: `read` GETs it at the id POST answered.
 */
export async function notAddressable(resource: string, read: () => Promise<Reply>): Promise<void> {
  let status = addresses.get(resource);
  if (!status) {
    status = read().then((r) => r.status);
    addresses.set(resource, status);
  }
  const answered = await status;
  test.skip(
    answered === 404,
    `${NOT_CHECKED}SVC-RESOURCE-ADDRESS · ${resource}: an id POST answered reads 404 at the ${resource}'s address`,
  );
}
