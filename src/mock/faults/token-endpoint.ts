// Faults of POST /OAuth/Token: its answers, its checks and the lifetimes it hands out.
import type { Switch } from "../core/scenarios.ts";
import { fault, mapValue } from "./transforms.ts";

export const TOKEN_ENDPOINT_FAULTS: readonly Switch[] = [
  // ── token responses ──
  fault({
    name: "expires-in-3600",
    breaks: ["TOKEN-RESPONSE"],
    what: "token responses say expires_in 3600",
    transforms: [{ codes: ["token.issued"], apply: mapValue((t) => ({ ...t, expires_in: 3600 })) }],
  }),
  fault({
    name: "scope-other",
    breaks: ["SCOPE-SINGLE"],
    what: "token responses name another scope",
    transforms: [
      { codes: ["token.issued"], apply: mapValue((t) => ({ ...t, scope: "http://Other.Product.API/Web/WebApi/*" })) },
    ],
  }),
  fault({
    name: "no-refresh-token",
    breaks: ["TOK-CODE-EXCHANGE"],
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
    what: "token responses lack Cache-Control: no-store",
    rules: { cacheControlNoStore: false },
  }),
  fault({
    name: "token-errors-nonstandard",
    breaks: ["OAUTH-TOKEN-ERRORS"],
    what: "token errors use codes RFC 6749 5.2 does not have",
    transforms: [{ codes: ["token.error"], apply: mapValue((e) => ({ ...e, error: "bad_request" })) }],
  }),
  fault({
    name: "tokens-never-expire",
    breaks: ["TOK-EXPIRY"],
    what: "access tokens keep working after their lifetime",
    rules: { accessTokensExpire: false },
  }),
  fault({
    name: "codes-never-expire",
    breaks: ["OAUTH-CODE-LIFETIME"],
    what: "authorization codes live a day",
    rules: { codeSeconds: 86_400 },
  }),
  fault({
    name: "short-tokens",
    breaks: ["OAUTH-TOKEN-ENTROPY"],
    what: "codes and tokens carry 64 random bits",
    rules: { tokenBytes: 8 },
  }),

  // ── the token endpoint's checks ──
  fault({
    name: "code-reusable",
    breaks: ["OAUTH-CODE-SINGLE-USE"],
    what: "a code can be exchanged again",
    rules: { codeSingleUse: false },
  }),
  fault({
    name: "code-reuse-keeps-tokens",
    breaks: ["OAUTH-CODE-REUSE-REVOKES"],
    what: "a reused code is refused but what it issued stays valid",
    rules: { codeReuseRevokes: false },
  }),
  fault({
    name: "code-any-client",
    breaks: ["OAUTH-CODE-BOUND"],
    what: "a code is accepted from any registered client presenting its own credentials and redirect URI",
    rules: { codeBoundToClient: false, codeBoundToRedirectUri: false },
  }),
  fault({
    name: "token-ignores-redirect-uri",
    breaks: ["OAUTH-CODE-BOUND"],
    what: "the code exchange does not compare redirect_uri",
    rules: { codeBoundToRedirectUri: false },
  }),
  fault({
    name: "token-ignores-secret",
    breaks: ["AUTH-SECRET"],
    what: "the token endpoint does not check client_secret",
    rules: { checkClientSecret: false },
  }),
  fault({
    name: "refresh-any-client",
    breaks: ["OAUTH-REFRESH-BOUND"],
    what: "a refresh token is accepted from any client",
    rules: { refreshBoundToClient: false },
  }),
  fault({
    name: "refresh-single-use",
    breaks: ["AUTH-BACKGROUND"],
    what: "refresh tokens rotate, so a background application's stored token dies after one use",
    rules: { rotateRefreshTokens: true },
  }),
  fault({
    name: "code-grant-without-redirect-uri",
    breaks: ["TOKEN-CODE-PARAMS"],
    what: "the code grant works without redirect_uri",
    rules: { requireRedirectUriOnCodeGrant: false },
  }),
  fault({
    name: "refresh-grant-without-redirect-uri",
    breaks: ["TOK-REFRESH-PARAMS"],
    what: "the refresh grant works without redirect_uri",
    rules: { requireRedirectUriOnRefresh: false },
  }),
  fault({
    name: "no-basic-auth",
    breaks: ["OAUTH-CLIENT-BASIC"],
    what: "client credentials in an HTTP Basic header are not read",
    rules: { acceptBasicAuth: false },
  }),
];
