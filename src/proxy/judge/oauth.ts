// The rules of the authorization server that exchanges show: the authorization
// request and the redirects that answer it, the screens, and the token
// endpoint. Each rule names the requirement of conformance/requirements.yaml it
// checks, as the suite's check of that requirement would report it.
import { TOKEN_ERRORS } from "../../../conformance/lib/token-errors.ts";
import type { SchemaSet } from "../../contract/index.ts";
import {
  basicCredentials,
  type Exchange,
  expectation,
  fingerprint,
  formOf,
  header,
  jsonOf,
  mediaType,
  queryOf,
  redirectParams,
  text,
  type Violation,
} from "../exchange.ts";
import type { Place } from "../places.ts";
import type { AuthorizationSeen, Memory } from "./memory.ts";

/** The access token's lifetime the description gives (Limits). */
export const TOKEN_SECONDS = 7200;
/** RFC 6749 4.1.2: a code lives at most 10 minutes. */
const CODE_MAX_SECONDS = 600;
/** RFC 6749 10.10, RFC 9700: 128 bits. Fewer than 16 characters can not carry them, whatever the alphabet. */
const MIN_SECRET_LENGTH = 16;

const v = (requirement: string, where: string, expected: string, found?: string): Violation => ({
  requirement,
  where,
  expected,
  ...(found === undefined ? {} : { found }),
});
const quote = (s: string | undefined | null) =>
  s === undefined || s === null ? "nothing" : JSON.stringify(s.slice(0, 120));
const redirect = (ex: Exchange) => (ex.status >= 300 && ex.status < 400 ? header(ex, "location") : undefined);
const refusesFraming = (ex: Exchange) =>
  /^deny$/i.test(header(ex, "x-frame-options") ?? "") ||
  /frame-ancestors\s+'none'/i.test(header(ex, "content-security-policy") ?? "");

/** A redirect that delivers an authorization result (`code`, `access_token` or `error`) to the client. */
function carriesResult(location: string): boolean {
  const p = redirectParams(location);
  if (!p) return false;
  return ["code", "access_token", "error"].some((k) => p.query.has(k) || p.fragment.has(k));
}

/**
 * The authorization request a redirect to `location` answers: among those with that redirect URI,
 * the one whose state it returns (two tabs may authorize at once), else the latest.
 */
function authorizationOf(memory: Memory, location: string): AuthorizationSeen | undefined {
  const p = redirectParams(location);
  const returned = p?.query.get("state") ?? p?.fragment.get("state") ?? undefined;
  let latest: AuthorizationSeen | undefined;
  let same: AuthorizationSeen | undefined;
  for (const a of memory.authorizations.values()) {
    if (!authorizationMatches(location, a)) continue;
    latest = a;
    if (returned !== undefined && a.state === returned) same = a;
  }
  return same ?? latest;
}

/** GET /OAuth/Authorize: its required parameters, its errors, and where it sends the browser. */
export function judgeAuthorize(ex: Exchange, memory: Memory): Violation[] {
  const out: Violation[] = [];
  const q = queryOf(ex.url);
  const get = (k: string) => q.get(k) ?? undefined;
  const auth: AuthorizationSeen = {
    clientId: get("client_id"),
    redirectUri: get("redirect_uri"),
    state: get("state"),
    responseType: get("response_type"),
    at: ex.at,
  };
  const location = redirect(ex);
  const pair = `${auth.clientId} ${auth.redirectUri}`;
  const toClient = location !== undefined && auth.redirectUri !== undefined && authorizationMatches(location, auth);
  const errorRedirect = toClient && redirectParams(location!)?.query.has("error") === true;
  const errorInFragment = toClient && redirectParams(location!)?.fragment.has("error") === true;
  const refused = ex.status >= 400 || errorRedirect || errorInFragment;
  const missing = ["client_id", "redirect_uri", "scope", "response_type"].filter((k) => !get(k));
  if (missing.length > 0 && !refused) {
    out.push(
      v(
        "AUTHZ-PARAMS-REQUIRED",
        `query ${missing.join(", ")}`,
        `a refusal (an error page, or a redirect with error=) when ${missing.join(", ")} ${missing.length > 1 ? "are" : "is"} missing`,
        `${ex.status}${location ? ` to ${location.split("?")[0]}` : ""}`,
      ),
    );
  }
  const unsupported = auth.responseType !== undefined && !["code", "token"].includes(auth.responseType);
  if (unsupported && missing.length === 0 && memory.accepted.has(pair) && !(errorRedirect || errorInFragment)) {
    out.push(
      v(
        "OAUTH-ERROR-REDIRECT",
        "status",
        `a redirect to ${auth.redirectUri} with error=unsupported_response_type (this client and redirect URI were accepted before)`,
        location ? `${ex.status} to ${location.split("?")[0]}` : String(ex.status),
      ),
    );
  }
  if (ex.status >= 400 && mediaType(header(ex, "content-type")) === "text/html") {
    const body = text(ex.body);
    const target = auth.redirectUri;
    const links =
      target !== undefined &&
      [target, encodeURI(target), htmlEscape(target)].some(
        (t) => body.includes(`href="${t}`) || body.includes(`url=${t}`),
      );
    if (/http-equiv\s*=\s*["']?refresh/i.test(body) || links) {
      out.push(
        v(
          "OAUTH-ERROR-PAGE-NO-REDIRECT",
          "body",
          "an error page that neither redirects to the unverified redirect_uri nor links to it",
          /http-equiv/i.test(body) ? "a <meta http-equiv=refresh>" : `a link to ${target}`,
        ),
      );
    }
  }
  if (!refused && missing.length === 0 && (ex.status === 200 || location !== undefined))
    memory.accepted.set(pair, true);
  if (auth.redirectUri) {
    memory.authorizations.set(`${auth.redirectUri} ${auth.state ?? ""}`, auth);
    if (memory.scope === undefined && !refused && get("scope")) memory.scope = get("scope");
  }
  if (ex.status === 200 && mediaType(header(ex, "content-type")) === "text/html") out.push(...judgeScreen(ex));
  return out;
}

const authorizationMatches = (location: string, a: AuthorizationSeen) =>
  a.redirectUri !== undefined &&
  (location === a.redirectUri || location.startsWith(`${a.redirectUri}?`) || location.startsWith(`${a.redirectUri}#`));
const htmlEscape = (s: string) => s.replaceAll("&", "&amp;").replaceAll('"', "&quot;").replaceAll("<", "&lt;");

/** A screen of the authorization server (login, permission) must refuse framing. */
function judgeScreen(ex: Exchange): Violation[] {
  if (refusesFraming(ex)) return [];
  return [
    v(
      "OAUTH-SCREENS-NO-FRAMING",
      "header X-Frame-Options",
      "X-Frame-Options: DENY or Content-Security-Policy: frame-ancestors 'none'",
      header(ex, "x-frame-options") ?? header(ex, "content-security-policy") ?? "neither header",
    ),
  ];
}

/**
 * Every answer of the authorization server's pages: the screens it shows
 * (framing), where they send the browser next, and the redirect that brings
 * the client its code or token.
 */
export function judgeRedirectsAndScreens(ex: Exchange, place: Place, memory: Memory): Violation[] {
  const out: Violation[] = [];
  const path = `/${place.segments.join("/")}`.toLowerCase();
  if (memory.screens.has(path) && ex.status === 200 && mediaType(header(ex, "content-type")) === "text/html") {
    out.push(...judgeScreen(ex));
  }
  const location = redirect(ex);
  if (!location) return out;
  const auth = authorizationOf(memory, location);
  if (auth && carriesResult(location)) out.push(...judgeResult(ex, location, auth, memory));
  else if (place.endpoint === "authorize" || memory.screens.has(path)) {
    // Sent on to another page of the authorization server: a screen.
    const next = redirectParams(location);
    if (next && (location.startsWith("/") || !auth)) {
      const segments = next.url.pathname.split("/").slice(1);
      const rest = /^[vV]\d+$/.test(segments[0] ?? "") ? segments.slice(1) : segments;
      memory.screens.set(`/${rest.join("/")}`.toLowerCase(), true);
    }
  }
  return out;
}

/** The redirect that answers an authorization request (Endpoints, redirect results; RFC 6749 4.1.2, 4.2.2). */
function judgeResult(ex: Exchange, location: string, auth: AuthorizationSeen, memory: Memory): Violation[] {
  const out: Violation[] = [];
  const { query, fragment } = redirectParams(location)!;
  const tokenFlow = auth.responseType === "token" || query.has("access_token") || fragment.has("access_token");
  const error = query.get("error") ?? fragment.get("error");
  const returnedState = tokenFlow ? (fragment.get("state") ?? query.get("state")) : query.get("state");
  if (auth.state !== undefined && returnedState !== auth.state) {
    out.push(
      v(
        "AUTHZ-STATE",
        `Location ${tokenFlow ? "fragment" : "query"} state`,
        `the state sent, ${quote(auth.state)}`,
        quote(returnedState),
      ),
    );
  }
  const now = memory.targetTime(ex.at);
  if (error) return out;
  if (!tokenFlow) {
    const code = query.get("code");
    if (!code) {
      out.push(
        v(
          "AUTHZ-CODE-REDIRECT",
          "Location query code",
          "{redirect_uri}?code=<authorization_code>",
          fragment.has("code") ? "the code in the fragment" : "no code",
        ),
      );
    }
    const issued = code ?? fragment.get("code");
    if (issued) {
      out.push(...entropy(issued, "Location query code", memory.codes.has(fingerprint(issued))));
      memory.codes.set(fingerprint(issued), {
        clientId: auth.clientId,
        redirectUri: auth.redirectUri,
        issuedAt: now,
        exchanged: 0,
        revoked: false,
      });
    }
    return out;
  }
  if (query.has("access_token")) {
    out.push(
      v(
        "OAUTH-IMPLICIT-FRAGMENT",
        "Location query access_token",
        "the access token in the fragment, never the query",
        "in the query",
      ),
    );
  }
  if (fragment.has("refresh_token") || query.has("refresh_token")) {
    out.push(
      v(
        "TOK-IMPLICIT-NO-REFRESH",
        "Location fragment refresh_token",
        "no refresh token in the token flow",
        "a refresh_token",
      ),
    );
  }
  const params = query.has("access_token") ? query : fragment;
  if (!query.has("access_token")) {
    const missing = ["token_type", "access_token", "scope", "expires_in"].filter((k) => !fragment.get(k));
    if (missing.length > 0) {
      out.push(
        v(
          "AUTHZ-TOKEN-REDIRECT",
          `Location fragment ${missing.join(", ")}`,
          "#token_type=bearer&access_token=..&scope=..&expires_in=..",
          `${missing.join(", ")} missing`,
        ),
      );
    } else if (!/^bearer$/i.test(fragment.get("token_type")!)) {
      out.push(v("AUTHZ-TOKEN-REDIRECT", "Location fragment token_type", "bearer", quote(fragment.get("token_type"))));
    }
    const expiresIn = fragment.get("expires_in");
    if (expiresIn && expiresIn !== String(TOKEN_SECONDS)) {
      out.push(v("AUTHZ-TOKEN-REDIRECT", "Location fragment expires_in", String(TOKEN_SECONDS), quote(expiresIn)));
    }
  }
  const scope = params.get("scope");
  if (scope) out.push(...sameScope(scope, "Location fragment scope", memory));
  const token = params.get("access_token");
  if (token) {
    const fp = fingerprint(token);
    out.push(...entropy(token, "Location fragment access_token", memory.access.has(fp)));
    memory.access.set(fp, {
      issuedAt: now,
      expiresIn: Number(params.get("expires_in")) || TOKEN_SECONDS,
      via: "implicit",
      lineage: undefined,
      code: undefined,
      answered: new Map(),
      revoked: false,
    });
  }
  return out;
}

/** OAUTH-TOKEN-ENTROPY: long enough to carry 128 bits, and never one seen before. */
function entropy(value: string, where: string, seen: boolean): Violation[] {
  if (value.length < MIN_SECRET_LENGTH) {
    return [
      v(
        "OAUTH-TOKEN-ENTROPY",
        where,
        `at least ${MIN_SECRET_LENGTH} characters (128 bits)`,
        `${value.length} characters`,
      ),
    ];
  }
  return seen ? [v("OAUTH-TOKEN-ENTROPY", where, "a value never issued before", "one issued before")] : [];
}

/** SCOPE-SINGLE: every grant names the one scope (the first one seen). */
function sameScope(scope: string, where: string, memory: Memory): Violation[] {
  memory.scope ??= scope;
  return scope === memory.scope
    ? []
    : [v("SCOPE-SINGLE", where, `the single scope, ${quote(memory.scope)}`, quote(scope))];
}

/** POST /OAuth/Token: the request's parameters, the answer's shape, and what its codes and tokens did before. */
export function judgeToken(ex: Exchange, memory: Memory, spec: SchemaSet): Violation[] {
  const out: Violation[] = [];
  const form = formOf(ex) ?? {};
  const basic = basicCredentials(ex.requestHeaders.authorization);
  const clientId = form.client_id ?? basic?.id;
  const secret = form.client_secret ?? basic?.secret;
  const grant = form.grant_type;
  const now = memory.targetTime(ex.at);
  const code = grant === "authorization_code" && form.code ? memory.codes.get(fingerprint(form.code)) : undefined;
  const refresh =
    grant === "refresh_token" && form.refresh_token ? memory.refresh.get(fingerprint(form.refresh_token)) : undefined;
  const needed =
    grant === "authorization_code"
      ? {
          id: "TOKEN-CODE-PARAMS",
          params: { code: form.code, client_id: clientId, client_secret: secret, redirect_uri: form.redirect_uri },
        }
      : grant === "refresh_token"
        ? {
            id: "TOK-REFRESH-PARAMS",
            params: {
              refresh_token: form.refresh_token,
              client_id: clientId,
              client_secret: secret,
              redirect_uri: form.redirect_uri,
            },
          }
        : undefined;
  const missing = needed
    ? Object.entries(needed.params)
        .filter(([, x]) => !x)
        .map(([k]) => k)
    : [];

  if (ex.status >= 400) {
    const answer = jsonOf(ex.body)?.value as { error?: unknown } | undefined;
    const error = typeof answer?.error === "string" ? answer.error : undefined;
    if (ex.status < 500 && (error === undefined || !(TOKEN_ERRORS as readonly string[]).includes(error))) {
      out.push(
        v(
          "OAUTH-TOKEN-ERRORS",
          "body.error",
          `JSON with error one of ${TOKEN_ERRORS.join(", ")}`,
          error ? quote(error) : "no error code",
        ),
      );
    }
    // A second use of the code by its client, refused for the code and not for the client's credentials:
    // what its first use issued must stop working.
    const aboutClient = ex.status === 401 || error === "invalid_client" || error === "invalid_request";
    if (code && code.exchanged > 0 && code.clientId === clientId && missing.length === 0 && !aboutClient) {
      revokeCode(code, memory);
    }
    const sameClient = refresh && refresh.clientId === clientId && refresh.secret === (secret && fingerprint(secret));
    if (
      refresh?.worked &&
      !refresh.revoked &&
      sameClient &&
      refresh.redirectUri === form.redirect_uri &&
      ex.status < 500
    ) {
      out.push(
        v(
          "AUTH-BACKGROUND",
          "status",
          "a refresh token that worked before, with the same client, secret and redirect URI, keeps working",
          `${ex.status} ${error ?? ""}`.trim(),
        ),
      );
    }
    if (
      basic &&
      missing.length === 0 &&
      memory.secrets.get(basic.id) === fingerprint(basic.secret) &&
      (error === "invalid_request" || error === "invalid_client")
    ) {
      out.push(
        v(
          "OAUTH-CLIENT-BASIC",
          "header Authorization",
          "client credentials in an HTTP Basic header are read (they worked in the form before)",
          `${ex.status} ${error}`,
        ),
      );
    }
    return out;
  }
  if (ex.status !== 200) return out;

  if (needed && missing.length > 0) {
    out.push(v(needed.id, `form ${missing.join(", ")}`, `no token without ${missing.join(", ")}`, "200 with a token"));
  }
  if (code) {
    if (code.exchanged > 0) {
      out.push(
        v("OAUTH-CODE-SINGLE-USE", "form code", "a code used before is refused with invalid_grant", "200 with a token"),
      );
    }
    const otherRedirect = form.redirect_uri !== undefined && code.redirectUri !== form.redirect_uri;
    if (code.clientId !== clientId || otherRedirect) {
      out.push(
        v(
          "OAUTH-CODE-BOUND",
          code.clientId !== clientId ? "form client_id" : "form redirect_uri",
          `the client (${code.clientId}) and redirect URI the code was issued for`,
          code.clientId !== clientId ? quote(clientId) : quote(form.redirect_uri),
        ),
      );
    }
    if (now - code.issuedAt > CODE_MAX_SECONDS * 1000) {
      out.push(
        v(
          "OAUTH-CODE-LIFETIME",
          "form code",
          `a code older than ${CODE_MAX_SECONDS} s is refused`,
          `accepted ${Math.round((now - code.issuedAt) / 1000)} s after it was issued`,
        ),
      );
    }
  }
  if (refresh && refresh.clientId !== clientId) {
    out.push(
      v(
        "OAUTH-REFRESH-BOUND",
        "form client_id",
        `the client the refresh token was issued to (${refresh.clientId})`,
        quote(clientId),
      ),
    );
  }
  if (clientId && secret) {
    const known = memory.secrets.get(clientId);
    if (known && known !== fingerprint(secret)) {
      out.push(
        v(
          "AUTH-SECRET",
          "form client_secret",
          "the client's secret (another one was accepted before)",
          "a different secret, accepted",
        ),
      );
    } else memory.secrets.set(clientId, fingerprint(secret));
  }

  if (!/no-store/i.test(header(ex, "cache-control") ?? "")) {
    out.push(v("OAUTH-NO-STORE", "header Cache-Control", "no-store", quote(header(ex, "cache-control"))));
  }
  const type = mediaType(header(ex, "content-type"));
  const parsed = type === "application/json" ? jsonOf(ex.body) : undefined;
  if (!parsed) {
    out.push(
      v(
        "TOKEN-FORM-BODY",
        "header Content-Type",
        "a JSON answer (application/json)",
        type === "application/json" ? "a body that is not JSON" : quote(type),
      ),
    );
    return out;
  }
  const answer = parsed.value as Record<string, unknown>;
  const issuedVia = grant === "refresh_token" ? "TOK-REFRESH" : "TOK-CODE-EXCHANGE";
  for (const p of spec.check("TokenResponse", answer)) {
    const field = p.field.split(".")[0] ?? "";
    const requirement =
      field === "scope"
        ? "SCOPE-SINGLE"
        : (field === "access_token" || field === "refresh_token") && p.message === "is required"
          ? issuedVia
          : "TOKEN-RESPONSE";
    const value = answer?.[field];
    const shown = field.endsWith("token")
      ? value === undefined
        ? "missing"
        : typeof value
      : value === undefined
        ? "missing"
        : JSON.stringify(value);
    out.push(v(requirement, `body.${p.field || "(body)"}`, expectation(p.message), shown));
  }
  if (typeof answer?.scope === "string") out.push(...sameScope(answer.scope, "body.scope", memory));

  // Remember what was issued, for the rules of later exchanges.
  const access = typeof answer?.access_token === "string" ? answer.access_token : undefined;
  const issuedRefresh = typeof answer?.refresh_token === "string" ? answer.refresh_token : undefined;
  const lineage =
    grant === "refresh_token" && form.refresh_token
      ? fingerprint(form.refresh_token)
      : issuedRefresh && fingerprint(issuedRefresh);
  if (access) {
    const fp = fingerprint(access);
    out.push(...entropy(access, "body.access_token", memory.access.has(fp)));
    memory.access.set(fp, {
      issuedAt: now,
      expiresIn: typeof answer.expires_in === "number" ? answer.expires_in : TOKEN_SECONDS,
      via: grant === "refresh_token" ? "refresh" : "code",
      lineage,
      code: code && form.code ? fingerprint(form.code) : undefined,
      answered: new Map(),
      revoked: code?.revoked ?? false,
    });
  }
  if (issuedRefresh) {
    const fp = fingerprint(issuedRefresh);
    // A refresh grant may answer the same refresh token again (A-REFRESH-TOKENS); a new one must be new.
    if (!(grant === "refresh_token" && issuedRefresh === form.refresh_token)) {
      out.push(...entropy(issuedRefresh, "body.refresh_token", memory.refresh.has(fp)));
    }
    const known = memory.refresh.get(fp);
    memory.refresh.set(fp, {
      clientId,
      secret: secret && fingerprint(secret),
      redirectUri: form.redirect_uri,
      worked: known?.worked ?? false,
      revoked: known?.revoked ?? false,
      answered: known?.answered ?? new Set(),
    });
  }
  if (refresh) refresh.worked = true;
  if (code && form.code) {
    if (code.exchanged === 0) {
      if (access) code.access = fingerprint(access);
      if (issuedRefresh) code.refresh = fingerprint(issuedRefresh);
    }
    code.exchanged++;
  }
  return out;
}

/** A code used twice: the tokens its first use issued, and those refreshed from them, are revoked. */
function revokeCode(code: NonNullable<ReturnType<Memory["codes"]["get"]>>, memory: Memory): void {
  code.revoked = true;
  const refresh = code.refresh ? memory.refresh.get(code.refresh) : undefined;
  if (refresh) refresh.revoked = true;
  for (const t of memory.access.values()) {
    if ((code.access && t === memory.access.get(code.access)) || (code.refresh && t.lineage === code.refresh))
      t.revoked = true;
  }
}
