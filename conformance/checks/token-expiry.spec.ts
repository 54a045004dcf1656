// Access tokens live 7200 seconds (the token table's second row), on every data operation of
// every resource, in both flows and from a refresh grant; and the table's ways back (rows 3 and 4): a refresh grant in
// the code flow, logging in again in the implicit flow, each giving a token that works for every
// operation. One token per flow and state, reused across operations.
import type { Browser, BrowserContext } from "@playwright/test";
import type { Target } from "../lib/config.ts";
import { infoListUrl } from "../lib/customers.ts";
import { type Api, quote, type Reply, send } from "../lib/http.ts";
import { dataOperations, tryEvery, unexpected } from "../lib/operations.ts";
import { NOT_CHECKED, NOT_VERIFIED } from "../lib/requirements.ts";
import { fragmentOf, throughScreens } from "../lib/screens.ts";
import {
  checks,
  covers,
  expect,
  expectSucceeded,
  needBrowser,
  needLogin,
  type TargetClock,
  test,
} from "../lib/test.ts";
import { clientParams, codeFlow, grantedTokens, readTokenAnswer, type Tokens, tokenRequest } from "../lib/tokens.ts";

checks(() => {
  /** The access token of an implicit flow through the screens, in a fresh page without cookies. */
  async function implicitToken(context: BrowserContext, t: Target): Promise<string> {
    await context.clearCookies();
    const page = await context.newPage();
    try {
      let landed: URL | undefined;
      let why = "";
      try {
        landed = await throughScreens(page, t, { responseType: "token", state: "expiry" });
      } catch (err) {
        why = String((err as Error).message ?? err).split("\n")[0]!;
      }
      // A token flow that does not come back is the finding of that flow's own checks.
      test.skip(!landed, `${NOT_CHECKED}AUTHZ-TOKEN-REDIRECT: the token flow did not come back (${why.slice(0, 200)})`);
      if (!landed) throw new Error(why);
      const fragment = fragmentOf(landed);
      // A token in the query is OAUTH-IMPLICIT-FRAGMENT's finding; the token is read either way.
      const token = fragment.get("access_token") ?? landed.searchParams.get("access_token");
      test.skip(!token, `${NOT_CHECKED}AUTHZ-TOKEN-REDIRECT: the token flow's redirect carries no access_token`);
      return token!;
    } finally {
      await page.close();
    }
  }

  const bearer = (token: string) => `Bearer ${token}`;

  /** Skips unless the clock can be moved (or CONFORMANCE_WAIT_FOR_EXPIRY asks to wait for real). */
  function needTime(target: Target, clock: TargetClock): void {
    test.skip(
      !clock.available && !target.waitForExpiry,
      `${NOT_VERIFIED}the target has no GET/POST /__mock/clock to move time; set CONFORMANCE_WAIT_FOR_EXPIRY=1 to really wait 7200 s`,
    );
    if (!clock.available) test.setTimeout(7500_000);
  }

  /** Both flows' tokens, each tried once on a read first: a refused fresh token is DATA-BEARER's finding. */
  async function freshTokens(
    api: Api,
    target: Target,
    browser: () => Promise<Browser>,
    context: () => Promise<BrowserContext>,
  ) {
    const code = grantedTokens(await codeFlow(api, await browser(), target), "TOK-CODE-EXCHANGE", { refresh: true });
    const implicit = await implicitToken(await context(), target);
    for (const [token, owner] of [
      [code.access_token, "DATA-BEARER"],
      [implicit, "AUTH-IMPLICIT-NO-SECRET"],
    ] as const) {
      const fresh = await readWith(api, target, token);
      test.skip(fresh.status === 401, `${NOT_CHECKED}${owner}: ${fresh.call} refused a fresh access token (401)`);
      expectSucceeded(fresh, "a fresh token works");
    }
    return { code, implicit };
  }

  const readWith = (api: Api, target: Target, token: string) =>
    send(api, "GET", infoListUrl(target), { headers: { authorization: bearer(token), accept: "application/json" } });

  /**
   * Moves the target's clock past 7200 s, checking 10 s before that the tokens still work; the
   * answer to `later` (a token the check reads itself) 10 s before, when the clock can be moved.
   */
  async function expire(
    api: Api,
    target: Target,
    clock: TargetClock,
    tokens: string[],
    later?: string,
  ): Promise<Reply | undefined> {
    if (!clock.available) {
      await new Promise((r) => setTimeout(r, 7205_000));
      return undefined;
    }
    await clock.advance(7190);
    for (const token of tokens) expectSucceeded(await readWith(api, target, token), "still valid 10 s before expiry");
    const read = later === undefined ? undefined : await readWith(api, target, later);
    await clock.advance(10);
    return read;
  }

  /** Tokens of both flows moved past their lifetime, and a refresh grant's answer from before that. */
  interface Expired {
    code: Tokens;
    implicit: string;
    refreshedBefore: Reply;
    /** The refresh grant's access token read 10 s before its 7200 s were up (with a movable clock). */
    refreshedTenSecondsBefore: Reply | undefined;
  }

  // The two checks of this file share one pair of expired tokens per target: the walks through the
  // screens and the move of the clock cost most of their time. Checks of a file run one after the
  // other in one worker; a preparation that skipped or failed is made again by the next check, so
  // its own skip or failure says why.
  const prepared = new Map<string, Promise<Expired>>();
  function expiredTokens(
    api: Api,
    target: Target,
    browser: () => Promise<Browser>,
    context: () => Promise<BrowserContext>,
    clock: TargetClock,
  ): Promise<Expired> {
    let made = prepared.get(target.baseUrl);
    if (!made) {
      made = (async () => {
        const { code, implicit } = await freshTokens(api, target, browser, context);
        // Before expiry: a refresh refused now is TOK-REFRESH's finding; after expiry, TOK-RENEWED's.
        const refreshedBefore = await tokenRequest(api, target, {
          grant_type: "refresh_token",
          refresh_token: code.refresh_token,
          ...clientParams(target.client!),
        });
        const refreshedToken = readTokenAnswer(refreshedBefore)?.access_token;
        const refreshedTenSecondsBefore = await expire(
          api,
          target,
          clock,
          [code.access_token, implicit],
          refreshedBefore.status === 200 && typeof refreshedToken === "string" ? refreshedToken : undefined,
        );
        return { code, implicit, refreshedBefore, refreshedTenSecondsBefore };
      })();
      made.catch(() => prepared.delete(target.baseUrl));
      prepared.set(target.baseUrl, made);
    }
    return made;
  }

  test(
    "an access token of either flow is refused on every data operation once 7200 seconds have passed",
    covers("TOK-EXPIRY"),
    async ({ api, launchedBrowser, sharedContext, target, clock, session }) => {
      needLogin(target);
      needTime(target, clock);
      needBrowser(target);
      const { code, implicit, refreshedBefore, refreshedTenSecondsBefore } = await expiredTokens(
        api,
        target,
        launchedBrowser,
        sharedContext,
        clock,
      );
      const probes = dataOperations(target);
      const cleanup = await session.bare();
      const wrong: string[] = [];
      // The refresh grant's token lives its 7200 s too, no less (its expires_in says 7200 whatever
      // it lives: a server that gave refreshed tokens 3600 passed when only the code's was timed).
      // Its grant refused is TOK-REFRESH's finding, and it is left out.
      const refreshed = readTokenAnswer(refreshedBefore)?.access_token;
      if (refreshedTenSecondsBefore && refreshedTenSecondsBefore.status !== 200)
        wrong.push(
          `the refresh grant's token, 10 s before its 7200 s were up: ${refreshedTenSecondsBefore.call} answered ${refreshedTenSecondsBefore.status}`,
        );
      for (const [flow, token] of [
        ["code flow", code.access_token],
        ["implicit flow", implicit],
        ...(refreshedBefore.status === 200 && typeof refreshed === "string"
          ? ([["refresh grant", refreshed]] as const)
          : []),
      ] as const) {
        const answers = await tryEvery(api, target, probes, bearer(token), cleanup);
        wrong.push(...unexpected(probes, answers, 401).map((line) => `expired token of the ${flow}: ${line}`));
      }
      expect(wrong, `an access token lives 7200 s, then every data operation refuses it: ${wrong.join("; ")}`).toEqual(
        [],
      );
    },
  );

  /** Authorized: neither 401 nor 403 (an absent id's 404, a refused body's 400 are answers to an authorized call). */
  const authorized = (status: number) => status !== 401 && status !== 403;

  test(
    "after expiry, a refresh (code flow) or a new login (implicit flow) gives a token that works for every data operation",
    covers("TOK-RENEWED"),
    async ({ api, launchedBrowser, sharedContext, target, clock, session }) => {
      const client = needLogin(target);
      needTime(target, clock);
      needBrowser(target);
      const { code, implicit, refreshedBefore } = await expiredTokens(
        api,
        target,
        launchedBrowser,
        sharedContext,
        clock,
      );
      // A target that rotates refresh tokens gave a new one with the grant before expiry: that one is due now.
      const rotated = readTokenAnswer(refreshedBefore)?.refresh_token;
      const refresh = () =>
        tokenRequest(api, target, {
          grant_type: "refresh_token",
          refresh_token: typeof rotated === "string" ? rotated : code.refresh_token,
          ...clientParams(client),
        });
      // A refresh grant that failed while the token was valid is TOK-REFRESH's finding; after expiry, this rule's.
      grantedTokens(refreshedBefore, "TOK-REFRESH");
      for (const token of [code.access_token, implicit]) {
        const old = await readWith(api, target, token);
        test.skip(old.status !== 401, `${NOT_CHECKED}TOK-EXPIRY: ${old.call} still accepted a token 7200 s old`);
      }
      const refreshed = await refresh();
      expect(
        refreshed.status,
        `the refresh grant after expiry: ${refreshed.call} answered ${refreshed.status}: ${quote(refreshed.text)}`,
      ).toBe(200);
      const renewed: Tokens = grantedTokens(refreshed, "TOK-REFRESH");
      const again = await implicitToken(await sharedContext(), target);
      const probes = dataOperations(target);
      const cleanup = await session.bare();
      const wrong: string[] = [];
      for (const [what, token, works] of [
        ["the refresh grant's new token", renewed.access_token, authorized],
        ["the new login's token (implicit flow)", again, authorized],
        ["the expired token of the code flow", code.access_token, (s: number) => s === 401],
        ["the expired token of the implicit flow", implicit, (s: number) => s === 401],
      ] as const) {
        // The old tokens' fate is read on the reads: an expired token accepted on a write is TOK-EXPIRY's.
        const tried = works === authorized ? probes : probes.filter((p) => p.method === "GET");
        const answers = await tryEvery(api, target, tried, bearer(token), cleanup);
        wrong.push(...unexpected(tried, answers, works).map((line) => `${what}: ${line}`));
      }
      expect(readTokenAnswer(refreshed)?.access_token, "the renewed token is a new one").not.toBe(code.access_token);
      expect(wrong, `after the token table's renewal: ${wrong.join("; ")}`).toEqual([]);
    },
  );
});
