// GET /OAuth/Authorize and the login and permission screens (A-SCREEN-PATHS):
// pure handlers over the registry, the token store, the mock's clock and its
// rules. Until client and redirect URI are verified nothing redirects
// (RFC 6749 4.1.2.1, RFC 9700 4.11); later errors go back to the client.
import { randomBytes } from "node:crypto";
import { formOf, type MockResponse, type Params, single } from "../http.ts";
import { MAX_PENDING_AUTHORIZATIONS } from "../limits.ts";
import type { Route, RoutedRequest } from "../router.ts";
import { errorScreen, loginScreen, permissionScreen, screen } from "./pages.ts";
import { type Application, type Registry, registrableRedirectUri } from "./registry.ts";
import { cookie, sameSecret } from "./secrets.ts";
import type { TokenStore } from "./tokens.ts";

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

export interface Authorization {
  routes: Route[];
  reset(): void;
  /** Drops authorization requests that expired before anyone finished them. */
  sweep(now: number): void;
  /** Requests waiting for login or permission (the bench and the stores' tests count them). */
  readonly pending: number;
}

type Found = { ok: true; p: PendingAuthorization; app: Application } | { ok: false; response: MockResponse };

export function createAuthorization(registry: Registry, tokens: TokenStore): Authorization {
  const pending = new Map<string, PendingAuthorization>();
  const applicationOf = (req: RoutedRequest, clientId: string) =>
    req.ctx.rules.requireActiveClient ? registry.activeApplication(clientId) : registry.application(clientId);
  const errorPage = (req: RoutedRequest, message: string, redirectUri?: string) => {
    const res = errorScreen(400, message, req.ctx.rules.refuseFraming);
    return {
      ...res,
      meta: { code: "authorize.error-page", problem: message, ...(redirectUri ? { redirectUri } : {}) },
    };
  };

  const authorize = (req: RoutedRequest): MockResponse => {
    const { rules, config } = req.ctx;
    const q = req.query;
    const clientId = single(q, "client_id");
    const asked = single(q, "redirect_uri");
    const unverified = typeof asked === "string" ? asked : undefined;
    if (typeof clientId !== "string" || clientId === "") {
      return errorPage(req, "client_id is missing or repeated.", unverified);
    }
    const app = applicationOf(req, clientId);
    if (!app) {
      const known = registry.application(clientId);
      const why = known
        ? `The application ${clientId} is not active yet (status ${known.status}).`
        : `No application is registered with client_id ${clientId}.`;
      return errorPage(req, why, unverified);
    }
    if (typeof asked !== "string") return errorPage(req, "redirect_uri is missing or repeated.");
    let redirectUri = app.redirectUri;
    if (asked !== app.redirectUri) {
      // Without exact matching any well-formed URI is used, as a lax server would (a fault, never the default).
      const loose = registrableRedirectUri(asked);
      if (rules.exactRedirectUri || !loose.ok) {
        return errorPage(req, "redirect_uri does not match the redirect URI registered for this application.", asked);
      }
      redirectUri = loose.uri;
    }

    const state = single(q, "state");
    let responseType = single(q, "response_type");
    let scope = single(q, "scope");
    if (!rules.requireScopeAndResponseType) {
      responseType ??= "code";
      scope ??= config.scope;
    }
    const inFragment = responseType === "token";
    const fail = (error: string, description: string) =>
      sendBack(req, 302, redirectUri, inFragment, {
        error,
        error_description: description,
        state: typeof state === "string" ? state : undefined,
      });
    if (state === null) return fail("invalid_request", "state is repeated");
    if (responseType === undefined) return fail("invalid_request", "response_type is missing");
    if (responseType !== "code" && responseType !== "token") {
      return fail("unsupported_response_type", "response_type must be code or token");
    }
    if (scope === undefined || scope === null) return fail("invalid_scope", "scope is missing or repeated");
    if (scope !== config.scope) return fail("invalid_scope", `the only scope is ${config.scope}`);

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
      expiresAt: req.ctx.clock.now() + PENDING_SECONDS * 1000,
    };
    pending.set(request.id, request);
    return {
      status: 302,
      headers: {
        location: `/${req.versionSegment}/OAuth/Login?request=${request.id}`,
        "set-cookie": `${BROWSER_COOKIE}=${browserKey}; Path=/; HttpOnly; SameSite=Lax`,
        "cache-control": "no-store",
      },
      meta: { code: "authorize.login", client: clientId, responseType },
    };
  };

  /** The pending request a screen belongs to, if the browser and (for posts) the form token match. */
  function find(req: RoutedRequest, params: Params, post: boolean): Found {
    const id = single(params, "request");
    const p = typeof id === "string" ? pending.get(id) : undefined;
    const app = p && applicationOf(req, p.clientId);
    if (!p || !app || p.expiresAt <= req.ctx.clock.now()) {
      return {
        ok: false,
        response: errorPage(req, "This authorization request is unknown or expired. Start again from the application."),
      };
    }
    const forged =
      cookie(req, BROWSER_COOKIE) !== p.browserKey || (post && !sameSecret(single(params, "csrf"), p.csrf));
    if (req.ctx.rules.checkCsrf && forged) {
      return {
        ok: false,
        response: errorPage(
          req,
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
    return loginScreen({
      action: action(req, "Login"),
      request: p.id,
      csrf: p.csrf,
      appName: app.name,
      refuseFraming: req.ctx.rules.refuseFraming,
    });
  };

  const submitLogin = (req: RoutedRequest): MockResponse => {
    const form = formOf(req);
    if (!form) return errorPage(req, "The login form must be posted as application/x-www-form-urlencoded.");
    const found = find(req, form, true);
    if (!found.ok) return found.response;
    const { p, app } = found;
    const username = single(form, "username");
    const user = typeof username === "string" ? registry.user(username) : undefined;
    if (!user || !sameSecret(single(form, "password"), user.password)) {
      return loginScreen({
        action: action(req, "Login"),
        request: p.id,
        csrf: p.csrf,
        appName: app.name,
        error: "The user name or password is not right.",
        refuseFraming: req.ctx.rules.refuseFraming,
        ...(typeof username === "string" ? { username } : {}),
      });
    }
    p.user = user.username;
    // Without the permission screen, logging in grants at once (a fault, never the default).
    if (!req.ctx.rules.permissionScreen) return grant(req, p, "allow");
    return {
      status: 303,
      headers: { location: `${action(req, "Permission")}?request=${p.id}`, "cache-control": "no-store" },
      meta: { code: "screen.logged-in", client: p.clientId, user: user.username },
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
      refuseFraming: req.ctx.rules.refuseFraming,
    });
  };

  const submitPermission = (req: RoutedRequest): MockResponse => {
    const form = formOf(req);
    if (!form) return errorPage(req, "The permission form must be posted as application/x-www-form-urlencoded.");
    const found = find(req, form, true);
    if (!found.ok) return found.response;
    if (!found.p.user) return errorPage(req, "Log in before granting permission.");
    return grant(req, found.p, single(form, "decision") === "allow" ? "allow" : "deny");
  };

  /** The end of an authorization: the code, the token or the refusal, sent back to the client. */
  function grant(req: RoutedRequest, p: PendingAuthorization, decision: "allow" | "deny"): MockResponse {
    const user = registry.user(p.user!)!;
    pending.delete(p.id);
    const inFragment = p.responseType === "token";
    const who = { client: p.clientId, user: user.username, responseType: p.responseType };
    if (decision !== "allow") {
      const res = sendBack(req, 303, p.redirectUri, inFragment, {
        error: "access_denied",
        error_description: "the user refused",
        state: p.state,
      });
      return { ...res, meta: { ...res.meta, ...who } };
    }
    const now = req.ctx.clock.now();
    const issued = { clientId: p.clientId, user: user.username, databases: user.databases, scope: p.scope };
    if (p.responseType === "code") {
      const code = tokens.issueCode({ ...issued, redirectUri: p.redirectUri }, now);
      const res = sendBack(req, 303, p.redirectUri, false, { code, state: p.state });
      return { ...res, meta: { ...who, code: "authorize.granted" } };
    }
    // Implicit flow: the token travels in the fragment, never with a refresh token (RFC 6749 4.2.2).
    const access = tokens.issueAccessToken(issued, now, true);
    const res = sendBack(req, 303, p.redirectUri, true, {
      token_type: "bearer",
      access_token: access.accessToken,
      scope: p.scope,
      expires_in: String(access.expiresIn),
      state: p.state,
    });
    return { ...res, meta: { ...who, code: "authorize.granted" } };
  }

  return {
    routes: [
      { path: "/OAuth/Authorize", methods: { GET: authorize } },
      { path: "/OAuth/Login", methods: { GET: showLogin, POST: submitLogin } },
      { path: "/OAuth/Permission", methods: { GET: showPermission, POST: submitPermission } },
    ],
    reset: () => pending.clear(),
    sweep: (now) => {
      for (const [id, p] of pending) if (p.expiresAt <= now) pending.delete(id);
    },
    get pending() {
      return pending.size;
    },
  };
}

const newKey = () => randomBytes(24).toString("base64url");

/**
 * Sends the user agent back to the client with the result in the query or
 * the fragment; state is left out only when the rule returnState is off.
 */
function sendBack(
  req: RoutedRequest,
  status: 302 | 303,
  redirectUri: string,
  inFragment: boolean,
  params: Record<string, string | undefined>,
): MockResponse {
  const pairs = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v !== undefined && (k !== "state" || req.ctx.rules.returnState)) pairs.set(k, v);
  }
  const location = inFragment
    ? `${redirectUri}#${pairs}`
    : `${redirectUri}${redirectUri.includes("?") ? "&" : "?"}${pairs}`;
  const error = params.error;
  return {
    status,
    headers: { location, "cache-control": "no-store" },
    meta: error ? { code: "authorize.error-redirect", problem: `${error}: ${params.error_description}` } : {},
  };
}
