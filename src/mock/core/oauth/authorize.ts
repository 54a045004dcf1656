// GET /OAuth/Authorize and the login and permission screens (A-SCREEN-PATHS):
// pure handlers over the registry, the token store, the mock's clock and its
// rules. Until client and redirect URI are verified nothing redirects
// (RFC 6749 4.1.2.1, RFC 9700 4.11); later errors go back to the client.

import { createHmac, randomBytes } from "node:crypto";
import { formOf, type MockResponse, type Params, single } from "../http.ts";
import {
  MAX_PENDING_AUTHORIZATIONS,
  MAX_PENDING_AUTHORIZATIONS_PER_BROWSER,
  MAX_PENDING_AUTHORIZATIONS_PER_CLIENT,
  MAX_PENDING_AUTHORIZATIONS_PER_SOURCE,
} from "../limits.ts";
import type { Route, RoutedRequest } from "../router.ts";
import { CappedMap, type CapReached, isLocalSource, sourceOf } from "./caps.ts";
import { scopeHint } from "./hints.ts";
import { errorScreen, limitScreen, loginScreen, permissionScreen, screen } from "./pages.ts";
import { type Application, type Registry, registrableRedirectUri } from "./registry.ts";
import { cookie, sameSecret } from "./secrets.ts";
import { LoginThrottle } from "./throttle.ts";
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
  /** Binds the request to the browser that started it (cookie); a new one once the user logged in. */
  browserKey: string;
  /** Where the request came from (caps.ts sourceOf), for the cap per source. */
  source: string;
  /**
   * The login screen was shown to the browser that started the request: a login under way. Until
   * then a newer request from the same address may displace it, so a page that fires requests at
   * the endpoint (an <img> follows the redirect, but without the cookie) locks no one out.
   */
  shown?: boolean;
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
  // Capped per browser first, then per source (address), so a flood hears its own cap named. A
  // browser at its cap displaces its own oldest request not logged in yet: any page of the same
  // site can make a browser send requests with its cookie, and they must not fill the address's
  // cap with logins that look under way.
  const pending = new CappedMap<PendingAuthorization>({
    what: "authorization requests waiting for login",
    overall: MAX_PENDING_AUTHORIZATIONS,
    per: [
      {
        of: "browser",
        named: "This browser",
        limit: MAX_PENDING_AUTHORIZATIONS_PER_BROWSER,
        owner: (p) => p.browserKey,
        displaces: (p) => p.user === undefined,
      },
      {
        of: "address",
        limit: MAX_PENDING_AUTHORIZATIONS_PER_SOURCE,
        owner: (p) => p.source,
        displaces: (p) => !p.shown && p.user === undefined,
      },
      { of: "client", limit: MAX_PENDING_AUTHORIZATIONS_PER_CLIENT, owner: (p) => p.clientId },
    ],
    droppableAt: (p) => p.expiresAt,
  });
  const throttle = new LoginThrottle();
  // The browser cookie is minted here and carries its own proof (an HMAC under a key of this
  // process), so a value a client chose is never taken up and set back (session fixation).
  const cookieKey = randomBytes(32);
  const macOf = (id: string) => createHmac("sha256", cookieKey).update(id).digest("base64url");
  const mintBrowserKey = () => {
    const id = newKey();
    return `${id}.${macOf(id)}`;
  };
  const mintedBrowserKey = (req: RoutedRequest) => {
    const [id, mac, ...rest] = (cookie(req, BROWSER_COOKIE) ?? "").split(".");
    return id && mac && rest.length === 0 && sameSecret(mac, macOf(id)) ? `${id}.${mac}` : undefined;
  };
  const browserCookie = (key: string) => ({
    "set-cookie": `${BROWSER_COOKIE}=${key}; Path=/; HttpOnly; SameSite=Lax`,
  });
  const limited = (req: RoutedRequest, full: CapReached, who: MockResponse["meta"] = {}): MockResponse => {
    const res = limitScreen(full.message, full.retryAfter, req.ctx.rules.refuseFraming);
    return { ...res, meta: { ...who, code: "authorize.limit", problem: full.message } };
  };
  const applicationOf = (req: RoutedRequest, clientId: string) =>
    req.ctx.rules.requireActiveClient ? registry.activeApplication(clientId) : registry.application(clientId);
  const errorPage = (req: RoutedRequest, message: string, redirectUri?: string): MockResponse => {
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
        ? `The application ${clientId} is not active yet (status ${known.status}): activate it with npx bawa activate ${clientId}.`
        : `No application is registered with client_id ${clientId}: register one in the mock's portal (/portal) or in its seed (mock-data/), and use its client_id.`;
      return errorPage(req, why, unverified);
    }
    if (typeof asked !== "string") return errorPage(req, "redirect_uri is missing or repeated.");
    let redirectUri = app.redirectUri;
    if (asked !== app.redirectUri) {
      // Without exact matching any well-formed URI is used, as a lax server would (a fault, never the default).
      const loose = registrableRedirectUri(asked);
      if (rules.exactRedirectUri || !loose.ok) {
        return errorPage(
          req,
          `redirect_uri does not match the redirect URI registered for this application (${app.redirectUri}): send that one, or register this one in the portal.`,
          asked,
        );
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
    if (scope !== config.scope) return fail("invalid_scope", scopeHint(config.scope));

    // Capped (A-LIMITS): a full cap refuses the newcomer and drops no one else's request (a full
    // address displaces its own oldest request whose screen no browser has seen).
    const now = req.ctx.clock.now();
    const source = sourceOf(req);
    const browserKey = mintedBrowserKey(req) ?? mintBrowserKey();
    const full = pending.room([browserKey, source, clientId], now);
    if (full) return limited(req, full, { client: clientId, responseType });
    const request: PendingAuthorization = {
      id: newKey(),
      clientId,
      redirectUri,
      responseType,
      scope,
      state,
      csrf: newKey(),
      browserKey,
      source,
      expiresAt: now + PENDING_SECONDS * 1000,
    };
    pending.set(request.id, request);
    return {
      status: 302,
      headers: {
        location: `/${req.versionSegment}/OAuth/Login?request=${request.id}`,
        ...browserCookie(browserKey),
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
    if (cookie(req, BROWSER_COOKIE) === p.browserKey) p.shown = true;
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
    const name = typeof username === "string" ? username : "";
    const now = req.ctx.clock.now();
    // The browser is the request's: the cookie matched it (or CSRF checks are off, a fault).
    const attempt = { user: name, browser: p.browserKey, source: sourceOf(req), sharedSource: isLocalSource(req) };
    const again = (error: string, extra: { status?: number; headers?: Record<string, string> } = {}) =>
      loginScreen({
        action: action(req, "Login"),
        request: p.id,
        csrf: p.csrf,
        appName: app.name,
        error,
        refuseFraming: req.ctx.rules.refuseFraming,
        ...(typeof username === "string" ? { username } : {}),
        ...extra,
      });
    const lockedOut = (retryAfter: number, why: string): MockResponse => {
      const message = `Too many wrong passwords for ${why}; try again in ${retryAfter} s.`;
      const res = again(message, { status: 429, headers: { "retry-after": String(retryAfter) } });
      return { ...res, meta: { code: "screen.login-locked", problem: message, client: p.clientId } };
    };
    // While locked (A-LIMITS) no password is checked, the right one neither.
    const locked = throttle.locked(attempt, now);
    if (locked) return lockedOut(locked.retryAfter, locked.why);
    const user = registry.user(name);
    if (!user || !sameSecret(single(form, "password"), user.password)) {
      const after = throttle.failed(attempt, now);
      if ("why" in after) return lockedOut(after.retryAfter, after.why);
      const res = again("The user name or password is not right.");
      return after.delayMs > 0 ? { ...res, meta: { ...res.meta, delayMs: after.delayMs } } : res;
    }
    throttle.succeeded(name);
    // A new browser key once the user logged in: whoever shared the old one (a cookie planted
    // before the login) can not go on with this request. Kept again under it, as the browser's.
    pending.delete(p.id);
    p.user = user.username;
    p.browserKey = mintBrowserKey();
    pending.set(p.id, p);
    // Without the permission screen, logging in grants at once (a fault, never the default).
    const res: MockResponse = req.ctx.rules.permissionScreen
      ? {
          status: 303,
          headers: { location: `${action(req, "Permission")}?request=${p.id}`, "cache-control": "no-store" },
          meta: { code: "screen.logged-in", client: p.clientId, user: user.username },
        }
      : grant(req, p, "allow");
    return { ...res, headers: { ...res.headers, ...browserCookie(p.browserKey) } };
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
    const inFragment = p.responseType === "token";
    const who = { client: p.clientId, user: user.username, responseType: p.responseType };
    const now = req.ctx.clock.now();
    // A full cap keeps the request, so the user can press Allow again once there is room.
    const full = decision === "allow" && tokens.room(p.clientId, [p.responseType === "code" ? "code" : "access"], now);
    if (full) return limited(req, full, who);
    pending.delete(p.id);
    if (decision !== "allow") {
      const res = sendBack(req, 303, p.redirectUri, inFragment, {
        error: "access_denied",
        error_description: "the user refused",
        state: p.state,
      });
      return { ...res, meta: { ...res.meta, ...who } };
    }
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
    reset: () => {
      pending.clear();
      throttle.clear();
    },
    sweep: (now) => {
      pending.sweep(now);
      throttle.sweep(now);
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
