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
// Fair caps: what the authorization server keeps is capped per client (and per source, the
// client's address) as well as overall, so that no one can push out another's entries. A full
// cap refuses the newcomer: 429 with Retry-After when the oldest entry it counts will be dropped
// (expired, or revoked, and then swept), else 400; it never drops someone else's entry.
/** Authorization requests waiting for login and permission (each lives 600 s). */
export const MAX_PENDING_AUTHORIZATIONS = 10_000;
export const MAX_PENDING_AUTHORIZATIONS_PER_CLIENT = 2_500;
export const MAX_PENDING_AUTHORIZATIONS_PER_SOURCE = 1_000;
/** Requests waiting for login per browser (its bawa_authz cookie); a new one displaces the browser's own oldest. */
export const MAX_PENDING_AUTHORIZATIONS_PER_BROWSER = 10;
/** Codes, access tokens and refresh tokens kept, until swept (tokens.ts, KEPT_AFTER_END_MS). */
export const MAX_CODES = 100_000;
export const MAX_CODES_PER_CLIENT = 20_000;
export const MAX_ACCESS_TOKENS = 200_000;
export const MAX_ACCESS_TOKENS_PER_CLIENT = 100_000;
export const MAX_REFRESH_TOKENS = 100_000;
export const MAX_REFRESH_TOKENS_PER_CLIENT = 50_000;
/**
 * Login throttling, counted per user name, per browser (the login's cookie) and per source: past
 * SLOW_AFTER wrong passwords each further one is answered LOGIN_SLOW_MS late; the LOCK_AFTER-th
 * locks logins (429, Retry-After) for LOGIN_LOCK_SECONDS, each further lock twice as long, up to
 * LOGIN_LOCK_MAX_SECONDS. A user name counts wrong passwords in a row: after its lock the next one
 * locks again; the right password clears it; it is forgotten LOGIN_FAILURES_KEPT_SECONDS after the
 * last. A browser's and a source's counts drop by one every LOGIN_DECAY_SECONDS and start again at
 * a lock; the doubling is forgotten LOGIN_FAILURES_KEPT_SECONDS after a lock ends. A loopback source
 * (every browser and process of the machine) is slowed, never locked.
 */
export const LOGIN_SLOW_AFTER_PER_USER = 3;
export const LOGIN_LOCK_AFTER_PER_USER = 10;
export const LOGIN_SLOW_AFTER_PER_BROWSER = 10;
export const LOGIN_LOCK_AFTER_PER_BROWSER = 30;
export const LOGIN_SLOW_AFTER_PER_SOURCE = 10;
export const LOGIN_LOCK_AFTER_PER_SOURCE = 30;
export const LOGIN_DECAY_SECONDS = 20;
export const LOGIN_SLOW_MS = 1_000;
export const LOGIN_LOCK_SECONDS = 60;
export const LOGIN_LOCK_MAX_SECONDS = 900;
export const LOGIN_FAILURES_KEPT_SECONDS = 900;
/** User names, browsers and sources the throttle tracks at once; beyond, the one unused the longest is forgotten. */
export const MAX_LOGIN_THROTTLE_ENTRIES = 10_000;
/** The clock moves at most this far in one call (ten years). */
export const MAX_CLOCK_STEP_SECONDS = 10 * 365 * 24 * 3600;
/** A request's headers must arrive within this time, the whole request within the next. */
export const HEADERS_TIMEOUT_MS = 5_000;
export const REQUEST_TIMEOUT_MS = 15_000;
/**
 * An idle connection is kept this long between requests (nginx's 75 s; Node.js's own 5 s). Longer
 * than clients keep one (fetch: 4 s), so the client closes first: with 5 s, a client that reused
 * a connection under load as the mock closed it saw ECONNRESET for a request it had sent.
 */
export const KEEP_ALIVE_MS = 75_000;
