// The authorization server: GET /OAuth/Authorize, the login and permission
// screens (A-SCREEN-PATHS) and POST /OAuth/Token. Pure handlers over the
// registry, the token store and the mock's clock.
import { randomBytes } from "node:crypto";
import { type MockResponse, mediaTypeOf, type Params, parseParams, single } from "../http.ts";
import { MAX_PENDING_AUTHORIZATIONS } from "../limits.ts";
import type { Route, RoutedRequest } from "../router.ts";
import { errorScreen, loginScreen, permissionScreen, screen } from "./pages.ts";
import type { Application, Registry } from "./registry.ts";
import { cookie, sameSecret } from "./secrets.ts";
import { ACCESS_TOKEN_SECONDS, type TokenStore } from "./tokens.ts";

const PENDING_SECONDS = 600;
const BROWSER_COOKIE = "bawa_authz";

interface PendingAuthorization {
  id: string;
  clientId: string;
  redirectUri: string;
  responseType: "code" | "token";
  scope: string;
  state: string | undefined;
  /** Anti-forgery token of the forms. */
  csrf: string;
  /** Binds the request to the browser that started it (cookie). */
  browserKey: string;
  user?: string;
  expiresAt: number;
}

export interface AuthorizationServer {
  routes: Route[];
  reset(): void;
  /** Drops authorization requests that expired before anyone finished them. */
  sweep(now: number): void;
}

export interface AuthorizationServerOptions {
  /** Refuse form posts that lack the browser's cookie and the form's token (off only as a fault). */
  checkCsrf?: boolean;
}

export function createAuthorizationServer(
  registry: Registry,
  tokens: TokenStore,
  options: AuthorizationServerOptions = {},
): AuthorizationServer {
  const checkCsrf = options.checkCsrf ?? true;
  const pending = new Map<string, PendingAuthorization>();

  const authorize = (req: RoutedRequest): MockResponse => {
    const q = req.query;
    const clientId = single(q, "client_id");
    const redirectUri = single(q, "redirect_uri");
    // Until client and redirect URI are verified, nothing may redirect (RFC 6749 4.1.2.1, RFC 9700 4.11).
    if (typeof clientId !== "string" || clientId === "") return errorScreen(400, "client_id is missing or repeated.");
    const app = registry.activeApplication(clientId);
    if (!app) {
      const known = registry.application(clientId);
      return errorScreen(
        400,
        known
          ? `The application ${clientId} is not active yet (status ${known.status}).`
          : `No application is registered with client_id ${clientId}.`,
      );
    }
    if (typeof redirectUri !== "string") return errorScreen(400, "redirect_uri is missing or repeated.");
    if (redirectUri !== app.redirectUri)
      return errorScreen(400, "redirect_uri does not match the redirect URI registered for this application.");

    const state = single(q, "state");
    const responseType = single(q, "response_type");
    const inFragment = responseType === "token";
    const fail = (error: string, description: string) =>
      redirect(302, app.redirectUri, inFragment, {
        error,
        error_description: description,
        state: typeof state === "string" ? state : undefined,
      });
    if (state === null) return fail("invalid_request", "state is repeated");
    if (responseType === undefined) return fail("invalid_request", "response_type is missing");
    if (responseType !== "code" && responseType !== "token")
      return fail("unsupported_response_type", "response_type must be code or token");
    const scope = single(q, "scope");
    if (scope === undefined || scope === null) return fail("invalid_scope", "scope is missing or repeated");
    if (scope !== req.ctx.config.scope) return fail("invalid_scope", `the only scope is ${req.ctx.config.scope}`);

    const now = req.ctx.clock.now();
    // Bounded (A-LIMITS): beyond the cap the oldest requests, the most likely abandoned, go first.
    for (const id of pending.keys()) {
      if (pending.size < MAX_PENDING_AUTHORIZATIONS) break;
      pending.delete(id);
    }
    const browserKey = cookie(req, BROWSER_COOKIE) ?? newKey();
    const request: PendingAuthorization = {
      id: newKey(),
      clientId,
      redirectUri,
      responseType,
      scope,
      state,
      csrf: newKey(),
      browserKey,
      expiresAt: now + PENDING_SECONDS * 1000,
    };
    pending.set(request.id, request);
    return {
      status: 302,
      headers: {
        location: `/${req.versionSegment}/OAuth/Login?request=${request.id}`,
        "set-cookie": `${BROWSER_COOKIE}=${browserKey}; Path=/; HttpOnly; SameSite=Lax`,
        "cache-control": "no-store",
      },
    };
  };

  /** The pending request a screen belongs to, if the browser and (for posts) the form token match. */
  function find(
    req: RoutedRequest,
    params: Params,
    post: boolean,
  ): { ok: true; p: PendingAuthorization; app: Application } | { ok: false; response: MockResponse } {
    const id = single(params, "request");
    const p = typeof id === "string" ? pending.get(id) : undefined;
    const app = p && registry.activeApplication(p.clientId);
    if (!p || !app || p.expiresAt <= req.ctx.clock.now()) {
      return {
        ok: false,
        response: errorScreen(
          400,
          "This authorization request is unknown or expired. Start again from the application.",
        ),
      };
    }
    if (
      checkCsrf &&
      (cookie(req, BROWSER_COOKIE) !== p.browserKey || (post && !sameSecret(single(params, "csrf"), p.csrf)))
    ) {
      return {
        ok: false,
        response: errorScreen(
          400,
          "This form was not sent from the page this server showed (CSRF protection). Start again from the application.",
        ),
      };
    }
    return { ok: true, p, app };
  }

  const action = (req: RoutedRequest, screenName: string) => `/${req.versionSegment}/OAuth/${screenName}`;

  const showLogin = (req: RoutedRequest): MockResponse => {
    const found = find(req, req.query, false);
    if (!found.ok) return found.response;
    const { p, app } = found;
    return loginScreen({ action: action(req, "Login"), request: p.id, csrf: p.csrf, appName: app.name });
  };

  const submitLogin = (req: RoutedRequest): MockResponse => {
    const form = readForm(req);
    if (!form) return errorScreen(400, "The login form must be posted as application/x-www-form-urlencoded.");
    const found = find(req, form, true);
    if (!found.ok) return found.response;
    const { p, app } = found;
    const username = single(form, "username");
    const password = single(form, "password");
    const user = typeof username === "string" ? registry.user(username) : undefined;
    if (!user || !sameSecret(password, user.password)) {
      return loginScreen({
        action: action(req, "Login"),
        request: p.id,
        csrf: p.csrf,
        appName: app.name,
        error: "The user name or password is not right.",
        ...(typeof username === "string" ? { username } : {}),
      });
    }
    p.user = user.username;
    return {
      status: 303,
      headers: { location: `${action(req, "Permission")}?request=${p.id}`, "cache-control": "no-store" },
    };
  };

  const showPermission = (req: RoutedRequest): MockResponse => {
    const found = find(req, req.query, false);
    if (!found.ok) return found.response;
    const { p, app } = found;
    const user = p.user ? registry.user(p.user) : undefined;
    if (!user) return screen(303, "Log in first", "", { location: `${action(req, "Login")}?request=${p.id}` });
    return permissionScreen({
      action: action(req, "Permission"),
      request: p.id,
      csrf: p.csrf,
      appName: app.name,
      user: user.username,
      databases: user.databases,
      scope: p.scope,
    });
  };

  const submitPermission = (req: RoutedRequest): MockResponse => {
    const form = readForm(req);
    if (!form) return errorScreen(400, "The permission form must be posted as application/x-www-form-urlencoded.");
    const found = find(req, form, true);
    if (!found.ok) return found.response;
    const { p } = found;
    const user = p.user ? registry.user(p.user) : undefined;
    if (!user) return errorScreen(400, "Log in before granting permission.");
    pending.delete(p.id);
    const inFragment = p.responseType === "token";
    const decision = single(form, "decision");
    if (decision !== "allow") {
      return redirect(303, p.redirectUri, inFragment, {
        error: "access_denied",
        error_description: "the user refused",
        state: p.state,
      });
    }
    const now = req.ctx.clock.now();
    const grant = { clientId: p.clientId, user: user.username, databases: user.databases, scope: p.scope };
    if (p.responseType === "code") {
      const code = tokens.issueCode({ ...grant, redirectUri: p.redirectUri }, now);
      return redirect(303, p.redirectUri, false, { code, state: p.state });
    }
    // Implicit flow: the token travels in the fragment, never with a refresh token (RFC 6749 4.2.2).
    const issued = tokens.issueAccessToken(grant, now);
    return redirect(303, p.redirectUri, true, {
      token_type: "bearer",
      access_token: issued.accessToken,
      scope: p.scope,
      expires_in: String(issued.expiresIn),
      state: p.state,
    });
  };

  const token = (req: RoutedRequest): MockResponse => {
    if (mediaTypeOf(req.headers["content-type"]) !== "application/x-www-form-urlencoded") {
      return tokenError(400, "invalid_request", "send the parameters as application/x-www-form-urlencoded");
    }
    const form = parseParams(req.body?.toString("utf8") ?? "");
    const repeated = [...form].find(([, v]) => v.length > 1);
    if (repeated) return tokenError(400, "invalid_request", `${repeated[0]} is repeated`);
    const get = (name: string) => form.get(name)?.[0];
    const grantType = get("grant_type");
    if (!grantType) return tokenError(400, "invalid_request", "grant_type is missing");
    if (grantType !== "authorization_code" && grantType !== "refresh_token") {
      return tokenError(400, "unsupported_grant_type", "grant_type must be authorization_code or refresh_token");
    }
    const needed = [
      "client_id",
      "client_secret",
      "redirect_uri",
      grantType === "authorization_code" ? "code" : "refresh_token",
    ];
    const missing = needed.filter((n) => !get(n));
    if (missing.length > 0)
      return tokenError(400, "invalid_request", `${missing.join(", ")} ${missing.length > 1 ? "are" : "is"} missing`);
    const clientId = get("client_id")!;
    const app = registry.activeApplication(clientId);
    if (!app || !sameSecret(get("client_secret"), app.clientSecret)) {
      return tokenError(401, "invalid_client", "the client is unknown, not active, or its secret is wrong");
    }
    const scope = get("scope");
    if (scope !== undefined && scope !== req.ctx.config.scope)
      return tokenError(400, "invalid_scope", `the only scope is ${req.ctx.config.scope}`);
    const redirectUri = get("redirect_uri")!;
    const now = req.ctx.clock.now();

    if (grantType === "authorization_code") {
      const redeemed = tokens.redeemCode(get("code")!, clientId, redirectUri, now);
      if (!redeemed.ok) return tokenError(400, "invalid_grant", redeemed.description);
      const access = tokens.issueAccessToken(redeemed.grant, now);
      const refresh = tokens.issueRefreshToken(redeemed.grant);
      return tokenResponse(access.accessToken, refresh, redeemed.grant.scope);
    }
    if (redirectUri !== app.redirectUri)
      return tokenError(400, "invalid_grant", "redirect_uri does not match the registered redirect URI");
    const refreshToken = get("refresh_token")!;
    const refreshed = tokens.refreshGrant(refreshToken, clientId);
    if (!refreshed.ok) return tokenError(400, "invalid_grant", refreshed.description);
    const access = tokens.issueAccessToken(refreshed.grant, now);
    // A-REFRESH-TOKENS: not rotated; background integrations keep one stored token.
    return tokenResponse(access.accessToken, refreshToken, refreshed.grant.scope);
  };

  return {
    routes: [
      { path: "/OAuth/Authorize", methods: { GET: authorize } },
      { path: "/OAuth/Login", methods: { GET: showLogin, POST: submitLogin } },
      { path: "/OAuth/Permission", methods: { GET: showPermission, POST: submitPermission } },
      { path: "/OAuth/Token", methods: { POST: token } },
    ],
    reset: () => pending.clear(),
    sweep: (now) => {
      for (const [id, p] of pending) if (p.expiresAt <= now) pending.delete(id);
    },
  };
}

const newKey = () => randomBytes(24).toString("base64url");

function readForm(req: RoutedRequest): Params | undefined {
  if (mediaTypeOf(req.headers["content-type"]) !== "application/x-www-form-urlencoded") return undefined;
  return parseParams(req.body?.toString("utf8") ?? "");
}

/** Sends the user agent to the client with the result in the query or the fragment. */
function redirect(
  status: 302 | 303,
  redirectUri: string,
  inFragment: boolean,
  params: Record<string, string | undefined>,
): MockResponse {
  const pairs = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) pairs.set(k, v);
  const location = inFragment
    ? `${redirectUri}#${pairs}`
    : `${redirectUri}${redirectUri.includes("?") ? "&" : "?"}${pairs}`;
  return { status, headers: { location, "cache-control": "no-store" } };
}

const NO_STORE = { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", pragma: "no-cache" };

function tokenResponse(accessToken: string, refreshToken: string, scope: string): MockResponse {
  return {
    status: 200,
    headers: NO_STORE,
    body: JSON.stringify({
      access_token: accessToken,
      token_type: "bearer",
      expires_in: ACCESS_TOKEN_SECONDS,
      refresh_token: refreshToken,
      scope,
    }),
  };
}

function tokenError(status: 400 | 401, error: string, description: string): MockResponse {
  return { status, headers: NO_STORE, body: JSON.stringify({ error, error_description: description }) };
}
