// Our assumptions about the OAuth endpoints (openapi/ASSUMPTIONS.md).

import { send } from "../lib/http.ts";
import { authorizeUrl } from "../lib/screens.ts";
import { checks, covers, expect, expectSucceeded, needLogin, test } from "../lib/test.ts";
import {
  clientParams,
  codeFlow,
  exchangeCodeAfter,
  expectTokenError,
  grantedTokens,
  tokenFields,
  tokenRequest,
} from "../lib/tokens.ts";

checks(() => {
  test(
    "the authorization error page is HTML with status 400",
    covers("A-AUTHZ-ERROR-PAGE"),
    async ({ api, target }) => {
      const client = needLogin(target);
      const res = await send(
        api,
        "GET",
        authorizeUrl(target, {
          client_id: `${client.clientId}-unknown`,
          redirect_uri: client.redirectUri,
          scope: target.scope,
          response_type: "code",
        }),
      );
      expect(res.status).toBe(400);
      expect(res.headers["content-type"]).toMatch(/^text\/html/);
    },
  );

  test("invalid_client is 401, the other token errors 400", covers("A-TOKEN-ERRORS"), async ({ api, target }) => {
    const client = needLogin(target);
    expect(
      (
        await tokenRequest(api, target, {
          grant_type: "authorization_code",
          code: "x",
          ...clientParams(client),
          client_secret: "wrong",
        })
      ).status,
    ).toBe(401);
    expect(
      (await tokenRequest(api, target, { grant_type: "authorization_code", code: "x", ...clientParams(client) }))
        .status,
    ).toBe(400);
  });

  test(
    "refresh tokens are not rotated: the same one works again",
    covers("A-REFRESH-TOKENS"),
    async ({ api, launchedBrowser, target }) => {
      const client = needLogin(target);
      const { refresh_token } = grantedTokens(
        await codeFlow(api, await launchedBrowser(), target),
        "TOK-CODE-EXCHANGE",
        {
          refresh: true,
        },
      );
      for (let i = 0; i < 2; i++) {
        const res = await tokenRequest(api, target, {
          grant_type: "refresh_token",
          refresh_token,
          ...clientParams(client),
        });
        expectSucceeded(res);
        expect(tokenFields(res, "TOK-REFRESH").refresh_token).toBe(refresh_token);
      }
    },
  );

  test(
    "an authorization code expires after 300 seconds",
    covers("A-CODE-LIFETIME"),
    async ({ api, page, target, clock }) => {
      const client = needLogin(target);
      clock.require();
      const res = await exchangeCodeAfter(api, page, target, client, clock, 301);
      expectTokenError(res, "invalid_grant");
    },
  );
});
