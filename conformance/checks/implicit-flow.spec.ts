// The token flow (browser and mobile applications). The checks share one
// implicit flow through the screens (flows in lib/test.ts).
import { oauthFacts } from "../../src/rules/oauth.ts";
import { infoListUrl } from "../lib/customers.ts";
import { send } from "../lib/http.ts";
import { fragmentOf } from "../lib/screens.ts";
import { checks, covers, expect, expectSucceeded, needLogin, test } from "../lib/test.ts";

checks(() => {
  /**
   * The token flow's parameters where they arrived: the fragment, or the query when only the query
   * holds a token. Where they arrive is OAUTH-IMPLICIT-FRAGMENT's finding; the checks of what they
   * hold read them either way, so a token in the query is one finding, not four.
   */
  const tokenParams = (u: URL) => {
    const fragment = fragmentOf(u);
    return !fragment.has("access_token") && u.searchParams.has("access_token") ? u.searchParams : fragment;
  };

  test(
    "the token flow goes through the login and permission screens too",
    covers("AUTHZ-SCREENS"),
    async ({ target, flows }) => {
      needLogin(target);
      const { seen } = await flows.implicit();
      expect(seen, "the screens the browser went through").toEqual({ login: true, permission: true });
    },
  );

  test(
    "the token arrives in the fragment with token_type, access_token, scope and expires_in",
    covers("AUTHZ-TOKEN-REDIRECT"),
    async ({ target, flows, contract }) => {
      needLogin(target);
      const { landed } = await flows.implicit();
      const f = tokenParams(landed);
      expect(f.get("token_type")?.toLowerCase()).toBe("bearer");
      expect(f.get("access_token")).toBeTruthy();
      expect(f.get("scope")).toBe(target.scope);
      expect(f.get("expires_in")).toBe(String(oauthFacts(contract.compiled).tokenSeconds));
    },
  );

  test("the token flow returns no refresh token", covers("TOK-IMPLICIT-NO-REFRESH"), async ({ target, flows }) => {
    needLogin(target);
    const f = tokenParams((await flows.implicit()).landed);
    expect(f.has("refresh_token"), `the parameters: ${[...f.keys()].join(", ")}`).toBe(false);
  });

  test(
    "the token flow's token alone reads data: no secret is used",
    covers("AUTH-IMPLICIT-NO-SECRET"),
    async ({ api, target, flows, session }) => {
      needLogin(target);
      const f = tokenParams((await flows.implicit()).landed);
      const res = await send(api, "GET", infoListUrl(target), {
        headers: { authorization: `Bearer ${f.get("access_token")}`, accept: "application/json" },
      });
      // A token refused here as every token is (the session's too) is DATA-BEARER's finding.
      if (res.status === 401) await session.auth();
      expectSucceeded(res, `${res.call} with the token of the token flow`);
    },
  );

  test("state comes back unchanged in the token flow", covers("AUTHZ-STATE"), async ({ target, flows }) => {
    needLogin(target);
    const { landed, state } = await flows.implicit();
    expect(fragmentOf(landed).get("state") ?? landed.searchParams.get("state")).toBe(state);
  });

  test(
    "the token is in the fragment, never in the query",
    covers("OAUTH-IMPLICIT-FRAGMENT"),
    async ({ target, flows }) => {
      needLogin(target);
      const { landed } = await flows.implicit();
      expect(landed.searchParams.has("access_token"), `query: ${landed.search}`).toBe(false);
      expect(fragmentOf(landed).has("access_token")).toBe(true);
      // A refresh token in the fragment is TOK-IMPLICIT-NO-REFRESH's finding, a state missing or
      // changed AUTHZ-STATE's: each is reported there, once. Here: state, when it comes back, comes
      // in the fragment with the token.
      const stateInQueryOnly = landed.searchParams.has("state") && !fragmentOf(landed).has("state");
      expect(stateInQueryOnly, `state in the query: ${landed.search}`).toBe(false);
    },
  );
});
