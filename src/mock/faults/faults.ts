// biome-ignore-all lint/suspicious/noAssignInExpressions: one-line answer rewrites; replaced by the rules registry
// Fault switches: each breaks one rule of the service description or of
// OAuth, so the conformance suite can prove it notices (issue: "prove the suite
// can fail"). They wrap the finished mock's handle(); only three need a build
// option. None is on unless named on the command line (`bawa mock --faults`).
import type { MockRequest, MockResponse } from "../core/http.ts";
import type { BawaMock } from "../index.ts";

export type Handle = (req: MockRequest) => MockResponse;

/** Options of the mock's parts that some faults change. */
export interface FaultBuild {
  codeSeconds?: number;
  secretBytes?: number;
  checkCsrf?: boolean;
}

export interface Fault {
  name: string;
  /** Requirement ids (conformance/requirements.yaml) the suite must report as failed. */
  breaks: string[];
  what: string;
  build?: FaultBuild;
  wrap?: (next: Handle, mock: BawaMock) => Handle;
}

// ── helpers ───────────────────────────────────────────────────────────────
const pathOf = (req: MockRequest) => req.url.split("?")[0]!;
/** Path after the version segment, lower case, without a trailing slash. */
const apiPath = (req: MockRequest) =>
  pathOf(req)
    .replace(/^\/[vV]\d+/, "")
    .replace(/\/$/, "")
    .toLowerCase();
const isToken = (req: MockRequest) => req.method === "POST" && apiPath(req) === "/oauth/token";
const isCustomerItem = (req: MockRequest) => /^\/api\/[^/]+\/customer\/[^/]+$/.test(apiPath(req));
const formOf = (req: MockRequest) => new URLSearchParams(req.body?.toString("utf8") ?? "");
const withForm = (req: MockRequest, form: URLSearchParams): MockRequest => ({
  ...req,
  body: Buffer.from(form.toString()),
});
// biome-ignore lint/suspicious/noExplicitAny: faults rewrite answers of every shape
const jsonOf = (res: MockResponse): any => {
  try {
    return JSON.parse(res.body ?? "");
  } catch {
    return undefined;
  }
};
const isJson = (res: MockResponse) => (res.headers["content-type"] ?? "").startsWith("application/json");
const withJson = (res: MockResponse, value: unknown): MockResponse => ({ ...res, body: JSON.stringify(value) });
const mapLocation = (res: MockResponse, fn: (u: URL) => string): MockResponse => {
  const loc = res.headers.location;
  if (!loc || !/^https?:/.test(loc)) return res;
  return { ...res, headers: { ...res.headers, location: fn(new URL(loc)) } };
};
const fragment = (u: URL) => new URLSearchParams(u.hash.slice(1));
const withoutHeaders = (res: MockResponse, ...names: string[]): MockResponse => ({
  ...res,
  headers: Object.fromEntries(Object.entries(res.headers).filter(([k]) => !names.includes(k))),
});
const headerless = (req: MockRequest, name: string): MockRequest => ({
  ...req,
  headers: { ...req.headers, [name]: undefined },
});
/** Rewrites JSON answers about customers. */
const mapCustomers =
  (fn: (c: Record<string, unknown>) => void) =>
  (next: Handle): Handle =>
  (req) => {
    const res = next(req);
    if (!isJson(res) || !/^\/api\/[^/]+\/customer/.test(apiPath(req))) return res;
    const body = jsonOf(res);
    if (!body || typeof body !== "object" || Array.isArray(body) || !("Name" in body)) return res;
    fn(body);
    return withJson(res, body);
  };
const mapTokenJson =
  (fn: (t: Record<string, unknown>, req: MockRequest) => void) =>
  (next: Handle): Handle =>
  (req) => {
    const res = next(req);
    if (!isToken(req) || res.status !== 200) return res;
    const body = jsonOf(res);
    fn(body, req);
    return withJson(res, body);
  };
const INVALID_GRANT: MockResponse = {
  status: 400,
  headers: { "content-type": "application/json", "cache-control": "no-store" },
  body: '{"error":"invalid_grant"}',
};
/** Token requests whose key (a code, a refresh token) was already exchanged get `repeat(first answer)` instead of the mock's own answer. */
const onRepeat =
  (keyOf: (req: MockRequest) => string | null, repeat: (first: MockResponse) => MockResponse) =>
  (next: Handle): Handle => {
    const answered = new Map<string, MockResponse>();
    return (req) => {
      const key = isToken(req) ? keyOf(req) : null;
      const first = key ? answered.get(key) : undefined;
      if (first) return repeat(first);
      const res = next(req);
      if (key && res.status === 200) answered.set(key, res);
      return res;
    };
  };
/** Token requests reach the mock with the form as `edit` changed it (when it returns true). */
const editTokenForm =
  (edit: (form: URLSearchParams, m: BawaMock) => boolean) =>
  (next: Handle, m: BawaMock): Handle =>
  (req) => {
    if (!isToken(req)) return next(req);
    const form = formOf(req);
    return edit(form, m) ? next(withForm(req, form)) : next(req);
  };
const demoToken = (m: BawaMock) =>
  m.tokens.issueAccessToken(
    { clientId: "demo-client", user: "demo", databases: ["DEMO"], scope: m.ctx.config.scope },
    m.clock.now(),
  ).accessToken;

export const FAULTS: readonly Fault[] = [
  // ── token responses ──
  {
    name: "expires-in-3600",
    breaks: ["TOKEN-RESPONSE"],
    what: "token responses say expires_in 3600",
    wrap: mapTokenJson((t) => void (t.expires_in = 3600)),
  },
  {
    name: "scope-other",
    breaks: ["SCOPE-SINGLE"],
    what: "token responses name another scope",
    wrap: mapTokenJson((t) => void (t.scope = "http://Other.Product.API/Web/WebApi/*")),
  },
  {
    name: "no-refresh-token",
    breaks: ["TOK-CODE-EXCHANGE"],
    what: "the code exchange returns no refresh token",
    wrap: mapTokenJson(
      (t, req) => void (formOf(req).get("grant_type") === "authorization_code" && delete t.refresh_token),
    ),
  },
  {
    name: "refresh-broken",
    breaks: ["TOK-REFRESH"],
    what: "the refresh grant returns an access token that does not work",
    wrap: mapTokenJson(
      (t, req) => void (formOf(req).get("grant_type") === "refresh_token" && (t.access_token = "broken")),
    ),
  },
  {
    name: "token-as-form",
    breaks: ["TOKEN-FORM-BODY"],
    what: "token responses are form-encoded, not JSON",
    wrap: (next) => (req) => {
      const res = next(req);
      if (!isToken(req) || res.status !== 200) return res;
      return {
        ...res,
        headers: { ...res.headers, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(jsonOf(res)).toString(),
      };
    },
  },
  {
    name: "token-cacheable",
    breaks: ["OAUTH-NO-STORE"],
    what: "token responses lack Cache-Control: no-store",
    wrap: (next) => (req) => (isToken(req) ? withoutHeaders(next(req), "cache-control", "pragma") : next(req)),
  },
  {
    name: "token-errors-nonstandard",
    breaks: ["OAUTH-TOKEN-ERRORS"],
    what: "token errors use codes RFC 6749 5.2 does not have",
    wrap: (next) => (req) => {
      const res = next(req);
      const body = isToken(req) && res.status >= 400 ? jsonOf(res) : undefined;
      return body ? withJson(res, { ...body, error: "bad_request" }) : res;
    },
  },
  {
    name: "tokens-never-expire",
    breaks: ["TOK-EXPIRY"],
    what: "moving the clock has no effect, so tokens never expire",
    wrap: (next) => (req) =>
      req.method === "POST" && pathOf(req) === "/__mock/clock" ? next({ ...req, method: "GET" }) : next(req),
  },
  {
    name: "codes-never-expire",
    breaks: ["OAUTH-CODE-LIFETIME"],
    what: "authorization codes live a day",
    build: { codeSeconds: 86_400 },
  },
  {
    name: "short-tokens",
    breaks: ["OAUTH-TOKEN-ENTROPY"],
    what: "codes and tokens carry 64 random bits",
    build: { secretBytes: 8 },
  },

  // ── the token endpoint's checks ──
  {
    name: "code-reusable",
    breaks: ["OAUTH-CODE-SINGLE-USE"],
    what: "a code can be exchanged again (the first answer is replayed)",
    wrap: onRepeat(
      (req) => formOf(req).get("code"),
      (first) => first,
    ),
  },
  {
    name: "code-reuse-keeps-tokens",
    breaks: ["OAUTH-CODE-REUSE-REVOKES"],
    what: "a reused code is refused but what it issued stays valid",
    wrap: onRepeat(
      (req) => formOf(req).get("code"),
      () => INVALID_GRANT,
    ),
  },
  {
    name: "code-any-client",
    breaks: ["OAUTH-CODE-BOUND"],
    what: "a code is accepted from any registered client presenting its own credentials and redirect URI",
    wrap: editTokenForm((form, m) => {
      const owner = m.tokens.peekCode(form.get("code") ?? "");
      const app = owner && m.registry.application(owner.clientId);
      const presenter = m.registry.activeApplication(form.get("client_id") ?? "");
      if (!app || !presenter || presenter.clientId === app.clientId) return false;
      if (form.get("client_secret") !== presenter.clientSecret || form.get("redirect_uri") !== presenter.redirectUri)
        return false;
      form.set("client_id", app.clientId);
      form.set("client_secret", app.clientSecret);
      form.set("redirect_uri", owner.redirectUri);
      return true;
    }),
  },
  {
    name: "token-ignores-redirect-uri",
    breaks: ["OAUTH-CODE-BOUND"],
    what: "the code exchange does not compare redirect_uri",
    wrap: editTokenForm((form, m) => {
      const owner = m.tokens.peekCode(form.get("code") ?? "");
      if (owner) form.set("redirect_uri", owner.redirectUri);
      return owner !== undefined;
    }),
  },
  {
    name: "token-ignores-secret",
    breaks: ["AUTH-SECRET"],
    what: "the token endpoint does not check client_secret",
    wrap: editTokenForm((form, m) => {
      const app = m.registry.activeApplication(form.get("client_id") ?? "");
      if (app) form.set("client_secret", app.clientSecret);
      return app !== undefined;
    }),
  },
  {
    name: "refresh-any-client",
    breaks: ["OAUTH-REFRESH-BOUND"],
    what: "a refresh token is accepted from any client",
    wrap: editTokenForm((form, m) => {
      const owner = m.tokens.peekRefresh(form.get("refresh_token") ?? "");
      const app = owner && m.registry.application(owner.clientId);
      if (!app || form.get("client_id") === app.clientId) return false;
      form.set("client_id", app.clientId);
      form.set("client_secret", app.clientSecret);
      form.set("redirect_uri", app.redirectUri);
      return true;
    }),
  },
  {
    name: "refresh-single-use",
    breaks: ["AUTH-BACKGROUND"],
    what: "a refresh token works once (a background application's stored token dies)",
    wrap: onRepeat(
      (req) => formOf(req).get("refresh_token"),
      () => INVALID_GRANT,
    ),
  },
  ...(["code", "refresh"] as const).map(
    (grant): Fault => ({
      name: `${grant}-grant-without-redirect-uri`,
      breaks: [grant === "code" ? "TOKEN-CODE-PARAMS" : "TOK-REFRESH-PARAMS"],
      what: `the ${grant} grant works without redirect_uri`,
      wrap: editTokenForm((form, m) => {
        const app = m.registry.activeApplication(form.get("client_id") ?? "");
        if (
          !app ||
          form.get("grant_type") !== (grant === "code" ? "authorization_code" : "refresh_token") ||
          form.has("redirect_uri")
        )
          return false;
        form.set("redirect_uri", app.redirectUri);
        return true;
      }),
    }),
  ),

  // ── the authorization endpoint and the screens ──
  {
    name: "redirect-unregistered",
    breaks: ["OAUTH-NO-REDIRECT-ON-BAD-CLIENT", "AUTH-CLIENT-REDIRECT-MATCH"],
    what: "any redirect_uri of a known client is used, the registered one is not enforced",
    wrap: (next, m) => {
      const wanted = new Map<string, string>();
      return (req) => {
        const path = apiPath(req);
        if (req.method === "GET" && path === "/oauth/authorize") {
          const url = new URL(req.url, "http://mock");
          const app = m.registry.activeApplication(url.searchParams.get("client_id") ?? "");
          const asked = url.searchParams.get("redirect_uri");
          if (!app || !asked || asked === app.redirectUri) return next(req);
          url.searchParams.set("redirect_uri", app.redirectUri);
          const res = next({ ...req, url: `${url.pathname}${url.search}` });
          const id = /request=([^&]+)/.exec(res.headers.location ?? "")?.[1];
          if (id) wanted.set(id, asked);
          return mapLocation(res, (u) => u.href.replace(app.redirectUri, asked));
        }
        if (req.method === "POST" && path === "/oauth/permission") {
          const asked = wanted.get(formOf(req).get("request") ?? "");
          const res = next(req);
          const app = asked
            ? m.registry.applications().find((a) => res.headers.location?.startsWith(a.redirectUri))
            : undefined;
          return asked && app ? mapLocation(res, (u) => u.href.replace(app.redirectUri, asked)) : res;
        }
        return next(req);
      };
    },
  },
  {
    name: "pending-client-allowed",
    breaks: ["AUTH-REGISTRATION"],
    what: "applications that are not active yet are accepted",
    wrap: (next, m) => (req) => {
      if (apiPath(req) === "/oauth/authorize")
        m.registry.activate(new URL(req.url, "http://mock").searchParams.get("client_id") ?? "");
      return next(req);
    },
  },
  {
    name: "scope-not-required",
    breaks: ["AUTHZ-PARAMS-REQUIRED"],
    what: "authorization requests without scope or response_type are completed",
    wrap: (next, m) => (req) => {
      if (apiPath(req) !== "/oauth/authorize") return next(req);
      const url = new URL(req.url, "http://mock");
      if (!url.searchParams.has("scope")) url.searchParams.set("scope", m.ctx.config.scope);
      if (!url.searchParams.has("response_type")) url.searchParams.set("response_type", "code");
      return next({ ...req, url: `${url.pathname}${url.search}` });
    },
  },
  {
    name: "state-dropped",
    breaks: ["AUTHZ-STATE"],
    what: "state is not returned",
    wrap: (next) => (req) =>
      mapLocation(next(req), (u) => {
        u.searchParams.delete("state");
        const f = fragment(u);
        f.delete("state");
        if (u.hash) u.hash = f.toString();
        return u.href;
      }),
  },
  {
    name: "code-in-fragment",
    breaks: ["AUTHZ-CODE-REDIRECT"],
    what: "the code arrives in the fragment",
    wrap: (next) => (req) =>
      mapLocation(next(req), (u) => {
        const code = u.searchParams.get("code");
        if (!code) return u.href;
        u.searchParams.delete("code");
        u.hash = `code=${code}`;
        return u.href;
      }),
  },
  {
    name: "fragment-without-token-type",
    breaks: ["AUTHZ-TOKEN-REDIRECT"],
    what: "the token flow's fragment has no token_type",
    wrap: (next) => (req) =>
      mapLocation(next(req), (u) => {
        const f = fragment(u);
        if (!f.has("access_token")) return u.href;
        f.delete("token_type");
        u.hash = f.toString();
        return u.href;
      }),
  },
  {
    name: "implicit-in-query",
    breaks: ["OAUTH-IMPLICIT-FRAGMENT"],
    what: "the token flow's token arrives in the query",
    wrap: (next) => (req) =>
      mapLocation(next(req), (u) => {
        const f = fragment(u);
        if (!f.has("access_token")) return u.href;
        u.hash = "";
        u.search = f.toString();
        return u.href;
      }),
  },
  {
    name: "implicit-with-refresh",
    breaks: ["TOK-IMPLICIT-NO-REFRESH"],
    what: "the token flow also returns a refresh token",
    wrap: (next) => (req) =>
      mapLocation(next(req), (u) => {
        const f = fragment(u);
        if (!f.has("access_token")) return u.href;
        f.set("refresh_token", "leaked");
        u.hash = f.toString();
        return u.href;
      }),
  },
  {
    name: "implicit-token-rejected",
    breaks: ["AUTH-IMPLICIT-NO-SECRET"],
    what: "tokens of the token flow do not work on the API",
    wrap: (next) => {
      const implicit = new Set<string>();
      return (req) => {
        const token = /^bearer (.+)$/i.exec(req.headers.authorization ?? "")?.[1];
        if (token && implicit.has(token)) return next(headerless(req, "authorization"));
        const res = next(req);
        const loc = res.headers.location;
        if (loc?.includes("#")) {
          const t = fragment(new URL(loc)).get("access_token");
          if (t) implicit.add(t);
        }
        return res;
      };
    },
  },
  {
    name: "error-page-instead-of-redirect",
    breaks: ["OAUTH-ERROR-REDIRECT"],
    what: "an unsupported response_type shows a page instead of redirecting back",
    wrap: (next) => (req) => {
      const res = next(req);
      return (res.headers.location ?? "").includes("error=unsupported_response_type")
        ? { status: 400, headers: { "content-type": "text/html" }, body: "<p>unsupported response_type</p>" }
        : res;
    },
  },
  {
    name: "error-page-redirects",
    breaks: ["OAUTH-ERROR-PAGE-NO-REDIRECT"],
    what: "the error page sends the browser on to the unverified redirect_uri",
    wrap: (next) => (req) => {
      const res = next(req);
      if (apiPath(req) !== "/oauth/authorize" || res.status !== 400) return res;
      const to = new URL(req.url, "http://mock").searchParams.get("redirect_uri") ?? "";
      return {
        ...res,
        body: (res.body ?? "").replace("<head>", `<head><meta http-equiv="refresh" content="3;url=${to}">`),
      };
    },
  },
  {
    name: "permission-skipped",
    breaks: ["AUTHZ-SCREENS"],
    what: "no permission screen: logging in grants at once",
    wrap: (next) => (req) => {
      const res = next(req);
      if (req.method !== "POST" || apiPath(req) !== "/oauth/login" || res.status !== 303) return res;
      const cookie = req.headers.cookie;
      const screen = next({ method: "GET", url: res.headers.location!, headers: { cookie } });
      const field = (n: string) => new RegExp(`name="${n}" value="([^"]+)"`).exec(screen.body ?? "")?.[1] ?? "";
      return next({
        method: "POST",
        url: res.headers.location!.split("?")[0]!,
        headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
        body: Buffer.from(
          new URLSearchParams({ request: field("request"), csrf: field("csrf"), decision: "allow" }).toString(),
        ),
      });
    },
  },
  {
    name: "screens-framable",
    breaks: ["OAUTH-SCREENS-NO-FRAMING"],
    what: "the screens can be framed",
    wrap: (next) => (req) => withoutHeaders(next(req), "x-frame-options", "content-security-policy"),
  },
  {
    name: "csrf-off",
    breaks: ["OAUTH-CSRF"],
    what: "the screens' forms accept posts without the browser's cookie and token",
    build: { checkCsrf: false },
  },

  // ── the resource server ──
  {
    name: "no-token-200",
    breaks: ["ERR-4-TOKEN"],
    what: "data calls without a token are answered",
    wrap: (next, m) => (req) =>
      apiPath(req).startsWith("/api/") && !req.headers.authorization
        ? next({ ...req, headers: { ...req.headers, authorization: `Bearer ${demoToken(m)}` } })
        : next(req),
  },
  {
    name: "valid-tokens-refused",
    breaks: ["DATA-BEARER"],
    what: "data calls with a valid bearer token are refused",
    wrap: (next) => (req) => next(apiPath(req).startsWith("/api/") ? headerless(req, "authorization") : req),
  },
  {
    name: "no-challenge",
    breaks: ["OAUTH-BEARER-CHALLENGE"],
    what: "401 answers carry no WWW-Authenticate",
    wrap: (next) => (req) => withoutHeaders(next(req), "www-authenticate"),
  },
  {
    name: "bearer-case-sensitive",
    breaks: ["OAUTH-BEARER-CASE"],
    what: "only the exact scheme name Bearer is accepted",
    wrap: (next) => (req) =>
      req.headers.authorization && !req.headers.authorization.startsWith("Bearer ")
        ? next(headerless(req, "authorization"))
        : next(req),
  },
  {
    name: "no-database-200",
    breaks: ["ERR-4-DATABASE"],
    what: "a call without a database uses DEMO",
    wrap: (next) => (req) => next({ ...req, url: req.url.replace(/\/api\/\//i, "/api/DEMO/") }),
  },
  {
    name: "ok-is-203",
    breaks: ["ERR-200"],
    what: "successful data calls answer 203",
    wrap: (next) => (req) => {
      const res = next(req);
      return res.status === 200 && apiPath(req).startsWith("/api/") ? { ...res, status: 203 } : res;
    },
  },
  {
    name: "unknown-path-200",
    breaks: ["ERR-1-PATH"],
    what: "calls that do not exist answer 200",
    wrap: (next) => (req) => {
      const res = next(req);
      return res.status === 404 && /No call matches/.test(res.body ?? "") ? { ...res, status: 200, body: "{}" } : res;
    },
  },
  {
    name: "unknown-id-200",
    breaks: ["ERR-2-ID"],
    what: "an unknown customer id answers 200",
    wrap: (next) => (req) => {
      const res = next(req);
      return res.status === 404 && isCustomerItem(req)
        ? { ...res, status: 200, body: req.method === "GET" ? res.body : "" }
        : res;
    },
  },
  {
    name: "missing-body-200",
    breaks: ["ERR-3-REQUIRED"],
    what: "POST and PUT without a body answer 200",
    wrap: (next) => (req) => {
      const res = next(req);
      return res.status === 400 && /request body is missing/.test(res.body ?? "")
        ? { ...res, status: 200, body: "{}" }
        : res;
    },
  },
  {
    name: "unversioned-paths",
    breaks: ["VER-PATH"],
    what: "paths without the version segment are served too",
    wrap: (next) => (req) => next(/^\/api\//i.test(req.url) ? { ...req, url: `/v1${req.url}` } : req),
  },
  {
    name: "lowercase-v-only",
    breaks: ["VER-CASE"],
    what: "only /v<version> is served, not /V<version>",
    wrap: (next) => (req) => (/^\/V\d/.test(req.url) ? next({ ...req, url: "/no-such-path" }) : next(req)),
  },

  // ── customers ──
  {
    name: "field-wrong-type",
    breaks: ["CUST-FIELDS"],
    what: "CreditLimit is written as a string",
    wrap: mapCustomers((c) => void (c.CreditLimit = String(c.CreditLimit))),
  },
  {
    name: "field-missing",
    breaks: ["CUST-FIELDS"],
    what: "Fax is left out of customers",
    wrap: mapCustomers((c) => void delete c.Fax),
  },
  {
    name: "customer-id-empty",
    breaks: ["CUST-CREATE-ID"],
    what: "the service gives a created customer no identifier",
    wrap: mapCustomers((c) => void (c.CustomerId = "")),
  },
  {
    name: "camel-case",
    breaks: ["CUST-NAMES"],
    what: "customer fields are written in camelCase",
    wrap: mapCustomers((c) => {
      for (const k of Object.keys(c)) {
        c[k[0]!.toLowerCase() + k.slice(1)] = c[k];
        delete c[k];
      }
    }),
  },
  {
    name: "dates-iso",
    breaks: ["CUST-DATES"],
    what: "dates are written as yyyy-MM-dd",
    wrap: mapCustomers((c) => {
      for (const k of ["CocDate", "VatVerificationDate"]) {
        const m = /^(\d\d)\/(\d\d)\/(\d{4})$/.exec(String(c[k]));
        if (m) c[k] = `${m[3]}-${m[1]}-${m[2]}`;
      }
    }),
  },
  {
    name: "decimals-rounded",
    breaks: ["CUST-DECIMALS"],
    what: "amounts are rounded to whole numbers",
    wrap: mapCustomers((c) => {
      c.CreditLimit = Math.round(Number(c.CreditLimit));
      c.DiscountPercentage = Math.round(Number(c.DiscountPercentage));
    }),
  },
  {
    name: "defaults-missing",
    breaks: ["CUST-DEFAULTS"],
    what: "properties missing from the body stay missing from the customer",
    wrap: (next) => {
      const sent = new Map<string, string[]>();
      return (req) => {
        const res = next(req);
        const body = jsonOf(res);
        if (req.method === "POST" && res.status === 200 && body?.CustomerId) {
          try {
            sent.set(body.CustomerId, Object.keys(JSON.parse(req.body?.toString("utf8") ?? "{}")));
          } catch {
            /* not JSON */
          }
        }
        const keys = body?.CustomerId ? sent.get(body.CustomerId) : undefined;
        if (!keys || !isJson(res)) return res;
        return withJson(res, Object.fromEntries(Object.entries(body).filter(([k]) => keys.includes(k))));
      };
    },
  },
  {
    name: "full-body-refused",
    breaks: ["CUST-BODY-ALL"],
    what: "a POST body with all 55 properties is refused",
    wrap: (next) => (req) => {
      if (req.method !== "POST" || !/\/customer$/.test(apiPath(req))) return next(req);
      let keys = 0;
      try {
        keys = Object.keys(JSON.parse(req.body?.toString("utf8") ?? "{}")).length;
      } catch {
        /* not JSON */
      }
      return keys >= 55
        ? { status: 400, headers: { "content-type": "application/json" }, body: '{"Message":"too many properties"}' }
        : next(req);
    },
  },
  {
    name: "created-not-addressable",
    breaks: ["SVC-RESOURCE-ADDRESS"],
    what: "a created customer can not be read at its address",
    wrap: (next) => {
      const created = new Set<string>();
      return (req) => {
        const id = decodeURIComponent(pathOf(req).split("/").pop() ?? "");
        if (req.method === "GET" && isCustomerItem(req) && created.has(id))
          return next({ ...req, url: req.url.replace(/\/[^/?]+(\?|$)/, "/no-such-id$1") });
        const res = next(req);
        if (req.method === "POST" && res.status === 200) created.add(jsonOf(res)?.CustomerId);
        return res;
      };
    },
  },
  {
    name: "put-ignored",
    breaks: ["CUST-UPDATE-ID"],
    what: "PUT answers 200 and changes nothing",
    wrap: (next) => (req) =>
      req.method === "PUT" && isCustomerItem(req) ? next({ ...req, method: "GET" }) : next(req),
  },
  {
    name: "delete-keeps",
    breaks: ["SVC-METHODS"],
    what: "DELETE answers 200 and removes nothing",
    wrap: (next) => (req) => {
      if (req.method !== "DELETE" || !isCustomerItem(req)) return next(req);
      const res = next({ ...req, method: "GET" });
      return res.status === 200 ? { status: 200, headers: {} } : res;
    },
  },
  {
    name: "list-wrapped",
    breaks: ["INFO-LIST"],
    what: "the info list is an object, not a list",
    wrap: (next) => (req) => {
      const res = next(req);
      return /customerinfolist$/.test(apiPath(req)) && isJson(res) && res.status === 200
        ? withJson(res, { Items: jsonOf(res) })
        : res;
    },
  },
  {
    name: "list-writable",
    breaks: ["SVC-READ-ONLY-LIST"],
    what: "POST, PUT and DELETE on the info list answer 200",
    wrap: (next) => (req) =>
      req.method !== "GET" && /customerinfolist$/.test(apiPath(req))
        ? { status: 200, headers: { "content-type": "application/json" }, body: "[]" }
        : next(req),
  },
  {
    name: "bad-bodies-500",
    breaks: ["A-INVALID-BODIES"],
    what: "a body of the wrong type or syntax crashes the call (500)",
    wrap: (next) => (req) => {
      const res = next(req);
      return res.status === 400 && /request is invalid|not valid (JSON|XML)/.test(res.body ?? "")
        ? { ...res, status: 500 }
        : res;
    },
  },
  {
    name: "xml-as-json",
    breaks: ["SVC-FORMATS"],
    what: "XML is asked for, JSON comes back",
    wrap: (next) => (req) => next(headerless(req, "accept")),
  },
];

export const FAULT_NAMES = FAULTS.map((f) => f.name);

/** The faults of a comma-separated list; throws naming an unknown one. */
export function faultsNamed(list: string): Fault[] {
  return list
    .split(",")
    .map((n) => n.trim())
    .filter(Boolean)
    .map((n) => {
      const f = FAULTS.find((x) => x.name === n);
      if (!f) throw new Error(`unknown fault ${n}; the faults are: ${FAULT_NAMES.join(", ")}`);
      return f;
    });
}

/** The mock's handle() with the faults applied, and a header that says so on every answer. */
export function applyFaults(mock: BawaMock, faults: readonly Fault[]): Handle {
  let handle: Handle = mock.handle;
  for (const f of faults) if (f.wrap) handle = f.wrap(handle, mock);
  const names = faults.map((f) => f.name).join(",");
  return (req) => {
    const res = handle(req);
    return { ...res, headers: { ...res.headers, "x-bawa-faults": names } };
  };
}
