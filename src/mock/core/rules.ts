// Every rule the mock enforces, as one typed object read at the one place
// where the rule is enforced. The defaults are the service description, the
// RFCs and our assumptions; a fault switch or a scenario changes a rule, and
// `POST /__mock/reset` brings the start values back (decision 0010).

export interface Rules {
  // ── the authorization endpoint and its screens ──
  /** Only applications with status Actief get codes or tokens (description, Authentication 2). */
  requireActiveClient: boolean;
  /** redirect_uri must be exactly the registered one (RFC 6749 3.1.2.3, RFC 9700 4.1). */
  exactRedirectUri: boolean;
  /** scope and response_type are required (description, query parameters of /OAuth/Authorize). */
  requireScopeAndResponseType: boolean;
  /** state comes back unchanged (description; RFC 6749 4.1.2). */
  returnState: boolean;
  /** After the login screen the user grants permission on a screen of its own (description). */
  permissionScreen: boolean;
  /** The screens' forms need the browser's cookie and the form's token (RFC 6749 10.12). */
  checkCsrf: boolean;
  /** The screens refuse to be framed (RFC 9700 4.16). */
  refuseFraming: boolean;
  /** Tokens of the implicit flow work on the API (description, Authentication 5). */
  acceptImplicitTokens: boolean;

  // ── the token endpoint ──
  /** client_secret must be the registered secret (description, Authentication 3). */
  checkClientSecret: boolean;
  /** Client credentials may come in an HTTP Basic header (RFC 6749 2.3.1). */
  acceptBasicAuth: boolean;
  /** A code works once (RFC 6749 4.1.2). */
  codeSingleUse: boolean;
  /** Using a code twice revokes what descends from it (RFC 6749 4.1.2). */
  codeReuseRevokes: boolean;
  /** A code works only for the client it was issued to (RFC 6749 4.1.3). */
  codeBoundToClient: boolean;
  /** A code works only with the redirect_uri it was issued for (RFC 6749 4.1.3). */
  codeBoundToRedirectUri: boolean;
  /** A refresh token works only for its client (RFC 6749 6). */
  refreshBoundToClient: boolean;
  /** redirect_uri is required on the code grant (description, body parameters of POST /OAuth/Token). */
  requireRedirectUriOnCodeGrant: boolean;
  /** redirect_uri is required on the refresh grant (description). */
  requireRedirectUriOnRefresh: boolean;
  /** Each refresh answers a new refresh token and the old one stops working (A-REFRESH-TOKENS: off). */
  rotateRefreshTokens: boolean;
  /** Token answers carry Cache-Control: no-store (RFC 6749 5.1). */
  cacheControlNoStore: boolean;
  /** Lifetime of access tokens, and expires_in (description: 7200). */
  accessTokenSeconds: number;
  /** Access tokens stop working when their lifetime is over. */
  accessTokensExpire: boolean;
  /** An expired access token is refused on writes as on reads (off: only GET checks the lifetime). */
  accessTokensExpireOnWrites: boolean;
  /** A refresh token still works once its access tokens expired (the token table's row 3). */
  refreshAfterExpiry: boolean;
  /** Lifetime of authorization codes (A-CODE-LIFETIME). */
  codeSeconds: number;
  /** Random bytes in every code and token (A-TOKEN-FORMAT). */
  tokenBytes: number;

  // ── the resource server and routing ──
  /** A data call without a token is 401 (description, Errors rule 4). */
  requireAccessToken: boolean;
  /** A data call without a database is 401 (description, Errors rule 4). */
  requireDatabase: boolean;
  /** The scheme name Bearer is matched case-insensitively (RFC 6750 2.1). */
  bearerSchemeCaseInsensitive: boolean;
  /** A 401 carries a WWW-Authenticate Bearer challenge (RFC 6750 3). */
  bearerChallenge: boolean;
  /** Paths carry the version segment (description, Versioning 1). */
  requireVersionSegment: boolean;
  /** The version segment works with v and V (description, Endpoints). */
  versionLetterEitherCase: boolean;

  // ── customers ──
  /** A property missing from a body gets its default (description, Customer). */
  fillDefaults: boolean;
  /** A body with every property is accepted (description, Customer). */
  acceptAllProperties: boolean;
  /** A body without a property its schema requires is 400 (description, Errors rule 3; A-REQUIRED); off: it is given a value made from its schema. */
  enforceRequired: boolean;
  /** A text over its maxLength or a value its enum does not list is 400 (A-INVALID-BODIES); off: it is cut to the maxLength, or becomes the enum's first value, and stored. */
  refuseOutOfDomain: boolean;
  /** A PUT body is held to a create's rules: required properties, maxLength, enum (Errors rule 3; A-INVALID-BODIES); off: what it leaves out or holds outside them is fitted, as `enforceRequired` and `refuseOutOfDomain` off do, and stored. */
  validateReplacements: boolean;
  /** PUT replaces the customer (description, Endpoints). */
  putChanges: boolean;
  /** A property a PUT leaves out gets its default, as on create; off, it keeps its old value (description, Customer). */
  putFillsDefaults: boolean;
  /** DELETE removes the customer (description, Endpoints). */
  deleteRemoves: boolean;
  /** An XML body's booleans are read like JSON's (off: they are dropped, and take their defaults). */
  xmlReadsBooleans: boolean;
  /** An XML element whose text its property's type can not read (`<CreditLimit>twelve</CreditLimit>`) is 400 (A-INVALID-BODIES); off: it is dropped, and the property takes its default. */
  xmlRefusesUnreadableText: boolean;
  /** A list shows the objects as they are now, creates and deletes included (description, What the service does, 6). */
  listFollowsWrites: boolean;
  /** Property names of JSON answers: as the field table (pascal) or camelCase as the real family's guides say. */
  jsonNames: "pascal" | "camel";
}

/**
 * The rules of the data API's objects: the authorization server's own answers (its screens, its
 * authorize and token answers) read none of them (a test holds the files of src/mock/core/oauth to
 * that). `jsonNames` is also read by the mock's generic error answers, on any path (a method a
 * path does not have): answers no walk through the screens asks for.
 */
export const DATA_API_RULES: ReadonlySet<keyof Rules> = new Set<keyof Rules>([
  "fillDefaults",
  "acceptAllProperties",
  "enforceRequired",
  "refuseOutOfDomain",
  "validateReplacements",
  "putChanges",
  "putFillsDefaults",
  "deleteRemoves",
  "xmlReadsBooleans",
  "xmlRefusesUnreadableText",
  "listFollowsWrites",
  "jsonNames",
]);

export const DEFAULT_RULES: Readonly<Rules> = Object.freeze({
  requireActiveClient: true,
  exactRedirectUri: true,
  requireScopeAndResponseType: true,
  returnState: true,
  permissionScreen: true,
  checkCsrf: true,
  refuseFraming: true,
  acceptImplicitTokens: true,
  checkClientSecret: true,
  acceptBasicAuth: true,
  codeSingleUse: true,
  codeReuseRevokes: true,
  codeBoundToClient: true,
  codeBoundToRedirectUri: true,
  refreshBoundToClient: true,
  requireRedirectUriOnCodeGrant: true,
  requireRedirectUriOnRefresh: true,
  rotateRefreshTokens: false,
  cacheControlNoStore: true,
  accessTokenSeconds: 7200,
  accessTokensExpire: true,
  accessTokensExpireOnWrites: true,
  refreshAfterExpiry: true,
  codeSeconds: 300,
  tokenBytes: 32,
  requireAccessToken: true,
  requireDatabase: true,
  bearerSchemeCaseInsensitive: true,
  bearerChallenge: true,
  requireVersionSegment: true,
  versionLetterEitherCase: true,
  fillDefaults: true,
  acceptAllProperties: true,
  enforceRequired: true,
  refuseOutOfDomain: true,
  validateReplacements: true,
  putChanges: true,
  putFillsDefaults: true,
  deleteRemoves: true,
  listFollowsWrites: true,
  xmlReadsBooleans: true,
  xmlRefusesUnreadableText: true,
  jsonNames: "pascal",
});

export const RULE_NAMES = Object.keys(DEFAULT_RULES) as Array<keyof Rules>;

/** Bounds of the rules that are numbers, so a scenario can not make the mock unusable. */
const NUMBER_BOUNDS: Partial<Record<keyof Rules, [min: number, max: number]>> = {
  accessTokenSeconds: [1, 10 * 365 * 24 * 3600],
  codeSeconds: [1, 24 * 3600],
  tokenBytes: [4, 64],
};

/**
 * Checks a partial rules object from a control call or the command line;
 * answers the rules, or a message naming the first name or value that is wrong.
 */
export function checkRules(input: unknown): { ok: true; rules: Partial<Rules> } | { ok: false; message: string } {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    return { ok: false, message: 'Send a JSON object of rules, for example {"codeSingleUse": false}.' };
  }
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(input)) {
    // Own properties only: "constructor" or "__proto__" are no rules, whatever Object.prototype holds.
    if (!Object.hasOwn(DEFAULT_RULES, name)) {
      return { ok: false, message: `There is no rule ${name.slice(0, 60)}; the rules are: ${RULE_NAMES.join(", ")}.` };
    }
    const want = DEFAULT_RULES[name as keyof Rules];
    if (name === "jsonNames") {
      if (value !== "pascal" && value !== "camel") return { ok: false, message: 'jsonNames is "pascal" or "camel".' };
    } else if (typeof want === "boolean") {
      if (typeof value !== "boolean") return { ok: false, message: `${name} is true or false.` };
    } else {
      const [min, max] = NUMBER_BOUNDS[name as keyof Rules] ?? [0, Number.MAX_SAFE_INTEGER];
      if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
        return { ok: false, message: `${name} is a whole number from ${min} to ${max}.` };
      }
    }
    Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
  }
  return { ok: true, rules: out as Partial<Rules> };
}
