// The token endpoint as the checks use it: a request, the code flow through
// the screens, the configured user's tokens, and a code exchanged after the
// target's clock moved.
import { type Browser, type BrowserContext, expect, type Page, test } from "@playwright/test";
import type { components } from "../../src/contract/generated/openapi.ts";
import { oauthFacts } from "../../src/rules/oauth.ts";
import { apiBase, CLIENT_SETTINGS, type Client, missingOf, STORED_REFRESH_TOKEN, type Target } from "./config.ts";
import { type Api, quote, type Reply, send } from "./http.ts";
import { observeBrowser } from "./observed.ts";
import { NOT_CHECKED } from "./requirements.ts";
import { suiteContract } from "./resources.ts";
import { BrowserLaunchError, codeIn, codeOf, codeThroughScreens, keptPage, throughScreens } from "./screens.ts";

export interface Tokens {
  access_token: string;
  refresh_token?: string;
  scope?: unknown;
}

export const tokenUrl = (t: Target, letter: "v" | "V" = "v") => `${apiBase(t, letter)}/OAuth/Token`;

export const clientParams = (c: Client) => ({
  client_id: c.clientId,
  client_secret: c.clientSecret,
  redirect_uri: c.redirectUri,
});

export async function tokenRequest(api: Api, t: Target, form: Record<string, string | undefined>): Promise<Reply> {
  return send(api, "POST", tokenUrl(t), { form });
}

/** The fields of a token endpoint answer: its JSON object, a form's pairs, or undefined for anything else. */
export function readTokenAnswer(res: Reply): Record<string, unknown> | undefined {
  try {
    const json: unknown = JSON.parse(res.text);
    return typeof json === "object" && json !== null && !Array.isArray(json) ? (json as Record<string, unknown>) : {};
  } catch {
    const form = new URLSearchParams(res.text.trim());
    return form.has("access_token") || form.has("error") ? Object.fromEntries(form) : undefined;
  }
}

/**
 * The fields of a token endpoint answer. A form-encoded answer is TOKEN-FORM-BODY's finding,
 * reported by its check: the other checks read it as the form it is and go on, so the one drift
 * is one finding. An answer that is neither: not checked because of `owner`, the rule whose check
 * reads that answer strictly (TOK-REFRESH for a refresh grant's answer, which TOKEN-FORM-BODY's
 * check does not read).
 */
export function tokenFields(
  res: Reply,
  owner: "TOKEN-FORM-BODY" | "TOK-REFRESH" = "TOKEN-FORM-BODY",
): Record<string, unknown> {
  const fields = readTokenAnswer(res);
  test.skip(
    fields === undefined,
    `${NOT_CHECKED}${owner}: ${res.call} answered ${res.status} with neither JSON nor a form: ${quote(res.text, 100)}`,
  );
  return fields!;
}

/** Whether a token endpoint answer is JSON (TOKEN-FORM-BODY's rule). */
export function answeredJson(res: Reply): boolean {
  try {
    JSON.parse(res.text);
    return true;
  } catch {
    return false;
  }
}

/** The checks of the grants that give tokens: their refusals and answers are these checks' findings. */
export type GrantRule = "TOK-CODE-EXCHANGE" | "TOK-REFRESH";

/**
 * The tokens a grant gave, for a check that only needs them. A refusal, or an answer without an
 * access token (or without a refresh token, when the check needs one), is the finding of the
 * grant's own check: this one is not checked because of it.
 */
export function grantedTokens(res: Reply, grant: GrantRule, needs: { refresh?: boolean } = {}): Tokens {
  test.skip(res.status !== 200, `${NOT_CHECKED}${grant}: ${res.call} answered ${res.status}: ${quote(res.text, 150)}`);
  const fields = tokenFields(res);
  test.skip(typeof fields.access_token !== "string", `${NOT_CHECKED}${grant}: ${res.call} gave no access_token`);
  test.skip(
    needs.refresh === true && typeof fields.refresh_token !== "string",
    `${NOT_CHECKED}${grant}: ${res.call} gave no refresh_token`,
  );
  return fields as unknown as Tokens;
}

/** A token error code the contract lists (RFC 6749 5.2, A-TOKEN-ERRORS). */
export type TokenError = components["schemas"]["OAuthError"]["error"];

/**
 * The token endpoint refused `res` with the error `expected`. A refusal with a code RFC 6749 5.2
 * does not have is OAUTH-TOKEN-ERRORS' finding, reported there once: the check that only needs
 * the refusal is then not checked because of it.
 */
export function expectTokenError(res: Reply, expected: TokenError, what = res.call): void {
  const error = readTokenAnswer(res)?.error;
  test.skip(
    res.status >= 400 && typeof error === "string" && !oauthFacts(suiteContract()).tokenErrors.includes(error),
    `${NOT_CHECKED}OAUTH-TOKEN-ERRORS: ${res.call} refused with error ${JSON.stringify(error)}, no code of RFC 6749 5.2`,
  );
  expect(error, `${what}: ${res.status} ${quote(res.text, 200)}`).toBe(expected);
}

// A browser context costs a fifth of a second to make; the code flows of a worker share one and
// its page, their cookies cleared first, so each flow starts as a new browser would. A worker that
// checks several targets one after the other (decision 0031) observes each target's answers there.
const flowContexts = new WeakMap<Browser, { context: Promise<BrowserContext>; observed: Set<string> }>();

/** Through the screens for a code, in a fresh page without cookies: where the browser landed. */
async function codeRedirect(browser: Browser, t: Target, client: Client): Promise<URL> {
  let flows = flowContexts.get(browser);
  if (!flows) {
    flows = { context: browser.newContext(), observed: new Set() };
    flowContexts.set(browser, flows);
  }
  const ctx = await flows.context;
  // observeBrowser judges every answer of an origin: one listener per origin, whatever the path.
  const origin = new URL(t.baseUrl).origin;
  if (!flows.observed.has(origin)) {
    flows.observed.add(origin);
    observeBrowser(ctx, t.baseUrl);
  }
  await ctx.clearCookies();
  // The context is the worker's, for target after target: each walk waits as its own target says.
  ctx.setDefaultNavigationTimeout(t.requestTimeoutMs);
  return throughScreens(await keptPage(ctx), t, { client, responseType: "code", state: "conformance" });
}

/** Code flow through the screens, in a fresh page without cookies, then the code exchange (see codeOf). */
export async function codeFlow(api: Api, browser: Browser, t: Target, client: Client = t.client!): Promise<Reply> {
  const code = codeOf(await codeRedirect(browser, t, client));
  return tokenRequest(api, t, { grant_type: "authorization_code", code, ...clientParams(client) });
}

/**
 * The access token of a code flow, or undefined when the flow gives none (or the run opens no
 * browser: asking for one would skip the check); never skips, and throws only when the browser
 * could not be started.
 */
export async function codeFlowToken(api: Api, browser: () => Promise<Browser>, t: Target): Promise<string | undefined> {
  if (!t.browser) return undefined;
  try {
    const code = codeIn(await codeRedirect(await browser(), t, t.client!));
    if (!code) return undefined;
    const res = await tokenRequest(api, t, { grant_type: "authorization_code", code, ...clientParams(t.client!) });
    const token = res.status === 200 ? readTokenAnswer(res)?.access_token : undefined;
    return typeof token === "string" ? token : undefined;
  } catch (err) {
    if (err instanceof BrowserLaunchError) throw err;
    return undefined;
  }
}

/**
 * Tokens of the configured user: from the stored refresh token, else through the screens (the
 * browser is asked for only then).
 */
export async function userTokens(api: Api, browser: () => Promise<Browser>, t: Target): Promise<Tokens> {
  if (!t.client) throw new Error(`needs ${missingOf(t, CLIENT_SETTINGS).join(", ")} to obtain a token`);
  let res: Reply;
  if (t.refreshToken) {
    res = await tokenRequest(api, t, {
      grant_type: "refresh_token",
      refresh_token: t.refreshToken,
      ...clientParams(t.client),
    });
  } else if (t.username && t.password) {
    res = await codeFlow(api, await browser(), t);
  } else {
    throw new Error(
      "needs CONFORMANCE_REFRESH_TOKEN, or CONFORMANCE_USERNAME and CONFORMANCE_PASSWORD, to obtain a token",
    );
  }
  if (res.status !== 200) {
    throw new Error(
      t.refreshToken
        ? // What to do about a stale setting is AUTH-BACKGROUND's failure to say: this reason is every
          // dependent check's, and the setting's name is enough there.
          `${STORED_REFRESH_TOKEN} was refused: ${res.call} answered ${res.status}: ${quote(res.text, 200)}`
        : `could not obtain an access token: ${res.call} answered ${res.status}: ${quote(res.text, 300)}`,
    );
  }
  const fields = readTokenAnswer(res);
  if (!fields)
    throw new Error(`${res.call} answered ${res.status} with a body that is not JSON: ${quote(res.text, 200)}`);
  return fields as unknown as Tokens;
}

/** A fresh code, exchanged after the target's clock moved `seconds` forward. */
export async function exchangeCodeAfter(
  api: Api,
  page: Page,
  t: Target,
  client: Client,
  clock: { advance(seconds: number): Promise<void> },
  seconds: number,
): Promise<Reply> {
  const code = await codeThroughScreens(page, t);
  await clock.advance(seconds);
  return tokenRequest(api, t, { grant_type: "authorization_code", code, ...clientParams(client) });
}
