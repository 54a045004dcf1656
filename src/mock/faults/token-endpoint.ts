// Faults of POST /OAuth/Token: its answers, its checks and the lifetimes it hands out.
import type { MockRequest } from "../core/http.ts";
import { html } from "../core/oauth/pages.ts";
import type { Switch } from "../core/scenarios.ts";
import { fault, mapValue } from "./transforms.ts";

/** The request shown back, as a debugging error handler shows it: the credentials it carried included. */
const echo = (req: MockRequest, route = "") =>
  `<!doctype html><title>Error</title><pre>${html(
    [
      `${req.method} ${route}`,
      ...["authorization", "cookie"].flatMap((h) => (req.headers[h] ? [`${h}: ${req.headers[h]}`] : [])),
      "",
      req.body?.toString("utf8") ?? "",
    ].join("\n"),
  )}</pre>`;

export const TOKEN_ENDPOINT_FAULTS: readonly Switch[] = [
  // ── token responses ──
  fault({
    name: "expires-in-3600",
    breaks: ["TOKEN-RESPONSE"],
    says: /expires_in must be 7200/,
    what: "token responses say expires_in 3600",
    transforms: [{ codes: ["token.issued"], apply: mapValue((t) => ({ ...t, expires_in: 3600 })) }],
  }),
  fault({
    name: "scope-other",
    breaks: ["SCOPE-SINGLE"],
    says: /Expected: "http:\/\/BusinessAdmin\.Mock\.API\/Web\/WebApi\/\*"/,
    what: "token responses name another scope",
    transforms: [
      { codes: ["token.issued"], apply: mapValue((t) => ({ ...t, scope: "http://Other.Product.API/Web/WebApi/*" })) },
    ],
  }),
  fault({
    name: "no-refresh-token",
    breaks: ["TOK-CODE-EXCHANGE"],
    says: /Expected: "string"[\s\S]*Received: "undefined"/,
    what: "the code exchange returns no refresh token",
    transforms: [
      {
        codes: ["token.issued"],
        apply: mapValue((t, res) => {
          if (res.meta?.grantType === "authorization_code") delete t.refresh_token;
          return t;
        }),
      },
    ],
  }),
  fault({
    name: "refresh-broken",
    breaks: ["TOK-REFRESH"],
    says: /Expected: 200[\s\S]*Received: 401/,
    what: "the refresh grant returns an access token that does not work",
    transforms: [
      {
        codes: ["token.issued"],
        apply: mapValue((t, res) => (res.meta?.grantType === "refresh_token" ? { ...t, access_token: "broken" } : t)),
      },
    ],
  }),
  fault({
    name: "token-as-form",
    breaks: ["TOKEN-FORM-BODY"],
    says: /Received string:\s+"application\/x-www-form-urlencoded"/,
    what: "token responses are form-encoded, not JSON",
    transforms: [
      {
        codes: ["token.issued"],
        apply: (res) => ({
          ...res,
          headers: { ...res.headers, "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams(res.meta?.value as Record<string, string>).toString(),
        }),
      },
    ],
  }),
  fault({
    name: "token-cacheable",
    breaks: ["OAUTH-NO-STORE"],
    says: /Cache-Control of the token response/,
    what: "token responses lack Cache-Control: no-store",
    rules: { cacheControlNoStore: false },
  }),
  fault({
    name: "token-errors-nonstandard",
    breaks: ["OAUTH-TOKEN-ERRORS"],
    says: /Expected: "invalid_request"[\s\S]*Received: "bad_request"/,
    what: "token errors use codes RFC 6749 5.2 does not have",
    transforms: [{ codes: ["token.error"], apply: mapValue((e) => ({ ...e, error: "bad_request" })) }],
  }),
  fault({
    name: "token-errors-echo",
    breaks: ["OAUTH-TOKEN-ERRORS"],
    says: /Received string:\s+"text\/html/,
    what: "token errors are an HTML page that shows the request back, client secret and code included (a debugging error handler left on)",
    transforms: [
      {
        codes: ["token.error"],
        apply: (res, t) => ({
          ...res,
          headers: { ...res.headers, "content-type": "text/html; charset=utf-8" },
          body: echo(t.req, res.meta?.route),
        }),
      },
    ],
  }),
  fault({
    name: "tokens-never-expire",
    breaks: ["TOK-EXPIRY"],
    says: /lives 7200 s, then every data operation refuses it[\s\S]*answered 200/,
    what: "access tokens keep working after their lifetime",
    rules: { accessTokensExpire: false },
  }),
  fault({
    name: "codes-never-expire",
    breaks: ["OAUTH-CODE-LIFETIME"],
    says: /"access_token"/,
    what: "authorization codes live a day",
    rules: { codeSeconds: 86_400 },
  }),
  fault({
    name: "short-tokens",
    breaks: ["OAUTH-TOKEN-ENTROPY"],
    says: /too short to carry 128 random bits/,
    what: "codes and tokens carry 64 random bits",
    rules: { tokenBytes: 8 },
  }),

  // ── the token endpoint's checks ──
  fault({
    name: "code-reusable",
    breaks: ["OAUTH-CODE-SINGLE-USE"],
    says: /Expected: 400[\s\S]*Received: 200/,
    what: "a code can be exchanged again",
    rules: { codeSingleUse: false },
  }),
  fault({
    name: "code-reuse-keeps-tokens",
    breaks: ["OAUTH-CODE-REUSE-REVOKES"],
    says: /the first token after the code's reuse[\s\S]*Expected: 401/,
    what: "a reused code is refused but what it issued stays valid",
    rules: { codeReuseRevokes: false },
  }),
  fault({
    name: "code-any-client",
    breaks: ["OAUTH-CODE-BOUND"],
    says: /another (client|redirect_uri)[\s\S]*Expected: "invalid_grant"/,
    what: "a code is accepted from any registered client presenting its own credentials and redirect URI",
    rules: { codeBoundToClient: false, codeBoundToRedirectUri: false },
  }),
  fault({
    name: "token-ignores-redirect-uri",
    breaks: ["OAUTH-CODE-BOUND"],
    says: /another redirect_uri[\s\S]*Expected: "invalid_grant"/,
    what: "the code exchange does not compare redirect_uri",
    rules: { codeBoundToRedirectUri: false },
  }),
  fault({
    name: "token-ignores-secret",
    breaks: ["AUTH-SECRET"],
    says: /Expected: not 200/,
    what: "the token endpoint does not check client_secret",
    rules: { checkClientSecret: false },
  }),
  fault({
    name: "refresh-any-client",
    breaks: ["OAUTH-REFRESH-BOUND"],
    says: /Expected: 400[\s\S]*Received: 200/,
    what: "a refresh token is accepted from any client",
    rules: { refreshBoundToClient: false },
  }),
  fault({
    name: "refresh-single-use",
    breaks: ["AUTH-BACKGROUND"],
    says: /exchange \d+ of the stored refresh token \(CONFORMANCE_REFRESH_TOKEN\): .*invalid_grant/,
    what: "refresh tokens rotate, so a background application's stored token dies after one use",
    rules: { rotateRefreshTokens: true },
  }),
  fault({
    name: "code-grant-without-redirect-uri",
    breaks: ["TOKEN-CODE-PARAMS"],
    says: /without redirect_uri: \{"access_token"/,
    what: "the code grant works without redirect_uri",
    rules: { requireRedirectUriOnCodeGrant: false },
  }),
  fault({
    name: "refresh-grant-without-redirect-uri",
    breaks: ["TOK-REFRESH-PARAMS"],
    says: /without redirect_uri: \{"access_token"/,
    what: "the refresh grant works without redirect_uri",
    rules: { requireRedirectUriOnRefresh: false },
  }),
  fault({
    name: "no-basic-auth",
    breaks: ["OAUTH-CLIENT-BASIC"],
    says: /code exchange with Basic: .*client_id, client_secret are missing/,
    what: "client credentials in an HTTP Basic header are not read",
    rules: { acceptBasicAuth: false },
  }),
];
