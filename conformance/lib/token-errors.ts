// The error codes of RFC 6749 5.2, the only ones a token endpoint answers with: one list for the
// suite and bawa proxy's judge. It imports nothing, so the proxy loads no test runner with it.
export const TOKEN_ERRORS = [
  "invalid_request",
  "invalid_client",
  "invalid_grant",
  "unauthorized_client",
  "unsupported_grant_type",
  "invalid_scope",
] as const;

export type TokenError = (typeof TOKEN_ERRORS)[number];
