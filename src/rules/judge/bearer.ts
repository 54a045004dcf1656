// Bearer tokens on data calls: a token is required (Errors, rule 4), a 401
// carries RFC 6750's challenge, and a token works for its 7200 s and no longer,
// whatever the case of the scheme's name, and after a refresh where the one
// before it did (Tokens state table; Authentication 6).
import { fingerprint, header } from "../exchange.ts";
import type { AccessTokenSeen, RefreshTokenSeen } from "../memory.ts";
import { challengeProblem } from "../oauth.ts";
import type { Judged, Step } from "./step.ts";
import { violation } from "./step.ts";

/** What a data call's Authorization header carried, and what the judge knows of its token. */
export interface BearerCall extends Judged {
  /** The database the call addressed ("" for a resource of the whole service). */
  db: string;
  authorization: string | undefined;
  /** The scheme name as sent (`Bearer`, `bearer`), when the header is `<scheme> <token>`. */
  scheme: string | undefined;
  /** The token as sent, when the scheme is Bearer. */
  bearerToken: string | undefined;
  token: AccessTokenSeen | undefined;
  /** How old the token is on the target's clock (ms). */
  age: number;
  lineage: RefreshTokenSeen | undefined;
}

/** An Authorization header's scheme name as sent, when it is Bearer, and its token. */
export function bearerParts(authorization: string | undefined): { scheme?: string; token?: string } {
  const m = /^(\S+) +(\S+)\s*$/.exec(authorization ?? "");
  return m && m[1]!.toLowerCase() === "bearer" ? { scheme: m[1]!, token: m[2]! } : {};
}

/** Reads the bearer side of a data call. */
export function bearerOf(j: Judged, db: string): BearerCall {
  const authorization = j.ex.requestHeaders.authorization;
  const { scheme, token: bearerToken } = bearerParts(authorization);
  const token = bearerToken ? j.memory.access.get(fingerprint(bearerToken)) : undefined;
  // The Judged it extends is spread last (see Judged, step.ts).
  return {
    db,
    authorization,
    scheme,
    bearerToken,
    token,
    age: token ? j.memory.targetTime(j.ex.at) - token.issuedAt : 0,
    lineage: token?.lineage ? j.memory.refresh.get(token.lineage) : undefined,
    ...j,
  };
}

/** RFC 6750 2.1's b64token: what a bearer token is made of. */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/** The token is past its lifetime (the description's, or a shorter expires_in it was issued with). */
const expired = (b: BearerCall) => b.age > b.facts.tokenSeconds * 1000 + 2000;
/** The token is well within its lifetime: a refusal now is not the clock's doing. */
const alive = (b: BearerCall) =>
  b.token !== undefined && b.age < Math.min(b.token.expiresIn, b.facts.tokenSeconds) * 1000 - 5000;

export const BEARER_STEPS: ReadonlyArray<Step<BearerCall>> = [
  {
    name: "a call without a token is refused",
    reports: ["ERR-4-TOKEN"],
    run: ({ authorization, ok, ex }) =>
      authorization === undefined && ok
        ? [violation("ERR-4-TOKEN", "header Authorization", "401 when the token is absent", String(ex.status))]
        : [],
  },
  {
    name: "a 401 carries the Bearer challenge RFC 6750 asks for",
    reports: ["OAUTH-BEARER-CHALLENGE"],
    run: (b) => {
      if (b.ex.status !== 401) return [];
      // What the call sent that the judge knows to be invalid: nothing, or a token that expired or was revoked.
      const sent =
        b.authorization === undefined
          ? "no credentials"
          : b.token && (b.token.revoked || expired(b))
            ? "an invalid token"
            : undefined;
      const challenge = header(b.ex, "www-authenticate");
      const problem =
        sent === undefined
          ? challenge && /^bearer(\s|$)/i.test(challenge)
            ? undefined
            : { expected: "a Bearer challenge", found: challenge ?? "none" }
          : challengeProblem(challenge, sent);
      return problem
        ? [violation("OAUTH-BEARER-CHALLENGE", "header WWW-Authenticate", problem.expected, problem.found)]
        : [];
    },
  },
  {
    // Whatever else the call gets wrong (an unknown id, a bad body): the token is checked first.
    name: "a revoked or expired token is refused with 401, whatever else the call gets wrong",
    reports: ["OAUTH-CODE-REUSE-REVOKES", "TOK-EXPIRY"],
    run: (b) => {
      const { token, ex, facts, age } = b;
      if (!token || ex.status === 401 || ex.status === 429 || ex.status >= 500) return [];
      if (token.revoked) {
        return [
          violation(
            "OAUTH-CODE-REUSE-REVOKES",
            "header Authorization",
            "401: the code this token came from was used twice",
            String(ex.status),
          ),
        ];
      }
      return expired(b)
        ? [
            violation(
              "TOK-EXPIRY",
              "header Authorization",
              `401 once ${facts.tokenSeconds} s have passed`,
              `${ex.method} answered ${ex.status}, ${Math.round(age / 1000)} s after it was issued`,
            ),
          ]
        : [];
    },
  },
  {
    name: "a token that is no token (RFC 6750's b64token) is refused with 401",
    reports: ["OAUTH-INVALID-TOKEN"],
    run: ({ bearerToken, ex }) => {
      if (
        bearerToken === undefined ||
        B64TOKEN.test(bearerToken) ||
        ex.status === 401 ||
        ex.status === 429 ||
        ex.status >= 500
      )
        return [];
      return [
        violation(
          "OAUTH-INVALID-TOKEN",
          "header Authorization",
          "401 for a malformed token (RFC 6750 3.1: invalid_token)",
          `malformed token: ${ex.method} answered ${ex.status}`,
        ),
      ];
    },
  },
  {
    name: "remember where a token was answered, and with which spelling of the scheme",
    reports: [],
    run: ({ token, ok, db, scheme, lineage }) => {
      if (!token || !ok || !scheme) return undefined;
      token.answered ??= new Map();
      if (!token.answered.has(db)) token.answered.set(db, scheme);
      if (lineage) {
        lineage.answered ??= new Set();
        lineage.answered.add(db);
      }
      return undefined;
    },
  },
  {
    name: "a token that worked keeps working for its lifetime, whatever the scheme's case, and after a refresh",
    reports: ["OAUTH-BEARER-CASE", "DATA-BEARER", "TOK-REFRESH"],
    run: (b) => {
      const { token, ex, db, scheme, lineage, age, facts } = b;
      if (!token || !scheme || ex.status !== 401 || token.revoked || !alive(b)) return [];
      const before = token.answered?.get(db);
      if (before !== undefined && before !== scheme) {
        return [
          violation(
            "OAUTH-BEARER-CASE",
            "header Authorization",
            `the scheme name in any case (${before} worked on ${db || "this call"})`,
            `${scheme}: 401`,
          ),
        ];
      }
      if (before !== undefined) {
        return [
          violation(
            "DATA-BEARER",
            "header Authorization",
            `the token to work where it did (${db || "this call"}), ${Math.round(age / 1000)} s into its ${facts.tokenSeconds} s`,
            "401",
          ),
        ];
      }
      if (token.via === "refresh" && lineage && !lineage.revoked && lineage.answered?.has(db)) {
        return [
          violation(
            "TOK-REFRESH",
            "header Authorization",
            `the refreshed access token works where the one before it did (${db})`,
            "401",
          ),
        ];
      }
      return [];
    },
  },
];
