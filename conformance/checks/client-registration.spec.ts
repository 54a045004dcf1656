// Authentication 2 and 4: only registered, active applications with their
// registered redirect URI get codes or tokens; errors of the authorization request.
import { NOT_CHECKED } from "../lib/requirements.ts";
import {
  attemptAuthorization,
  carriesGrant,
  fragmentOf,
  resultParts,
  throughScreens,
  walkScreens,
  whereItEnded,
  withShortValues,
} from "../lib/screens.ts";
import { checks, covers, expect, need, needLogin, test } from "../lib/test.ts";

/** The two flows of the authorization request (its response_type): each must refuse the same way. */
const BOTH_FLOWS = ["code", "token"] as const;

checks(() => {
  test(
    "an unknown client and a redirect URI other than the registered one get no code or token",
    covers("AUTH-CLIENT-REDIRECT-MATCH"),
    async ({ page, target }) => {
      const client = needLogin(target);
      const base = {
        client_id: client.clientId,
        redirect_uri: client.redirectUri,
        scope: target.scope,
        state: "s",
      };
      // Both flows: a check of the code flow alone passed a server that sent the token flow's
      // access token to any redirect URI.
      for (const params of BOTH_FLOWS.flatMap((response_type) => [
        { ...base, response_type, client_id: `${client.clientId}-unknown` },
        { ...base, response_type, redirect_uri: `${client.redirectUri}/elsewhere` },
      ])) {
        await page.context().clearCookies();
        const left = await attemptAuthorization(page, target, params);
        expect(left.filter(carriesGrant).map(String), `${JSON.stringify(params)} was granted`).toEqual([]);
      }
    },
  );

  test(
    "an application that is not active yet gets no code or token",
    covers("AUTH-REGISTRATION"),
    async ({ page, target }) => {
      needLogin(target);
      need(
        { CONFORMANCE_PENDING_CLIENT_ID: target.pending?.clientId },
        "an application registered but not yet activated",
      );
      const left = await attemptAuthorization(page, target, {
        client_id: target.pending!.clientId,
        redirect_uri: target.pending!.redirectUri,
        scope: target.scope,
        response_type: "code",
      });
      expect(left.filter(carriesGrant).map(String), "where the browser was sent with a code or token").toEqual([]);
    },
  );

  test(
    "without redirect_uri, scope or response_type no code or token is issued",
    covers("AUTHZ-PARAMS-REQUIRED"),
    async ({ page, target }) => {
      const client = needLogin(target);
      const base = {
        client_id: client.clientId,
        redirect_uri: client.redirectUri,
        scope: target.scope,
        response_type: "code",
      };
      // redirect_uri too: the description requires it, and a server that fell back to the registered
      // one passed when only scope and response_type were left out.
      for (const missing of ["redirect_uri", "scope", "response_type"] as const) {
        await page.context().clearCookies();
        const left = await attemptAuthorization(page, target, { ...base, [missing]: undefined });
        expect(left.filter(carriesGrant).map(String), `without ${missing}`).toEqual([]);
      }
    },
  );

  const variants = (registered: string): Array<[string, string]> => {
    const u = new URL(registered);
    const host = u.hostname;
    return [
      ["a trailing slash", `${registered}/`],
      ["another case", registered.replace(/[a-z](?=[^/]*$)/, (c) => c.toUpperCase())],
      ["an extra path segment", `${registered}/extra`],
      ["an added query", `${registered}${registered.includes("?") ? "&" : "?"}extra=1`],
      [
        u.protocol === "https:" ? "http for https" : "https for http",
        registered.replace(/^https?:/, u.protocol === "https:" ? "http:" : "https:"),
      ],
      ["an added fragment", `${registered}#extra`],
      ["another host ending in the registered host", registered.replace(`//${host}`, `//evil${host}`)],
    ];
  };

  test(
    "an unknown client or an inexact redirect URI gets an error page, never a redirect",
    covers("OAUTH-NO-REDIRECT-ON-BAD-CLIENT"),
    async ({ page, target }) => {
      const client = needLogin(target);
      const cases: Array<[string, Record<string, string | undefined>]> = BOTH_FLOWS.flatMap((response_type) => {
        const base = {
          client_id: client.clientId,
          redirect_uri: client.redirectUri,
          scope: target.scope,
          response_type,
          state: "s",
        };
        return [
          [`${response_type}: an unknown client`, { ...base, client_id: `${client.clientId}-unknown` }],
          ...variants(client.redirectUri).map(([name, uri]): [string, Record<string, string | undefined>] => [
            `${response_type}: ${name}`,
            { ...base, redirect_uri: uri },
          ]),
        ];
      });
      const redirected: string[] = [];
      for (const [name, params] of cases) {
        await page.context().clearCookies();
        await page.unrouteAll({ behavior: "ignoreErrors" });
        const left = await attemptAuthorization(page, target, params);
        if (left.length > 0) redirected.push(`${name}: sent to ${left[0]}`);
      }
      expect(redirected, "the browser was sent away instead of shown an error page").toEqual([]);
    },
  );

  test(
    "other errors redirect to the registered URI with error and the unchanged state, where the flow answers",
    covers("OAUTH-ERROR-REDIRECT"),
    async ({ page, target, flows }) => {
      const client = needLogin(target);
      // State lost here too, when the code flow's own redirect loses it, is AUTHZ-STATE's finding.
      const flow = await flows.code();
      const stateKept = flow.landed.searchParams.get("state") === flow.state;
      /** The error a redirect carries where its flow answers (4.1.2.1 the query, 4.2.2.1 the fragment). */
      const expectError = (back: URL, responseType: "code" | "token", sent: string, what: string) => {
        const { result, elsewhere } = resultParts(back, responseType);
        expect(
          elsewhere.get("error"),
          `${what}: the ${responseType} flow's error goes in the ${responseType === "code" ? "query" : "fragment"}`,
        ).toBeNull();
        test.skip(
          !stateKept && result.get("state") !== sent,
          `${NOT_CHECKED}AUTHZ-STATE: the code flow's redirect does not bring state back unchanged either`,
        );
        expect(result.get("state"), `${what}: state`).toBe(sent);
        return result.get("error");
      };
      const unsupported = await attemptAuthorization(page, target, {
        client_id: client.clientId,
        redirect_uri: client.redirectUri,
        scope: target.scope,
        response_type: "id_token",
        state: "st 1",
      });
      const back = unsupported.find((u) => u.href.startsWith(client.redirectUri));
      expect(back?.href, "an unsupported response_type is sent back").toBeTruthy();
      // RFC 6749 lists unsupported_response_type in both 4.1.2.1 and 4.2.2.1 and does not say where
      // an unknown type's error goes (id_token's default response mode is the fragment): either,
      // but in one place.
      const inFragment = fragmentOf(back!).has("error") && !back!.searchParams.has("error");
      expect(
        expectError(back!, inFragment ? "token" : "code", "st 1", "an unsupported response_type"),
        `the error of an unsupported response_type: ${withShortValues(back!.href)}`,
      ).toBe("unsupported_response_type");

      // Without scope: RFC 6749 3.3 lets a server use a default scope or refuse with invalid_scope,
      // never an error page (that is for a client or redirect URI it can not trust); whether it may
      // issue anything is AUTHZ-PARAMS-REQUIRED's. Both flows: a server that put the token flow's
      // errors in the query passed a check of the code flow alone.
      for (const responseType of BOTH_FLOWS) {
        await page.context().clearCookies();
        const state = `st ${responseType} no scope`;
        const walk = await walkScreens(
          page,
          target,
          { client_id: client.clientId, redirect_uri: client.redirectUri, response_type: responseType, state },
          { redirectUri: client.redirectUri, decision: "allow" },
        );
        const what = `${responseType} flow without scope`;
        expect(
          walk.landed?.href,
          `${what}: sent back to the redirect URI, not shown an error page (${whereItEnded(page, walk)})`,
        ).toBeTruthy();
        if (!carriesGrant(walk.landed!))
          expect(
            expectError(walk.landed!, responseType, state, what),
            `${what}: an error in the redirect, neither a code nor a token (${withShortValues(walk.landed!.href)})`,
          ).toBeTruthy();
      }

      for (const responseType of BOTH_FLOWS) {
        await page.unrouteAll({ behavior: "ignoreErrors" });
        await page.context().clearCookies();
        const seen = { login: false, permission: false };
        const state = `st ${responseType} denied`;
        const denied = await throughScreens(page, target, { responseType, decision: "deny", state, seen });
        test.skip(
          !seen.permission,
          `${NOT_CHECKED}AUTHZ-SCREENS: no permission screen showed, so the user could not refuse`,
        );
        const what = `the user refuses in the ${responseType} flow`;
        expect(expectError(denied, responseType, state, what), what).toBe("access_denied");
      }
    },
  );
});
