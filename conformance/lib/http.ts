// Requests to the target through Playwright's request context. Each protocol
// step is a pair: one function sends, the checks only read the Reply.
import type { APIRequestContext } from "@playwright/test";
import type { Reply as Answer } from "../../src/contract/responses.ts";

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
/** In a read-only run, a request that could change customer data is a bug of the check: it must carry @writes. */
export function refuseWrites(on: boolean): void {
  readOnly = on;
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
  let res: Awaited<ReturnType<APIRequestContext["fetch"]>>;
  try {
    try {
      res = await attempt();
    } catch (err) {
      // A kept-alive connection the target closed just as the request went out (Node servers
      // close idle ones after 5 s) resets before any answer: the target never saw the request.
      if (!STALE_CONNECTION.test((err as Error).message)) throw err;
      res = await attempt();
    }
  } catch (err) {
    throw new Error(`${call}: no answer from the target (${(err as Error).message.split("\n")[0]})`);
  }
  const text = await res.text();
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
