// Every exchange the suite makes with the target, through its API client or
// its browser, is judged by the rule layer (src/rules), the same judge bawa
// proxy runs: a rule is checked on every request it applies to, not only in the
// check that names it. What the judge finds during a check travels to the
// matrix in an annotation of that check; a finding of the check's own
// requirement (and subject) fails the check itself.
import type { APIResponse, BrowserContext, Request, Response } from "@playwright/test";
import type { CompiledContract } from "../../src/contract/index.ts";
import { type AnswerShape, answerShape } from "../../src/rules/answer-shape.ts";
import { Coverage, type CoverageData } from "../../src/rules/coverage.ts";
import type { Exchange } from "../../src/rules/exchange.ts";
import { Judge, type Judgement, type Kind } from "../../src/rules/judge/index.ts";

/** The annotation what of the contract a check's exchanges exercised travels in (coverage.ts data, JSON). */
export const COVERAGE_ANNOTATION = "coverage";

/**
 * The annotation the shapes of a check's answers travel in (answer-shape.ts, a JSON array), in a
 * run of several targets compared side by side (CONFORMANCE_COMPARE=1).
 */
export const ANSWERS_ANNOTATION = "answers";
const COMPARING = process.env.CONFORMANCE_COMPARE === "1";

/** The annotation a check's observed violations travel in to the matrix, one JSON object each. */
export const OBSERVED_ANNOTATION = "observed";

/** What the matrix reads of an observed violation. */
export type Observed = Pick<Judgement, "requirement" | "where" | "expected" | "found" | "resource" | "kind">;

/** A violation as one line of a report: where, what was expected, what was found. */
export const observedText = (o: Observed) =>
  `${o.where}: expected ${o.expected}${o.found === undefined ? "" : `, found ${o.found}`}`;

// Per worker (a worker is a process checking one target at a time): a judge per target, and what
// it found since the last check ended.
const judges = new Map<string, Judge>();
let current: Judge | undefined;
let found: Judgement[] = [];
const coverage = new Coverage();
let shapes: AnswerShape[] = [];
// Browser answers are read asynchronously (their bodies); they are judged in the order they came.
let browser: Promise<void> = Promise.resolve();

/**
 * The judge of this target, made once per worker with the run's contract and the target's kinds;
 * it judges from now on. `target` names it: two targets of a run may share an address (another
 * version, database or kinds) and one worker may check both, each with a judge of its own.
 */
export function observeTarget(target: string, contract: CompiledContract, kinds: Iterable<Kind>): Judge {
  let judge = judges.get(target);
  if (!judge) {
    judge = new Judge(contract, { kinds: [...kinds] });
    judges.set(target, judge);
  }
  current = judge;
  return judge;
}

/** Judges one exchange the suite made; API calls wait for the browser's answers that came before them. */
export async function observe(ex: Exchange): Promise<void> {
  await browser;
  if (current) judged(current, ex);
}

function judged(judge: Judge, ex: Exchange): void {
  try {
    found.push(...judge.judge(ex));
    coverage.add(judge.placeOf(ex), ex);
    if (COMPARING) shapes.push(answerShape(judge.placeOf(ex), ex));
  } catch (err) {
    // A bug of the rules must not take the checks with it: it is said, and the check goes on.
    console.error(`bawa conformance: internal error judging ${ex.method} ${ex.url} (a bug of bawa):`, err);
  }
}

/** What the judge found since the last call: the findings of one check. */
export async function takeObserved(): Promise<Judgement[]> {
  await browser;
  const out = found;
  found = [];
  return out;
}

/** What of the contract the exchanges since the last call exercised: one check's share. */
export async function takeCoverage(): Promise<CoverageData> {
  await browser;
  return coverage.take({ reset: true });
}

/** The shapes of the answers since the last call (runs compared side by side; empty otherwise). */
export async function takeShapes(): Promise<AnswerShape[]> {
  await browser;
  const out = shapes;
  shapes = [];
  return out;
}

const lowerHeaders = (headers: ReadonlyArray<{ name: string; value: string }>) => {
  const out: Record<string, string | string[]> = {};
  for (const { name, value } of headers) {
    const k = name.toLowerCase();
    const known = out[k];
    out[k] = known === undefined ? value : [...[known].flat(), value];
  }
  return out;
};

/** The path and query of a URL, as a client sends them. */
export const targetOf = (url: string) => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};

/** An exchange in the rules' plain data: header names in lower case, Set-Cookie as a list. */
export function exchangeOf(parts: {
  method: string;
  url: string;
  requestHeaders: Record<string, string>;
  requestBody: Buffer | undefined;
  status: number;
  headers: ReadonlyArray<{ name: string; value: string }>;
  body: Buffer | undefined;
}): Exchange {
  const answered = lowerHeaders(parts.headers);
  const single = Object.fromEntries(
    Object.entries(answered).map(([k, v]) => [k, k === "set-cookie" ? [v].flat() : [v].flat()[0]]),
  );
  return {
    method: parts.method,
    url: targetOf(parts.url),
    requestHeaders: Object.fromEntries(Object.entries(parts.requestHeaders).map(([k, v]) => [k.toLowerCase(), v])),
    requestBody: parts.requestBody,
    status: parts.status,
    headers: single,
    body: parts.body,
    at: Date.now(),
  };
}

/**
 * The header of the page the suite shows the browser in place of a redirect out of the target
 * (screens.ts catches it where the target answers it): the observer judges the target's own
 * answer, handed to observeCaught, not that page.
 */
export const CAUGHT_HEADER = "x-conformance-caught";

/** Reads an answer of the target to the browser as the rules' exchange. */
async function readAnswer(request: Request, res: Response | APIResponse): Promise<Exchange> {
  const status = res.status();
  // A redirect has no body to read; a page's is read for the rules of error pages.
  const body = status >= 300 && status < 400 ? undefined : await res.body().catch(() => undefined);
  return exchangeOf({
    method: request.method(),
    url: res.url(),
    requestHeaders: await request.allHeaders().catch(() => request.headers()),
    requestBody: request.postDataBuffer() ?? undefined,
    status,
    headers: await Promise.resolve(res.headersArray()).catch(() => []),
    body,
  });
}

/** Judges an answer in the order the browser's came, with the judge of the check it came in. */
function judgeInTurn(exchange: Promise<Exchange>): void {
  const judge = current;
  browser = browser.then(async () => {
    const ex = await exchange;
    if (judge) judged(judge, ex);
  });
}

/** Judges what a browser context receives from the target (the screens, the redirects). */
export function observeBrowser(context: BrowserContext, baseUrl: string): void {
  const origin = new URL(baseUrl).origin;
  context.on("response", (res) => {
    if (new URL(res.url()).origin !== origin || res.headers()[CAUGHT_HEADER] !== undefined) return;
    judgeInTurn(readAnswer(res.request(), res));
  });
}

/** Judges the target's answer to a browser's request that the suite fetched and caught (a redirect out). */
export function observeCaught(request: Request, answer: APIResponse): void {
  judgeInTurn(readAnswer(request, answer));
}
