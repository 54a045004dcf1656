// GET /OAuth/Authorize: its required parameters, its errors, and where it
// sends the browser (Endpoints, query parameters; RFC 6749 4.1.1, 4.1.2.1).
import { header, mediaType, queryOf, redirectParams, text } from "../exchange.ts";
import type { AuthorizationSeen } from "../memory.ts";
import { refusesFraming } from "../oauth.ts";
import { group, type Judged, type Step, violation } from "./step.ts";

/** The parameters the description requires of an authorization request. */
const REQUIRED = ["client_id", "redirect_uri", "scope", "response_type"] as const;

interface Authorization extends Judged {
  auth: AuthorizationSeen;
  scope: string | undefined;
  location: string | undefined;
  /** The redirect goes to the redirect URI the request named, with `error` in its query or fragment. */
  errorRedirect: boolean;
  /** The request was refused: an error page, or a redirect with error=. */
  refused: boolean;
  missing: string[];
  /** `<client_id> <redirect_uri>`: a pair the endpoint accepted is remembered by it. */
  pair: string;
}

/** The redirect an answer makes, if it is one. */
export const redirectOf = (j: Pick<Judged, "ex">) =>
  j.ex.status >= 300 && j.ex.status < 400 ? header(j.ex, "location") : undefined;

/** The redirect is to the authorization's redirect URI (with a query or fragment of its own). */
export const authorizationMatches = (location: string, a: AuthorizationSeen) =>
  a.redirectUri !== undefined &&
  (location === a.redirectUri || location.startsWith(`${a.redirectUri}?`) || location.startsWith(`${a.redirectUri}#`));

const htmlEscape = (s: string) => s.replaceAll("&", "&amp;").replaceAll('"', "&quot;").replaceAll("<", "&lt;");

/** OAUTH-SCREENS-NO-FRAMING: a screen of the authorization server refuses to be framed. */
export function screenFraming(j: Pick<Judged, "ex">) {
  const xfo = header(j.ex, "x-frame-options");
  const csp = header(j.ex, "content-security-policy");
  if (refusesFraming(xfo, csp)) return [];
  return [
    violation(
      "OAUTH-SCREENS-NO-FRAMING",
      "header X-Frame-Options",
      "X-Frame-Options: DENY or Content-Security-Policy: frame-ancestors 'none'",
      xfo ?? csp ?? "neither header",
    ),
  ];
}

const STEPS: ReadonlyArray<Step<Authorization>> = [
  {
    name: "a request without a required parameter is refused",
    reports: ["AUTHZ-PARAMS-REQUIRED"],
    run: ({ ex, missing, refused, location }) =>
      missing.length > 0 && !refused
        ? [
            violation(
              "AUTHZ-PARAMS-REQUIRED",
              `query ${missing.join(", ")}`,
              `a refusal (an error page, or a redirect with error=) when ${missing.join(", ")} ${missing.length > 1 ? "are" : "is"} missing`,
              `${ex.status}${location ? ` to ${location.split(/[?#]/)[0]}` : ""}`,
            ),
          ]
        : [],
  },
  {
    name: "an unsupported response_type of a known client is redirected with an error",
    reports: ["OAUTH-ERROR-REDIRECT"],
    run: ({ ex, auth, missing, memory, pair, errorRedirect, location }) => {
      const unsupported = auth.responseType !== undefined && !["code", "token"].includes(auth.responseType);
      if (!unsupported || missing.length > 0 || !memory.accepted.has(pair) || errorRedirect) return [];
      return [
        violation(
          "OAUTH-ERROR-REDIRECT",
          "status",
          `a redirect to ${auth.redirectUri} with error=unsupported_response_type (this client and redirect URI were accepted before)`,
          location ? `${ex.status} to ${location.split(/[?#]/)[0]}` : String(ex.status),
        ),
      ];
    },
  },
  {
    name: "an error page neither redirects nor links to the unverified redirect_uri",
    reports: ["OAUTH-ERROR-PAGE-NO-REDIRECT"],
    run: ({ ex, auth }) => {
      if (ex.status < 400 || mediaType(header(ex, "content-type")) !== "text/html") return [];
      const body = text(ex.body);
      const target = auth.redirectUri;
      const links =
        target !== undefined &&
        [target, encodeURI(target), htmlEscape(target)].some(
          (t) => body.includes(`href="${t}`) || body.includes(`url=${t}`),
        );
      const refreshes = /http-equiv\s*=\s*["']?refresh/i.test(body);
      if (!refreshes && !links) return [];
      return [
        violation(
          "OAUTH-ERROR-PAGE-NO-REDIRECT",
          "body",
          "an error page that neither redirects to the unverified redirect_uri nor links to it",
          refreshes ? "a <meta http-equiv=refresh>" : `a link to ${target}`,
        ),
      ];
    },
  },
  {
    name: "remember the authorization, and the client and redirect URI accepted",
    reports: [],
    run: ({ ex, auth, scope, refused, missing, location, memory, pair }) => {
      if (!refused && missing.length === 0 && (ex.status === 200 || location !== undefined))
        memory.accepted.set(pair, true);
      if (auth.redirectUri) {
        memory.authorizations.set(`${auth.redirectUri} ${auth.state ?? ""}`, auth);
        if (memory.scope === undefined && !refused && scope) memory.scope = scope;
      }
      return undefined;
    },
  },
  {
    name: "a login page shown at the authorize address refuses framing",
    reports: ["OAUTH-SCREENS-NO-FRAMING"],
    run: (a) =>
      a.ex.status === 200 && mediaType(header(a.ex, "content-type")) === "text/html" ? screenFraming(a) : [],
  },
];

export const AUTHORIZE = group<Authorization>({
  name: "GET /OAuth/Authorize",
  read(j) {
    if (j.place.endpoint !== "authorize" || j.method !== "GET") return undefined;
    const q = queryOf(j.ex.url);
    const get = (k: string) => q.get(k) ?? undefined;
    const auth: AuthorizationSeen = {
      clientId: get("client_id"),
      redirectUri: get("redirect_uri"),
      state: get("state"),
      responseType: get("response_type"),
      at: j.ex.at,
    };
    const location = redirectOf(j);
    const toClient = location !== undefined && auth.redirectUri !== undefined && authorizationMatches(location, auth);
    const params = toClient ? redirectParams(location!) : undefined;
    const errorRedirect = params?.query.has("error") === true || params?.fragment.has("error") === true;
    return {
      auth,
      scope: get("scope"),
      location,
      errorRedirect,
      refused: j.ex.status >= 400 || errorRedirect,
      missing: REQUIRED.filter((k) => !get(k)),
      pair: `${auth.clientId} ${auth.redirectUri}`,
      ...j,
    };
  },
  steps: STEPS,
});
