// Our assumptions about the OAuth endpoints (openapi/ASSUMPTIONS.md).

import { send } from "../lib/http.ts";
import { authorizeUrl, carriesGrant, resultParts, walkScreens, whereItEnded, withShortValues } from "../lib/screens.ts";
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

  test(
    "a wrong or missing scope is invalid_scope, sent back where the flow answers",
    covers("A-AUTHZ-ERRORS"),
    async ({ page, target }) => {
      const client = needLogin(target);
      const scope = target.scope!; // needLogin asks for it
      const wrong = scope.endsWith("/*") ? `${scope.slice(0, -1)}Admin` : `${scope}x`;
      for (const responseType of ["code", "token"] as const) {
        for (const [what, asked] of [
          [`a wrong scope (${wrong})`, wrong],
          ["another kind of scope (openid)", "openid"],
          ["no scope", undefined],
        ] as const) {
          await page.context().clearCookies();
          const state = `scope ${responseType}`;
          const walk = await walkScreens(
            page,
            target,
            {
              client_id: client.clientId,
              redirect_uri: client.redirectUri,
              scope: asked,
              response_type: responseType,
              state,
            },
            { redirectUri: client.redirectUri, decision: "allow" },
          );
          const where = `${responseType} flow, ${what}`;
          expect(
            walk.landed && withShortValues(walk.landed.href),
            `${where}: sent back, not shown a page (${whereItEnded(page, walk)})`,
          ).toBeTruthy();
          expect(carriesGrant(walk.landed!), `${where}: a code or token was issued`).toBe(false);
          const { result } = resultParts(walk.landed!, responseType);
          expect([result.get("error"), result.get("state")], `${where}: error and state`).toEqual([
            "invalid_scope",
            state,
          ]);
        }
      }
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
