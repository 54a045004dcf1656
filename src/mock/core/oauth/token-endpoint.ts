// POST /OAuth/Token: the code grant and the refresh grant (description,
// Endpoints; RFC 6749 4.1.3 and 6). Client credentials come in the form body,
// as every known client of the family sends them, or in an HTTP Basic header,
// as RFC 6749 2.3.1 says a server MUST support (A-TOKEN-CLIENT-AUTH).

import { basicCredentials } from "../../../rules/oauth.ts";
import { formOf, type MockResponse } from "../http.ts";
import type { Route, RoutedRequest } from "../router.ts";
import { scopeHint } from "./hints.ts";
import type { Registry } from "./registry.ts";
import { sameSecret } from "./secrets.ts";
import type { Issuable, TokenStore } from "./tokens.ts";

type TokenError =
  | "invalid_request"
  | "invalid_client"
  | "invalid_grant"
  | "unsupported_grant_type"
  | "invalid_scope"
  // A cap of A-LIMITS that frees up with time (RFC 6749 defines it for the authorization endpoint).
  | "temporarily_unavailable";

export function tokenRoutes(registry: Registry, tokens: TokenStore): Route[] {
  const token = (req: RoutedRequest): MockResponse => {
    const { rules, config } = req.ctx;
    const fail = (
      status: 400 | 401 | 429,
      error: TokenError,
      description: string,
      headers: Record<string, string> = {},
    ) => tokenAnswer(req, status, { error, error_description: description }, headers, { code: "token.error" });
    const form = formOf(req);
    if (!form) return fail(400, "invalid_request", "send the parameters as application/x-www-form-urlencoded");
    const repeated = [...form].find(([, v]) => v.length > 1);
    if (repeated) return fail(400, "invalid_request", `${repeated[0]} is repeated`);
    const get = (name: string) => form.get(name)?.[0];
    const grantType = get("grant_type");
    if (!grantType) return fail(400, "invalid_request", "grant_type is missing");
    if (grantType !== "authorization_code" && grantType !== "refresh_token") {
      return fail(400, "unsupported_grant_type", "grant_type must be authorization_code or refresh_token");
    }

    const basic = rules.acceptBasicAuth ? basicCredentials(req.headers.authorization) : undefined;
    const challenge = basic ? { "www-authenticate": `Basic realm="bawa", charset="UTF-8"` } : {};
    if (basic === "malformed") {
      return fail(
        401,
        "invalid_client",
        "the Authorization header is not HTTP Basic with id:secret, each form-urlencoded",
        {
          "www-authenticate": `Basic realm="bawa", charset="UTF-8"`,
        },
      );
    }
    const bodyId = get("client_id");
    const bodySecret = get("client_secret");
    if (
      basic &&
      ((bodyId !== undefined && bodyId !== basic.id) || (bodySecret !== undefined && bodySecret !== basic.secret))
    ) {
      return fail(400, "invalid_request", "the client credentials in the Authorization header and in the body differ");
    }
    const clientId = basic?.id ?? bodyId;
    const clientSecret = basic?.secret ?? bodySecret;
    const grantKey = grantType === "authorization_code" ? "code" : "refresh_token";
    const redirectRequired =
      grantType === "authorization_code" ? rules.requireRedirectUriOnCodeGrant : rules.requireRedirectUriOnRefresh;
    const missing = [
      ...(clientId ? [] : ["client_id"]),
      ...(clientSecret ? [] : ["client_secret"]),
      ...(get("redirect_uri") || !redirectRequired ? [] : ["redirect_uri"]),
      ...(get(grantKey) ? [] : [grantKey]),
    ];
    if (missing.length > 0) {
      return fail(400, "invalid_request", `${missing.join(", ")} ${missing.length > 1 ? "are" : "is"} missing`);
    }
    const app = rules.requireActiveClient ? registry.activeApplication(clientId!) : registry.application(clientId!);
    if (!app || (rules.checkClientSecret && !sameSecret(clientSecret, app.clientSecret))) {
      return fail(401, "invalid_client", "the client is unknown, not active, or its secret is wrong", challenge);
    }
    const scope = get("scope");
    if (scope !== undefined && scope !== config.scope) {
      return fail(400, "invalid_scope", scopeHint(config.scope));
    }
    const redirectUri = get("redirect_uri") ?? app.redirectUri;
    const now = req.ctx.clock.now();
    // Asked before the code or refresh token is used, so a refusal costs the client nothing.
    const kinds: Issuable[] =
      grantType === "authorization_code" || rules.rotateRefreshTokens ? ["access", "refresh"] : ["access"];
    const full = tokens.room(app.clientId, kinds, now);
    if (full?.retryAfter !== undefined) {
      return fail(429, "temporarily_unavailable", full.message, { "retry-after": String(full.retryAfter) });
    }
    if (full) return fail(400, "invalid_request", full.message);
    const issued = (accessToken: string, refreshToken: string, expiresIn: number) =>
      tokenAnswer(
        req,
        200,
        {
          access_token: accessToken,
          token_type: "bearer",
          expires_in: expiresIn,
          refresh_token: refreshToken,
          scope: config.scope,
        },
        {},
        { code: "token.issued", client: app.clientId },
      );

    if (grantType === "authorization_code") {
      const redeemed = tokens.redeemCode(get("code")!, app.clientId, redirectUri, now);
      if (!redeemed.ok) return fail(400, "invalid_grant", redeemed.description);
      const access = tokens.issueAccessToken(redeemed.grant, now);
      return issued(access.accessToken, tokens.issueRefreshToken(redeemed.grant), access.expiresIn);
    }
    if (rules.exactRedirectUri && redirectUri !== app.redirectUri) {
      return fail(400, "invalid_grant", `redirect_uri does not match the registered redirect URI (${app.redirectUri})`);
    }
    const refreshed = tokens.refreshGrant(get("refresh_token")!, app.clientId, now);
    if (!refreshed.ok) return fail(400, "invalid_grant", refreshed.description);
    const access = tokens.issueAccessToken(refreshed.grant, now);
    // A-REFRESH-TOKENS: not rotated unless the rule says so; background integrations keep one stored token.
    return issued(access.accessToken, refreshed.refreshToken, access.expiresIn);
  };
  return [{ path: "/OAuth/Token", methods: { POST: token } }];
}

/** A JSON answer of the token endpoint; never cached, unless the rule cacheControlNoStore is off (RFC 6749 5.1). */
function tokenAnswer(
  req: RoutedRequest,
  status: number,
  body: Record<string, unknown>,
  headers: Record<string, string>,
  meta: MockResponse["meta"],
): MockResponse {
  const noStore = req.ctx.rules.cacheControlNoStore ? { "cache-control": "no-store", pragma: "no-cache" } : {};
  return {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...noStore, ...headers },
    body: JSON.stringify(body),
    // Not `{ ...meta, value, ... }`: properties after a leading spread cost a runtime call each
    // (see Judged in src/rules/judge/step.ts).
    meta: Object.assign({}, meta, {
      value: body,
      grantType: formOf(req)?.get("grant_type")?.[0] ?? "",
      ...(status >= 400 ? { problem: `${body.error}: ${body.error_description}` } : {}),
    }),
  };
}
