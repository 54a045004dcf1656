// The resource server's side of OAuth: reading the bearer token (RFC 6750)
// and asking the authorization server what it grants.

/** What a valid access token lets its bearer do. */
export interface AccessGrant {
  user: string;
  clientId: string;
  databases: readonly string[];
}

export type TokenCheck = { ok: true; grant: AccessGrant } | { ok: false; description: string };

/** The one interface between the customer API and whoever issues tokens. */
export interface TokenVerifier {
  verify(accessToken: string, now: number): TokenCheck;
}

export type BearerResult =
  | { kind: "granted"; grant: AccessGrant }
  | { kind: "missing" }
  | { kind: "invalid"; description: string };

/**
 * Reads `Authorization: Bearer <token>`; the scheme name is case-insensitive
 * (RFC 7235 2.1) unless the rule bearerSchemeCaseInsensitive is off.
 */
export function checkBearer(
  authorization: string | undefined,
  tokens: TokenVerifier,
  now: number,
  caseInsensitive = true,
): BearerResult {
  const match = (caseInsensitive ? /^bearer +([A-Za-z0-9\-._~+/]+=*) *$/i : /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/).exec(
    authorization ?? "",
  );
  if (!match) {
    return /^bearer\b/i.test(authorization ?? "")
      ? { kind: "invalid", description: "The Authorization header does not hold a bearer token" }
      : { kind: "missing" };
  }
  const result = tokens.verify(match[1]!, now);
  return result.ok ? { kind: "granted", grant: result.grant } : { kind: "invalid", description: result.description };
}

export const REALM = "bawa";

/** The WWW-Authenticate challenge of RFC 6750 3: no error code when no credentials came. */
export function challenge(result: Exclude<BearerResult, { kind: "granted" }>): string {
  if (result.kind === "missing") return `Bearer realm="${REALM}"`;
  const description = quotable(result.description);
  return `Bearer realm="${REALM}", error="invalid_token", error_description="${description}"`;
}

/**
 * Text for a quoted header parameter such as error_description, which may hold
 * only printable ASCII without `"` and `\` (RFC 6750 3): anything else is
 * percent-encoded, so a database id from the path can never break a header.
 */
export function quotable(text: string, max = 200): string {
  const short = text.length > max ? `${text.slice(0, max)}...` : text;
  return short.replace(/[^\x20\x21\x23-\x5b\x5d-\x7e]/gu, (c) =>
    [...Buffer.from(c, "utf8")].map((b) => `%${b.toString(16).toUpperCase().padStart(2, "0")}`).join(""),
  );
}
