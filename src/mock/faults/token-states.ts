// Faults of token states over the whole domain of data operations: each breaks the
// rule on some operations only, as implementations do, so a check that tries one
// GET does not see it (issue 32).
import type { Switch } from "../core/scenarios.ts";
import { fault } from "./transforms.ts";

export const TOKEN_STATE_FAULTS: readonly Switch[] = [
  fault({
    name: "expired-accepted-on-writes",
    breaks: ["TOK-EXPIRY"],
    says: /expired token of the code flow: (POST|PUT|DELETE) [^;]* answered (200|404|400)/,
    what: "an expired access token is refused on GET only; POST, PUT and DELETE still take it",
    rules: { accessTokensExpireOnWrites: false },
  }),
  fault({
    name: "token-checked-after-id",
    // Expired tokens are invalid tokens too: the same order of checks lets them through.
    breaks: ["OAUTH-INVALID-TOKEN", "TOK-EXPIRY"],
    says: /(unknown|expired) token[^;]*: (PUT|DELETE) [^;]* answered 404/,
    what: "PUT and DELETE look up the id before the token: an invalid token on an unknown id answers 404, not 401",
    transforms: [
      {
        codes: ["auth.invalid-token"],
        apply: (res, t) => (["PUT", "DELETE"].includes(t.operation(res)?.method ?? "") ? t.forced(res, 404) : res),
      },
    ],
  }),
  fault({
    name: "refresh-only-while-valid",
    breaks: ["TOK-RENEWED"],
    says: /the refresh grant after expiry: [^\n]* answered 400/,
    what: "a refresh token works only while its access token does: after expiry the code flow cannot renew",
    rules: { refreshAfterExpiry: false },
  }),
];
