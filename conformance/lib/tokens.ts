// The token endpoint as the checks use it: a request, the code flow through
// the screens, the configured user's tokens, and a code exchanged after the
// target's clock moved.
import { type APIRequestContext, type Browser, type BrowserContext, expect, type Page, test } from "@playwright/test";
import { apiBase, type Client, type Target } from "./config.ts";
import { type Reply, send } from "./http.ts";
import { NOT_CHECKED } from "./requirements.ts";
import { throughScreens } from "./screens.ts";
import { TOKEN_ERRORS, type TokenError } from "./token-errors.ts";

export interface Tokens {
  access_token: string;
  refresh_token?: string;
}

export const tokenUrl = (t: Target) => `${apiBase(t)}/OAuth/Token`;

export const clientParams = (c: Client) => ({
  client_id: c.clientId,
  client_secret: c.clientSecret,
  redirect_uri: c.redirectUri,
});

export async function tokenRequest(
  api: APIRequestContext,
  t: Target,
  form: Record<string, string | undefined>,
): Promise<Reply> {
  return send(api, "POST", tokenUrl(t), { form });
}

/**
 * The token endpoint refused `res` with the error `expected`. A refusal with a code RFC 6749 5.2
 * does not have is OAUTH-TOKEN-ERRORS' finding, reported there once: the check that only needs
 * the refusal is then not checked because of it.
 */
export function expectTokenError(res: Reply, expected: TokenError, what = res.call): void {
  let error: unknown;
  try {
    error = res.json()?.error;
  } catch {
    error = undefined;
  }
  test.skip(
    res.status >= 400 && typeof error === "string" && !(TOKEN_ERRORS as readonly string[]).includes(error),
    `${NOT_CHECKED}OAUTH-TOKEN-ERRORS: ${res.call} refused with error ${JSON.stringify(error)}, no code of RFC 6749 5.2`,
  );
  expect(error, `${what}: ${res.status} ${res.text.slice(0, 200)}`).toBe(expected);
}

// A browser context costs a fifth of a second to make; the code flows of a worker share one,
// their cookies cleared first, so each flow starts as a new browser would.
const flowContexts = new WeakMap<Browser, Promise<BrowserContext>>();

/** Code flow through the screens, in a fresh page without cookies, then the code exchange. */
export async function codeFlow(
  api: APIRequestContext,
  browser: Browser,
  t: Target,
  client: Client = t.client!,
): Promise<Reply> {
  let context = flowContexts.get(browser);
  if (!context) {
    context = browser.newContext();
    flowContexts.set(browser, context);
  }
  const ctx = await context;
  await ctx.clearCookies();
  const page = await ctx.newPage();
  try {
    const landed = await throughScreens(page, t, { client, responseType: "code", state: "conformance" });
    const code = landed.searchParams.get("code");
    if (!code) throw new Error(`no code in the redirect: ${landed.href}`);
    return await tokenRequest(api, t, { grant_type: "authorization_code", code, ...clientParams(client) });
  } finally {
    await page.close();
  }
}

/** Tokens of the configured user: from the stored refresh token, else through the screens. */
export async function userTokens(api: APIRequestContext, browser: Browser, t: Target): Promise<Tokens> {
  if (!t.client) {
    throw new Error(
      "needs CONFORMANCE_CLIENT_ID, CONFORMANCE_CLIENT_SECRET and CONFORMANCE_REDIRECT_URI to obtain a token",
    );
  }
  let res: Reply;
  if (t.refreshToken) {
    res = await tokenRequest(api, t, {
      grant_type: "refresh_token",
      refresh_token: t.refreshToken,
      ...clientParams(t.client),
    });
  } else if (t.username && t.password) {
    res = await codeFlow(api, browser, t);
  } else {
    throw new Error(
      "needs CONFORMANCE_REFRESH_TOKEN, or CONFORMANCE_USERNAME and CONFORMANCE_PASSWORD, to obtain a token",
    );
  }
  if (res.status !== 200) {
    throw new Error(`could not obtain an access token: ${res.call} answered ${res.status}: ${res.text.slice(0, 300)}`);
  }
  return res.json<Tokens>();
}

/** A fresh code, exchanged after the target's clock moved `seconds` forward. */
export async function exchangeCodeAfter(
  api: APIRequestContext,
  page: Page,
  t: Target,
  client: Client,
  clock: { advance(seconds: number): Promise<void> },
  seconds: number,
): Promise<Reply> {
  const code = (await throughScreens(page, t, { responseType: "code" })).searchParams.get("code")!;
  await clock.advance(seconds);
  return tokenRequest(api, t, { grant_type: "authorization_code", code, ...clientParams(client) });
}
