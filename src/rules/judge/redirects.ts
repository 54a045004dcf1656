// Every answer of the authorization server's pages: the screens it shows
// (framing), where they send the browser next, and the redirect that brings the
// client its code or token (Endpoints, redirect results; RFC 6749 4.1.2, 4.2.2).
import { fingerprint, header, mediaType, redirectParams } from "../exchange.ts";
import type { AuthorizationSeen, Memory } from "../memory.ts";
import { tooWeak } from "../oauth.ts";
import { authorizationMatches, redirectOf, screenFraming } from "./authorize.ts";
import { group, type Judged, quote, type Step, violation } from "./step.ts";

interface Page extends Judged {
  /** The path after the version segment, lower case: how the judge knows the screens. */
  path: string;
  location: string | undefined;
}

interface Result extends Judged {
  location: string;
  auth: AuthorizationSeen;
  query: URLSearchParams;
  fragment: URLSearchParams;
  tokenFlow: boolean;
  error: string | null;
  /** The parameters that carry the implicit flow's token (the fragment, or the query where it went wrongly). */
  params: URLSearchParams;
  now: number;
}

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

/** OAUTH-TOKEN-ENTROPY: a code or token that can carry 128 random bits, and never one seen before. */
export function entropy(value: string, where: string, seenBefore: boolean) {
  const weak = tooWeak(value);
  if (weak) return [violation("OAUTH-TOKEN-ENTROPY", where, "a value that can carry 128 random bits", weak)];
  return seenBefore
    ? [violation("OAUTH-TOKEN-ENTROPY", where, "a value never issued before", "one issued before")]
    : [];
}

/** SCOPE-SINGLE: every grant names the one scope (the first one seen). */
export function sameScope(scope: string, where: string, memory: Memory) {
  memory.scope ??= scope;
  return scope === memory.scope
    ? []
    : [violation("SCOPE-SINGLE", where, `the single scope, ${quote(memory.scope)}`, quote(scope))];
}

const PAGE_STEPS: ReadonlyArray<Step<Page>> = [
  {
    name: "a screen the authorization endpoint led to refuses framing",
    reports: ["OAUTH-SCREENS-NO-FRAMING"],
    run: (p) =>
      p.memory.screens.has(p.path) && p.ex.status === 200 && mediaType(header(p.ex, "content-type")) === "text/html"
        ? screenFraming(p)
        : [],
  },
  {
    name: "remember the pages the authorization server sends the browser on to: its screens",
    reports: [],
    run: ({ location, memory, place, path }) => {
      if (!location || (place.endpoint !== "authorize" && !memory.screens.has(path))) return undefined;
      const auth = authorizationOf(memory, location);
      if (auth && carriesResult(location)) return undefined;
      const next = redirectParams(location);
      if (next && (location.startsWith("/") || !auth)) {
        const segments = next.url.pathname.split("/").slice(1);
        const rest = /^[vV]\d+$/.test(segments[0] ?? "") ? segments.slice(1) : segments;
        memory.screens.set(`/${rest.join("/")}`.toLowerCase(), true);
      }
      return undefined;
    },
  },
];

const RESULT_STEPS: ReadonlyArray<Step<Result>> = [
  {
    name: "the state sent comes back unchanged",
    reports: ["AUTHZ-STATE"],
    run: ({ auth, tokenFlow, query, fragment }) => {
      const returned = tokenFlow ? (fragment.get("state") ?? query.get("state")) : query.get("state");
      if (auth.state === undefined || returned === auth.state) return [];
      return [
        violation(
          "AUTHZ-STATE",
          `Location ${tokenFlow ? "fragment" : "query"} state`,
          `the state sent, ${quote(auth.state)}`,
          quote(returned),
        ),
      ];
    },
  },
  {
    name: "the code flow's code comes in the query",
    reports: ["AUTHZ-CODE-REDIRECT"],
    run: ({ error, tokenFlow, query, fragment }) =>
      error || tokenFlow || query.get("code")
        ? []
        : [
            violation(
              "AUTHZ-CODE-REDIRECT",
              "Location query code",
              "{redirect_uri}?code=<authorization_code>",
              fragment.has("code") ? "the code in the fragment" : "no code",
            ),
          ],
  },
  {
    name: "a code can carry 128 bits and is new; remember whom it was issued to",
    reports: ["OAUTH-TOKEN-ENTROPY"],
    run: ({ error, tokenFlow, query, fragment, memory, auth, now }) => {
      const code = error || tokenFlow ? null : (query.get("code") ?? fragment.get("code"));
      if (!code) return [];
      const out = entropy(code, "Location query code", memory.codes.has(fingerprint(code)));
      memory.codes.set(fingerprint(code), {
        clientId: auth.clientId,
        redirectUri: auth.redirectUri,
        issuedAt: now,
        exchanged: 0,
        revoked: false,
      });
      return out;
    },
  },
  {
    name: "the implicit flow's token is in the fragment, never the query",
    reports: ["OAUTH-IMPLICIT-FRAGMENT"],
    run: ({ error, tokenFlow, query }) =>
      !error && tokenFlow && query.has("access_token")
        ? [
            violation(
              "OAUTH-IMPLICIT-FRAGMENT",
              "Location query access_token",
              "the access token in the fragment, never the query",
              "in the query",
            ),
          ]
        : [],
  },
  {
    name: "the implicit flow gives no refresh token",
    reports: ["TOK-IMPLICIT-NO-REFRESH"],
    run: ({ error, tokenFlow, query, fragment }) =>
      !error && tokenFlow && (fragment.has("refresh_token") || query.has("refresh_token"))
        ? [
            violation(
              "TOK-IMPLICIT-NO-REFRESH",
              "Location fragment refresh_token",
              "no refresh token in the token flow",
              "a refresh_token",
            ),
          ]
        : [],
  },
  {
    name: "the fragment holds token_type bearer, access_token, scope and expires_in",
    reports: ["AUTHZ-TOKEN-REDIRECT"],
    run: ({ error, tokenFlow, query, fragment, facts }) => {
      if (error || !tokenFlow || query.has("access_token")) return [];
      const missing = ["token_type", "access_token", "scope", "expires_in"].filter((k) => !fragment.get(k));
      if (missing.length > 0) {
        return [
          violation(
            "AUTHZ-TOKEN-REDIRECT",
            `Location fragment ${missing.join(", ")}`,
            "#token_type=bearer&access_token=..&scope=..&expires_in=..",
            `${missing.join(", ")} missing`,
          ),
        ];
      }
      const out = [];
      if (!/^bearer$/i.test(fragment.get("token_type")!)) {
        out.push(
          violation(
            "AUTHZ-TOKEN-REDIRECT",
            "Location fragment token_type",
            "bearer",
            quote(fragment.get("token_type")),
          ),
        );
      }
      const expiresIn = fragment.get("expires_in");
      if (expiresIn && expiresIn !== String(facts.tokenSeconds)) {
        out.push(
          violation(
            "AUTHZ-TOKEN-REDIRECT",
            "Location fragment expires_in",
            String(facts.tokenSeconds),
            quote(expiresIn),
          ),
        );
      }
      return out;
    },
  },
  {
    name: "the implicit flow names the single scope",
    reports: ["SCOPE-SINGLE"],
    run: ({ error, tokenFlow, params, memory }) => {
      const scope = !error && tokenFlow ? params.get("scope") : null;
      return scope ? sameScope(scope, "Location fragment scope", memory) : [];
    },
  },
  {
    name: "an implicit token can carry 128 bits and is new; remember it",
    reports: ["OAUTH-TOKEN-ENTROPY"],
    run: ({ error, tokenFlow, params, memory, now, facts, auth }) => {
      const token = !error && tokenFlow ? params.get("access_token") : null;
      if (!token) return [];
      const fp = fingerprint(token);
      const out = entropy(token, "Location fragment access_token", memory.access.has(fp));
      memory.access.set(fp, {
        issuedAt: now,
        expiresIn: Number(params.get("expires_in")) || facts.tokenSeconds,
        via: "implicit",
        clientId: auth.clientId,
        lineage: undefined,
        code: undefined,
        answered: undefined,
        revoked: false,
      });
      return out;
    },
  },
];

/** The pages of the authorization server: screens and where they lead. */
export const PAGES = group<Page>({
  name: "the authorization server's pages",
  read(j) {
    // Most exchanges are data calls of a client that never shows a screen: nothing to read.
    const authorize = j.place.endpoint === "authorize";
    if (!authorize && j.memory.screens.size === 0) return undefined;
    const path = `/${j.place.segments.join("/")}`.toLowerCase();
    return authorize || j.memory.screens.has(path) ? { path, location: redirectOf(j), ...j } : undefined;
  },
  steps: PAGE_STEPS,
});

/** The redirect that brings an authorization's result to its client. */
export const RESULTS = group<Result>({
  name: "the redirect that answers an authorization",
  read(j) {
    const location = redirectOf(j);
    if (!location || !carriesResult(location)) return undefined;
    const auth = authorizationOf(j.memory, location);
    if (!auth) return undefined;
    const { query, fragment } = redirectParams(location)!;
    const tokenFlow = auth.responseType === "token" || query.has("access_token") || fragment.has("access_token");
    return {
      location,
      auth,
      query,
      fragment,
      tokenFlow,
      error: query.get("error") ?? fragment.get("error"),
      params: query.has("access_token") ? query : fragment,
      now: j.memory.targetTime(j.ex.at),
      ...j,
    };
  },
  steps: RESULT_STEPS,
});
