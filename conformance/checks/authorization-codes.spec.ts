// Authorization codes: single use, short-lived, bound to client and redirect URI.
import { infoListUrl } from "../lib/customers.ts";
import { send } from "../lib/http.ts";
import { NOT_CHECKED } from "../lib/requirements.ts";
import { codeThroughScreens } from "../lib/screens.ts";
import { checks, covers, expect, need, needLogin, test } from "../lib/test.ts";
import { clientParams, exchangeCodeAfter, expectTokenError, grantedTokens, tokenRequest } from "../lib/tokens.ts";

checks(() => {
  test("a code can be used once", covers("OAUTH-CODE-SINGLE-USE"), async ({ api, page, target }) => {
    const client = needLogin(target);
    const code = await codeThroughScreens(page, target);
    const first = await tokenRequest(api, target, { grant_type: "authorization_code", code, ...clientParams(client) });
    grantedTokens(first, "TOK-CODE-EXCHANGE");
    const again = await tokenRequest(api, target, { grant_type: "authorization_code", code, ...clientParams(client) });
    expect(again.status).toBe(400);
    expectTokenError(again, "invalid_grant");
  });

  test(
    "using a code twice revokes the access token issued from it",
    covers("OAUTH-CODE-REUSE-REVOKES"),
    async ({ api, page, target }) => {
      const client = needLogin(target);
      const code = await codeThroughScreens(page, target);
      const { access_token } = grantedTokens(
        await tokenRequest(api, target, { grant_type: "authorization_code", code, ...clientParams(client) }),
        "TOK-CODE-EXCHANGE",
      );
      const again = await tokenRequest(api, target, {
        grant_type: "authorization_code",
        code,
        ...clientParams(client),
      });
      // Only a reuse the target refuses is a reuse it can answer by revoking; one it accepts is
      // OAUTH-CODE-SINGLE-USE's finding.
      test.skip(
        again.status < 300,
        `${NOT_CHECKED}OAUTH-CODE-SINGLE-USE: the code's second exchange answered ${again.status}`,
      );
      const res = await send(api, "GET", infoListUrl(target), { headers: { authorization: `Bearer ${access_token}` } });
      expect(res.status, "the first token after the code's reuse").toBe(401);
    },
  );

  test("a code is bound to its redirect URI", covers("OAUTH-CODE-BOUND"), async ({ api, page, target }) => {
    const client = needLogin(target);
    const wrongUri = await tokenRequest(api, target, {
      grant_type: "authorization_code",
      code: await codeThroughScreens(page, target),
      ...clientParams(client),
      redirect_uri: `${client.redirectUri}/other`,
    });
    expectTokenError(wrongUri, "invalid_grant", "another redirect_uri");
    // Identical, not alike (RFC 6749 4.1.3): a comparison that ignored case passed the one above.
    const otherCase = client.redirectUri.replace(/[a-z](?=[^/]*$)/, (c) => c.toUpperCase());
    if (otherCase !== client.redirectUri) {
      await page.context().clearCookies();
      const caseOnly = await tokenRequest(api, target, {
        grant_type: "authorization_code",
        code: await codeThroughScreens(page, target),
        ...clientParams(client),
        redirect_uri: otherCase,
      });
      expectTokenError(caseOnly, "invalid_grant", "the redirect_uri in another case");
    }
  });

  test("a code is bound to its client", covers("OAUTH-CODE-BOUND"), async ({ api, page, target }) => {
    needLogin(target);
    need({ CONFORMANCE_SECOND_CLIENT_ID: target.second?.clientId }, "a second registered application");
    const otherClient = await tokenRequest(api, target, {
      grant_type: "authorization_code",
      code: await codeThroughScreens(page, target),
      ...clientParams(target.second!),
    });
    expectTokenError(otherClient, "invalid_grant", "another client");
  });

  test(
    "a code older than 10 minutes is refused",
    covers("OAUTH-CODE-LIFETIME"),
    async ({ api, page, target, clock }) => {
      const client = needLogin(target);
      clock.require();
      const res = await exchangeCodeAfter(api, page, target, client, clock, 601);
      expect(res.status, res.text.slice(0, 200)).toBe(400);
      expectTokenError(res, "invalid_grant");
    },
  );
});
