// The code flow (web server applications) through the real screens. The
// checks that only look at one flow share it (flows in lib/test.ts).
import type { Client } from "../lib/config.ts";
import { NOT_APPLICABLE } from "../lib/requirements.ts";
import {
  carriesGrant,
  codeIn,
  codeThroughScreens,
  throughScreens,
  walkScreens,
  withShortValues,
} from "../lib/screens.ts";
import { checks, covers, expect, needLogin, test } from "../lib/test.ts";
import { clientParams, tokenFields, tokenRequest } from "../lib/tokens.ts";

checks(() => {
  test(
    "a login screen, then a permission screen, then the redirect URI",
    covers("AUTHZ-SCREENS"),
    async ({ target, flows }) => {
      const client = needLogin(target);
      const { landed, seen } = await flows.code();
      expect(seen, "the screens the browser went through").toEqual({ login: true, permission: true });
      expect(`${landed.origin}${landed.pathname}`, "where the browser was sent at the end").toBe(
        new URL(client.redirectUri).origin + new URL(client.redirectUri).pathname,
      );
    },
  );

  test(
    "a redirect URI's own query is kept, the code added to it",
    covers("AUTHZ-CODE-REDIRECT"),
    async ({ page, target }) => {
      needLogin(target);
      // RFC 6749 3.1.2: a redirection endpoint's query is retained when the code is added. A server
      // that appended `?code=` to a URI with a query of its own passed while every client had none;
      // the mock's second client has one.
      const withQuery = [target.client, target.second].filter(
        (c): c is Client => c !== undefined && new URL(c.redirectUri).search !== "",
      );
      test.skip(
        withQuery.length === 0,
        `${NOT_APPLICABLE}no configured client's redirect URI has a query of its own (CONFORMANCE_REDIRECT_URI, CONFORMANCE_SECOND_REDIRECT_URI)`,
      );
      for (const client of withQuery) {
        await page.context().clearCookies();
        const landed = await throughScreens(page, target, { client, responseType: "code", state: "kept query" });
        const where = `${client.clientId}'s redirect (${withShortValues(landed.href)})`;
        for (const [k, v] of new URL(client.redirectUri).searchParams)
          expect(landed.searchParams.getAll(k), `${where}: the registered URI's own ${k}`).toEqual([v]);
        expect(codeIn(landed), `${where}: a code`).toBeTruthy();
      }
    },
  );

  test("a wrong password logs no one in: no code, no token", covers("AUTHZ-SCREENS"), async ({ page, target }) => {
    const client = needLogin(target);
    // One wrong password a run, the user's right one logging in around it: no lockout to fear.
    // A login screen that let any password through passed every walk, which all log in right.
    const walk = await walkScreens(
      page,
      target,
      {
        client_id: client.clientId,
        redirect_uri: client.redirectUri,
        scope: target.scope,
        response_type: "code",
        state: "wrong password",
      },
      { redirectUri: client.redirectUri, decision: "allow", password: `${target.password ?? ""}-not-it` },
    );
    expect(walk.login, "the login screen showed and was filled in").toBe(true);
    const granted = [walk.landed, ...walk.left].filter((u): u is URL => u !== undefined && carriesGrant(u));
    expect(granted.map(String), "where a wrong password sent the browser with a code or token").toEqual([]);
  });

  test(
    "the code comes back in the query of the redirect URI",
    covers("AUTHZ-CODE-REDIRECT"),
    async ({ target, flows }) => {
      needLogin(target);
      const { landed } = await flows.code();
      expect(landed.searchParams.get("code"), `no code in the query of ${landed.href}`).toBeTruthy();
      expect(landed.hash, "the fragment of the code flow's redirect").toBe("");
    },
  );

  test("state comes back unchanged", covers("AUTHZ-STATE"), async ({ target, flows }) => {
    needLogin(target);
    const { landed, state } = await flows.code();
    expect(landed.searchParams.get("state")).toBe(state);
  });

  test(
    "the code is exchanged for an access token and a refresh token",
    covers("TOK-CODE-EXCHANGE"),
    async ({ target, flows }) => {
      needLogin(target);
      const res = await flows.exchange();
      // Strictly 200: the other checks of tokens are not checked because of this one when it is not.
      expect(res.status, `${res.call}: ${res.text.slice(0, 300)}`).toBe(200);
      const body = tokenFields(res);
      expect(typeof body.access_token).toBe("string");
      expect(typeof body.refresh_token).toBe("string");
    },
  );

  // A fresh code for each request: a service that used a code up on a refused request would
  // otherwise refuse the later ones for the wrong reason, and the check would learn nothing.
  test("every parameter of the code grant is required", covers("TOKEN-CODE-PARAMS"), async ({ api, page, target }) => {
    const client = needLogin(target);
    for (const missing of ["code", "client_id", "client_secret", "redirect_uri"]) {
      // A fresh code for each: a refused exchange may use its code up. Without code, none is needed.
      if (missing !== "code") await page.context().clearCookies();
      const form: Record<string, string | undefined> = {
        grant_type: "authorization_code",
        code: missing === "code" ? undefined : await codeThroughScreens(page, target),
        ...clientParams(client),
      };
      delete form[missing];
      const res = await tokenRequest(api, target, form);
      expect(res.status, `without ${missing}: ${res.text.slice(0, 200)}`).not.toBe(200);
      expect(res.text).not.toContain("access_token");
    }
  });
});
