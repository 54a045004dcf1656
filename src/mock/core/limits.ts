// A-LIMITS: every cap the mock enforces, in one place, each answered with a
// 4xx that names it. The numbers are ours; the description shows none.

/** Request bodies larger than this are 413. */
export const BODY_LIMIT_BYTES = 1024 * 1024;
/** JSON bodies nested deeper than this are 400, as XML elements nested deeper are. */
export const MAX_BODY_DEPTH = 10;
/** A database holds at most this many objects of one resource; another POST is 400. */
export const MAX_OBJECTS_PER_DATABASE = 200_000;
/** The developer portal keeps at most this many applications. */
export const MAX_APPLICATIONS = 1_000;
/** Longest application name and redirect URI accepted at registration. */
export const MAX_APPLICATION_NAME = 100;
export const MAX_REDIRECT_URI = 2_000;
/** Authorization requests waiting for login and permission; the oldest are dropped beyond this. */
export const MAX_PENDING_AUTHORIZATIONS = 10_000;
/**
 * Access tokens (and codes) and refresh tokens kept at once; beyond this the oldest stop
 * working. Expired and revoked ones are swept long before (tokens.ts, KEPT_AFTER_END_MS).
 */
export const MAX_ACCESS_TOKENS = 100_000;
export const MAX_REFRESH_TOKENS = 100_000;
/** The clock moves at most this far in one call (ten years). */
export const MAX_CLOCK_STEP_SECONDS = 10 * 365 * 24 * 3600;
/** A request's headers must arrive within this time, the whole request within the next. */
export const HEADERS_TIMEOUT_MS = 5_000;
export const REQUEST_TIMEOUT_MS = 15_000;
