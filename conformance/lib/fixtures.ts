// The suite's test function: `check(title, requirementIds, body)` and the
// fixtures every check can use (target, contract, api, session).
import { type APIRequestContext, type Browser, test as base, type Page, type Request, request } from "@playwright/test";
import { type CompiledContract, compileContract, SchemaSet, specView } from "../../src/contract/index.ts";
import { apiBase, type Client, type Kind, loadTarget, type Target } from "./config.ts";
import { type Reply, send } from "./http.ts";
import { kindTag, requirements, requirementTag } from "./requirements.ts";

export interface Contract {
  compiled: CompiledContract;
  /** Validators of what the service description alone supports (kind spec). */
  spec: SchemaSet;
  /** Validators of the whole contract, assumptions included (kind assumption). */
  full: SchemaSet;
}

export interface Tokens {
  access_token: string;
  refresh_token?: string;
}

export interface Session {
  /** A valid access token of the configured user, obtained once and renewed when time moved. */
  accessToken(): Promise<string>;
  /** Headers of an authorized JSON request. */
  auth(): Promise<Record<string, string>>;
}

interface WorkerFixtures {
  target: Target;
  contract: Contract;
  api: APIRequestContext;
  session: Session;
}

/** Seconds the target's clock was moved by this worker; tokens older than they look are renewed. */
let clockAdvanced = 0;
export const noteClockAdvance = (seconds: number) => {
  clockAdvanced += seconds;
};

// biome-ignore lint/suspicious/noConfusingVoidType: Playwright's type of a fixture that gives no value
export const test = base.extend<{ targetAnswers: void }, WorkerFixtures>({
  // Before every check: a target that stopped answering fails the check at once, saying so,
  // instead of each check waiting out its own timeouts.
  targetAnswers: [
    async ({ target }, use) => {
      try {
        await fetch(target.baseUrl, { redirect: "manual", signal: AbortSignal.timeout(5_000) });
      } catch (err) {
        throw new Error(
          `the target at ${target.baseUrl} does not answer (${String((err as Error).cause ?? (err as Error).message)}); is it running?`,
        );
      }
      await use();
    },
    { auto: true },
  ],
  target: [async ({}, use) => use(loadTarget()), { scope: "worker" }],
  contract: [
    async ({}, use) => {
      const compiled = compileContract();
      await use({ compiled, spec: new SchemaSet(specView(compiled.doc)), full: compiled.answers });
    },
    { scope: "worker" },
  ],
  api: [
    async ({}, use) => {
      const ctx = await request.newContext({ ignoreHTTPSErrors: false });
      await use(ctx);
      await ctx.dispose();
    },
    { scope: "worker" },
  ],
  session: [
    async ({ target, api, browser }, use) => {
      let current: { token: string; at: number; advanced: number } | undefined;
      const obtain = async () => {
        const tokens = await userTokens(api, browser, target);
        current = { token: tokens.access_token, at: Date.now(), advanced: clockAdvanced };
        return current.token;
      };
      const accessToken = async () => {
        if (!current) return obtain();
        const age = (Date.now() - current.at) / 1000 + (clockAdvanced - current.advanced);
        return age > 6000 ? obtain() : current.token;
      };
      await use({
        accessToken,
        auth: async () => ({ authorization: `Bearer ${await accessToken()}`, accept: "application/json" }),
      });
    },
    { scope: "worker" },
  ],
});

export const expect = test.expect;

/**
 * The details of a check of the requirements `ids` (of requirements.yaml):
 * `test(title, covers("ERR-200"), body)`. All ids of one check are of one
 * kind; the check carries that kind's tag, which is what CONFORMANCE_KINDS selects.
 */
export function covers(...ids: string[]): { tag: string[] } {
  const all = requirements();
  const kinds = new Set<Kind>();
  for (const id of ids) {
    const r = all.get(id);
    if (!r) throw new Error(`a check covers ${id}, which conformance/requirements.yaml does not list`);
    kinds.add(r.kind);
  }
  if (kinds.size !== 1)
    throw new Error(
      `a check of ${ids.join(", ")} mixes kinds (${[...kinds].join(", ")}); split it so kind selection stays exact`,
    );
  return { tag: [kindTag([...kinds][0]!), ...ids.map(requirementTag)] };
}

/** Skips the check, naming what the configuration lacks, unless every value is there. */
export function need(what: Record<string, unknown>, hint: string): void {
  const missing = Object.entries(what)
    .filter(([, v]) => v === undefined || v === "")
    .map(([k]) => k);
  test.skip(missing.length > 0, `needs ${missing.join(", ")} (${hint})`);
}

export function needClient(t: Target): Client {
  need(
    {
      CONFORMANCE_CLIENT_ID: t.client?.clientId,
      CONFORMANCE_CLIENT_SECRET: t.client?.clientSecret,
      CONFORMANCE_REDIRECT_URI: t.client?.redirectUri,
    },
    "a registered, active application",
  );
  return t.client!;
}

export function needLogin(t: Target): Client {
  const client = needClient(t);
  need(
    { CONFORMANCE_USERNAME: t.username, CONFORMANCE_PASSWORD: t.password, CONFORMANCE_SCOPE: t.scope },
    "a user for the login screen",
  );
  return client;
}

export const authorizeUrl = (t: Target, params: Record<string, string | undefined>, letter: "v" | "V" = "v") => {
  const url = new URL(`${apiBase(t, letter)}/OAuth/Authorize`);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
  return url.href;
};

export const tokenUrl = (t: Target) => `${apiBase(t)}/OAuth/Token`;

/**
 * Goes through the login and permission screens as a person would and returns
 * the address the browser was finally sent to (caught before it leaves).
 */
export async function throughScreens(
  page: Page,
  t: Target,
  opts: {
    client?: Client;
    responseType: "code" | "token";
    state?: string;
    decision?: "allow" | "deny";
    seen?: { login: boolean; permission: boolean };
  },
): Promise<URL> {
  const client = opts.client ?? t.client!;
  await page.route(`${client.redirectUri}**`, (route) =>
    route.fulfill({ status: 200, contentType: "text/html", body: "<p>redirect caught by the conformance suite</p>" }),
  );
  const arrived = () => page.url().startsWith(client.redirectUri);
  await page.goto(
    authorizeUrl(t, {
      client_id: client.clientId,
      redirect_uri: client.redirectUri,
      scope: t.scope,
      response_type: opts.responseType,
      state: opts.state,
    }),
  );
  // Whatever the target shows next (login, permission, or straight back when it remembers the user), act on it.
  const login = page.locator(t.selectors.username);
  const decide = page.locator(opts.decision === "deny" ? t.selectors.deny : t.selectors.allow);
  let loggedIn = false;
  let decided = false;
  // Give up when nothing to act on has appeared for 10 s: a target without screens fails fast.
  let idleUntil = Date.now() + 10_000;
  while (!arrived() && Date.now() < idleUntil) {
    if (!loggedIn && (await login.isVisible().catch(() => false))) {
      await login.fill(t.username!);
      await page.fill(t.selectors.password, t.password!);
      await page.click(t.selectors.submit);
      loggedIn = true;
      idleUntil = Date.now() + 10_000;
    } else if (!decided && (await decide.isVisible().catch(() => false))) {
      await decide.click();
      decided = true;
      idleUntil = Date.now() + 10_000;
    } else {
      await page.waitForTimeout(100);
    }
  }
  if (opts.seen) Object.assign(opts.seen, { login: loggedIn, permission: decided });
  if (!arrived()) {
    throw new Error(
      `the browser did not arrive at ${client.redirectUri}; it is at ${page.url()} (${loggedIn ? "logged in" : "no login screen found"}, ${decided ? "decided" : "no permission screen found"}: check the selectors, user and password)`,
    );
  }
  return new URL(page.url());
}

export async function tokenRequest(
  api: APIRequestContext,
  t: Target,
  form: Record<string, string | undefined>,
): Promise<Reply> {
  return send(api, "POST", tokenUrl(t), { form });
}

/** Code flow through the screens, then the code exchange. */
export async function codeFlow(
  api: APIRequestContext,
  browser: Browser,
  t: Target,
  client: Client = t.client!,
): Promise<Reply> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const landed = await throughScreens(page, t, { client, responseType: "code", state: "conformance" });
    const code = landed.searchParams.get("code");
    if (!code) throw new Error(`no code in the redirect: ${landed.href}`);
    return await tokenRequest(api, t, {
      grant_type: "authorization_code",
      code,
      client_id: client.clientId,
      client_secret: client.clientSecret,
      redirect_uri: client.redirectUri,
    });
  } finally {
    await context.close();
  }
}

/** Tokens of the configured user: from the stored refresh token, else through the screens. */
async function userTokens(api: APIRequestContext, browser: Browser, t: Target): Promise<Tokens> {
  if (!t.client)
    throw new Error(
      "needs CONFORMANCE_CLIENT_ID, CONFORMANCE_CLIENT_SECRET and CONFORMANCE_REDIRECT_URI to obtain a token",
    );
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
  if (res.status !== 200)
    throw new Error(`could not obtain an access token: ${res.call} answered ${res.status}: ${res.text.slice(0, 300)}`);
  return res.json<Tokens>();
}

export const clientParams = (c: Client) => ({
  client_id: c.clientId,
  client_secret: c.clientSecret,
  redirect_uri: c.redirectUri,
});

/** Whether the target is a bawa mock with a movable clock (GET /__mock/clock). */
export async function hasClock(api: APIRequestContext, t: Target): Promise<boolean> {
  const res = await send(api, "GET", `${t.baseUrl}/__mock/clock`).catch(() => undefined);
  if (res?.status !== 200) return false;
  try {
    return typeof res.json().now === "string";
  } catch {
    return false;
  }
}

export async function advanceClock(api: APIRequestContext, t: Target, seconds: number): Promise<void> {
  const res = await send(api, "POST", `${t.baseUrl}/__mock/clock`, {
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ advanceSeconds: seconds }),
  });
  if (res.status !== 200) throw new Error(`moving the target's clock failed: ${res.status} ${res.text}`);
  noteClockAdvance(seconds);
}

/**
 * Opens an authorization request, logs in and allows where screens appear,
 * and returns every address outside the target the browser was sent to
 * (each caught before it leaves the machine).
 */
export async function attemptAuthorization(
  page: Page,
  t: Target,
  params: Record<string, string | undefined>,
): Promise<URL[]> {
  const origin = new URL(t.baseUrl).origin;
  const left: URL[] = [];
  // The request event sees every hop of a redirect chain; a route does not see
  // the hops of a server redirect in Chromium, so routing only keeps what it can local.
  const watch = (r: Request) => {
    const u = new URL(r.url());
    if (
      r.isNavigationRequest() &&
      r.frame() === page.mainFrame() &&
      u.origin !== origin &&
      u.protocol.startsWith("http")
    )
      left.push(u);
  };
  page.on("request", watch);
  await page.route(
    (u) => u.origin !== origin,
    (route) => route.fulfill({ status: 200, contentType: "text/html", body: "<p>caught by the conformance suite</p>" }),
  );
  try {
    await page.goto(authorizeUrl(t, params)).catch(() => undefined);
    const login = page.locator(t.selectors.username);
    if (left.length === 0 && (await login.isVisible().catch(() => false)) && t.username && t.password) {
      await login.fill(t.username);
      await page.fill(t.selectors.password, t.password);
      await page.click(t.selectors.submit).catch(() => undefined);
      await page.waitForLoadState().catch(() => undefined);
    }
    const allow = page.locator(t.selectors.allow);
    if (left.length === 0 && (await allow.isVisible().catch(() => false))) {
      await allow.click().catch(() => undefined);
      await page.waitForLoadState().catch(() => undefined);
    }
    await page.waitForTimeout(300);
  } finally {
    page.off("request", watch);
    await page.unrouteAll({ behavior: "ignoreErrors" });
  }
  return left;
}

/** Whether an address carries an authorization result (a code or a token). */
export const carriesGrant = (u: URL) =>
  u.searchParams.has("code") ||
  u.searchParams.has("access_token") ||
  new URLSearchParams(u.hash.slice(1)).has("access_token");

/**
 * A fresh code, exchanged after the target's clock moved `seconds` forward.
 * Skips the check, saying why, on a target without /__mock/clock.
 */
export async function exchangeCodeAfter(
  api: APIRequestContext,
  page: Page,
  t: Target,
  client: Client,
  seconds: number,
): Promise<Reply> {
  test.skip(!(await hasClock(api, t)), "not verifiable here: the target has no GET/POST /__mock/clock to move time");
  const code = (await throughScreens(page, t, { responseType: "code" })).searchParams.get("code")!;
  await advanceClock(api, t, seconds);
  return tokenRequest(api, t, { grant_type: "authorization_code", code, ...clientParams(client) });
}
