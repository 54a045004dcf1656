// Renewing access tokens with the refresh token.
import { oauthFacts } from "../../src/rules/oauth.ts";
import { STALE_SETTING, STORED_REFRESH_TOKEN } from "../lib/config.ts";
import { infoListUrl } from "../lib/customers.ts";
import { send } from "../lib/http.ts";
import { NOT_CHECKED } from "../lib/requirements.ts";
import { describeProblems, problemsOf } from "../lib/shapes.ts";
import { checks, covers, expect, expectSucceeded, need, needClient, needLogin, test } from "../lib/test.ts";
import {
  answeredJson,
  clientParams,
  codeFlow,
  expectTokenError,
  grantedTokens,
  readTokenAnswer,
  tokenFields,
  tokenRequest,
  tokenUrl,
} from "../lib/tokens.ts";

checks(() => {
  test(
    "the refresh grant returns a new token response whose access token works",
    covers("TOK-REFRESH"),
    async ({ api, launchedBrowser, target, contract }) => {
      const client = needLogin(target);
      const exchange = await codeFlow(api, await launchedBrowser(), target);
      const first = grantedTokens(exchange, "TOK-CODE-EXCHANGE", { refresh: true });
      const res = await tokenRequest(api, target, {
        grant_type: "refresh_token",
        refresh_token: first.refresh_token,
        ...clientParams(client),
      });
      expectSucceeded(res, res.text.slice(0, 300));
      // This check's own answer: read as a form when it is one (see below), else it must be JSON.
      const refreshed = readTokenAnswer(res);
      expect(refreshed, `the refresh grant's answer: ${res.text.slice(0, 200)}`).toBeDefined();
      const data = await send(api, "GET", infoListUrl(target), {
        headers: { authorization: `Bearer ${refreshed!.access_token}` },
      });
      if (data.status === 401) {
        // If the code flow's token is refused too, no token works: DATA-BEARER's finding.
        const before = await send(api, "GET", infoListUrl(target), {
          headers: { authorization: `Bearer ${first.access_token}` },
        });
        test.skip(before.status === 401, `${NOT_CHECKED}DATA-BEARER: ${before.call} refuses every access token (401)`);
      }
      expectSucceeded(data, data.call);
      // The shape, of an answer in JSON. A form where the code exchange answers one too is
      // TOKEN-FORM-BODY's finding (its check reads the exchange); a form only here is this rule's.
      // The value of expires_in is TOKEN-RESPONSE's rule, reported there once.
      test.skip(
        !answeredJson(res) && !answeredJson(exchange),
        `${NOT_CHECKED}TOKEN-FORM-BODY: the token endpoint answers forms, the refresh grant too`,
      );
      expect(answeredJson(res), `the refresh grant's answer is JSON: ${res.text.slice(0, 200)}`).toBe(true);
      const problems = problemsOf(contract.spec, "TokenResponse", refreshed, target, []).filter(
        (p) => !(p.field === "expires_in" && p.message === `must be ${oauthFacts(contract.compiled).tokenSeconds}`),
      );
      expect(problems, describeProblems(problems)).toEqual([]);
    },
  );

  test(
    "refresh_token, client_id, client_secret and redirect_uri are required on refresh, and must match",
    covers("TOK-REFRESH-PARAMS"),
    async ({ api, launchedBrowser, target }) => {
      const client = needLogin(target);
      const { refresh_token } = grantedTokens(
        await codeFlow(api, await launchedBrowser(), target),
        "TOK-CODE-EXCHANGE",
        {
          refresh: true,
        },
      );
      for (const missing of ["refresh_token", "client_id", "client_secret", "redirect_uri"]) {
        const form: Record<string, string | undefined> = {
          grant_type: "refresh_token",
          refresh_token,
          ...clientParams(client),
        };
        delete form[missing];
        const res = await tokenRequest(api, target, form);
        expect(res.status, `without ${missing}: ${res.text.slice(0, 200)}`).not.toBe(200);
      }
      // Present is not enough: the state table's refresh row asks for a matching client_id,
      // client_secret and redirect_uri (Authentication 4: tokens only when both the client and the
      // redirect URI match the registration). A server that only required them passed the loop above.
      const other = (value: string) => `${value}-other`;
      for (const [name, value] of [
        ["client_id", other(client.clientId)],
        ["client_secret", other(client.clientSecret)],
        ["redirect_uri", `${client.redirectUri}/other`],
      ] as const) {
        const res = await tokenRequest(api, target, {
          grant_type: "refresh_token",
          refresh_token,
          ...clientParams(client),
          [name]: value,
        });
        expect(res.status, `with another ${name} (${value}): ${res.text.slice(0, 200)}`).not.toBe(200);
      }
      // In the body, not the URL (RFC 6749 2.3.1: MUST NOT be in the request URI; the description:
      // the request body is the name=value pairs): a URL carrying them all, with an empty body.
      const inUrl = new URL(tokenUrl(target));
      for (const [k, v] of Object.entries({ grant_type: "refresh_token", refresh_token, ...clientParams(client) }))
        if (v !== undefined) inUrl.searchParams.set(k, v);
      const queried = await send(api, "POST", inUrl.href, {
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "",
      });
      expect(queried.status, `every parameter in the URL, none in the body: ${queried.text.slice(0, 200)}`).not.toBe(
        200,
      );
    },
  );

  test(
    "a background application exchanges its stored refresh token for access tokens",
    covers("AUTH-BACKGROUND"),
    async ({ api, target, session }) => {
      const client = needClient(target);
      need({ CONFORMANCE_REFRESH_TOKEN: target.refreshToken }, "a background user's refresh token");
      for (let i = 0; i < 2; i++) {
        const res = await tokenRequest(api, target, {
          grant_type: "refresh_token",
          refresh_token: target.refreshToken,
          ...clientParams(client),
        });
        expectSucceeded(
          res,
          `exchange ${i + 1} of ${STORED_REFRESH_TOKEN}: ${res.text.slice(0, 200)}${i === 0 ? `; ${STALE_SETTING}` : ""}`,
        );
        const data = await send(api, "GET", infoListUrl(target), {
          headers: { authorization: `Bearer ${tokenFields(res, "TOK-REFRESH").access_token}` },
        });
        if (data.status === 401) {
          // No token works: DATA-BEARER's finding; the session's do: refreshed ones do not, TOK-REFRESH's.
          await session.auth();
          test.skip(
            true,
            `${NOT_CHECKED}TOK-REFRESH: ${data.call} refused the access token a refresh grant gave (401)`,
          );
        }
        expectSucceeded(data);
      }
    },
  );

  test(
    "a refresh token of another client is refused",
    covers("OAUTH-REFRESH-BOUND"),
    async ({ api, launchedBrowser, target }) => {
      needLogin(target);
      need({ CONFORMANCE_SECOND_CLIENT_ID: target.second?.clientId }, "a second registered application");
      const { refresh_token } = grantedTokens(
        await codeFlow(api, await launchedBrowser(), target),
        "TOK-CODE-EXCHANGE",
        {
          refresh: true,
        },
      );
      const res = await tokenRequest(api, target, {
        grant_type: "refresh_token",
        refresh_token,
        ...clientParams(target.second!),
      });
      expect(res.status).toBe(400);
      expectTokenError(res, "invalid_grant");
    },
  );
});
