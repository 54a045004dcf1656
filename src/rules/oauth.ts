// The values of OAuth 2.0 that several rules read, each written once: what
// the contract states (the access token's lifetime, the token error codes, the
// scope's form), how client credentials are read from a Basic header, whether a
// code or token can carry 128 random bits, whether an answer may be stored,
// and what a Bearer challenge says. The mock, bawa proxy's judge and the suite's
// checks all read these, so they can not answer the same exchange differently.
import type { CompiledContract } from "../contract/index.ts";

/** RFC 6749 4.1.2: "A maximum authorization code lifetime of 10 minutes is RECOMMENDED." */
export const CODE_MAX_SECONDS = 600;

/** The parameters of an address's fragment, where the token flow answers (RFC 6749 4.2.2). */
export const fragmentOf = (u: URL): URLSearchParams => new URLSearchParams(u.hash.slice(1));

/** What the contract states of tokens: read from it, never restated. */
export interface OAuthFacts {
  /** TokenResponse.expires_in's const: the description's 7200 (Limits). */
  tokenSeconds: number;
  /** OAuthError.error's enum: the codes a token error may carry (RFC 6749 5.2, A-TOKEN-ERRORS). */
  tokenErrors: readonly string[];
  /** Scope's pattern: the description's `http://<vendor>.<product>.API/Web/WebApi/*`. */
  scopeForm: RegExp;
}

type Schemas = Record<string, { properties?: Record<string, { const?: unknown; enum?: unknown[] }>; pattern?: string }>;
const facts = new WeakMap<CompiledContract, OAuthFacts>();

/** The contract's facts about tokens; a contract without them is refused, naming what is missing. */
export function oauthFacts(contract: CompiledContract): OAuthFacts {
  let known = facts.get(contract);
  if (known) return known;
  const schemas = contract.doc.components.schemas as Schemas;
  const seconds = schemas.TokenResponse?.properties?.expires_in?.const;
  const errors = schemas.OAuthError?.properties?.error?.enum;
  const scope = schemas.Scope?.pattern;
  if (typeof seconds !== "number" || !Array.isArray(errors) || typeof scope !== "string") {
    throw new Error(
      "the contract must state the token's lifetime (#/components/schemas/TokenResponse: expires_in.const), the token error codes (OAuthError: error.enum) and the scope's form (Scope: pattern)",
    );
  }
  known = { tokenSeconds: seconds, tokenErrors: errors.map(String), scopeForm: new RegExp(scope) };
  facts.set(contract, known);
  return known;
}

/**
 * Client credentials of an HTTP Basic header (RFC 6749 2.3.1: each form-urlencoded, then joined
 * with a colon and base64-encoded); undefined when the header is not Basic, "malformed" when it
 * is but can not be read.
 */
export function basicCredentials(header: string | undefined): { id: string; secret: string } | "malformed" | undefined {
  const m = /^basic\s+(\S*)\s*$/i.exec(header ?? "");
  if (!m) return undefined;
  const decoded = Buffer.from(m[1]!, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 1) return "malformed";
  // Many clients send id and secret as they are, not form-urlencoded; what does not decode is taken as sent.
  const formDecoded = (s: string) => {
    try {
      return decodeURIComponent(s.replaceAll("+", " "));
    } catch {
      return s;
    }
  };
  return { id: formDecoded(decoded.slice(0, colon)), secret: formDecoded(decoded.slice(colon + 1)) };
}

/** The most bits a value of this length and alphabet can carry. */
export function maxEntropyBits(value: string): number {
  const alphabet = /^[0-9]+$/.test(value)
    ? 10
    : /^[0-9a-f]+$/i.test(value)
      ? 16
      : /^[A-Za-z0-9]+$/.test(value)
        ? 62
        : 64;
  return value.length * Math.log2(alphabet);
}

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * OAUTH-TOKEN-ENTROPY (RFC 6749 10.10, RFC 9700 2.1.1: 128 bits): why a code or token can not
 * carry 128 random bits, or undefined when it can. A UUIDv4 carries 122.
 */
export function tooWeak(value: string): string | undefined {
  if (UUID_V4.test(value)) return "a UUIDv4, which carries 122 random bits";
  const bits = maxEntropyBits(value);
  return bits < 128 ? `${value.length} characters, at most ${Math.floor(bits)} bits` : undefined;
}

/** OAUTH-NO-STORE (RFC 6749 5.1): a Cache-Control that forbids storing the answer (directives have no case). */
export const forbidsStoring = (cacheControl: string | undefined) =>
  (cacheControl ?? "").split(",").some((d) => d.trim().split("=")[0]!.trim().toLowerCase() === "no-store");

/**
 * OAUTH-BEARER-CHALLENGE (RFC 6750 3, 3.1): what is wrong with the WWW-Authenticate of a 401 from
 * the resource server, given what the request carried; undefined when nothing is.
 * - no credentials: a Bearer challenge without an error code;
 * - a token the service did not issue, or one that expired or was revoked: error="invalid_token".
 */
export function challengeProblem(
  challenge: string | undefined,
  sent: "no credentials" | "an invalid token",
): { expected: string; found: string } | undefined {
  if (!challenge || !/^bearer(\s|$)/i.test(challenge))
    return { expected: "a Bearer challenge", found: challenge ?? "none" };
  const error = /\berror\s*=\s*"?([^",\s]*)/i.exec(challenge)?.[1];
  if (sent === "no credentials" && error !== undefined) {
    return { expected: "no error code when no credentials came", found: error || "an error code" };
  }
  if (sent === "an invalid token" && error !== "invalid_token") {
    return { expected: 'error="invalid_token" for a token that is not valid', found: error ?? "no error code" };
  }
  return undefined;
}

/** OAUTH-SCREENS-NO-FRAMING (RFC 6749 10.13): a screen that refuses to be framed. */
export const refusesFraming = (xFrameOptions: string | undefined, csp: string | undefined) =>
  /^deny$/i.test((xFrameOptions ?? "").trim()) || /frame-ancestors\s+'none'/i.test(csp ?? "");
