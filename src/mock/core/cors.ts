// CORS (A-CORS): a browser app on another origin, the very client the implicit
// flow exists for, calls the API and the control calls with fetch(). Allowed
// origins are by default those of the active applications' redirect URIs; `--cors-origins`
// changes that. An origin that is not allowed gets no allow headers at all.
import type { MockRequest, MockResponse } from "./http.ts";

/** The origins a browser may call from, or every origin. */
export type AllowedOrigins = readonly string[] | "*";

const EXPOSED = "WWW-Authenticate, X-Bawa-Faults, X-Bawa-Forced, X-Bawa-Ignored-Properties, Content-Length, Location";
const ALWAYS_ALLOWED_HEADERS = ["authorization", "content-type", "accept", "prefer", "x-bawa-control-token"];

/**
 * The paths a page may call across origins, read from the path's decoded segments (app.ts
 * parseTarget), as the router reads them: the versioned API, and the control calls.
 */
export type CrossOriginKind = "api" | "control";

export const crossOriginPath = (segments: readonly string[]): CrossOriginKind | undefined => {
  const first = segments[0] ?? "";
  if (/^[vV]\d+$/.test(first)) return "api";
  return first.toLowerCase() === "__mock" ? "control" : undefined;
};

/**
 * The origins that may call a kind of path. `--cors-origins '*'` opens the API to every page, not
 * the control calls: they read secrets, mint tokens and switch faults, so only an origin listed by
 * name may call them (decision 0009).
 */
export const originsFor = (kind: CrossOriginKind, allowed: AllowedOrigins): AllowedOrigins =>
  kind === "control" && allowed === "*" ? [] : allowed;

/** The request's origin when it may call, else undefined. */
export function allowedOrigin(origin: string | undefined, allowed: AllowedOrigins): string | undefined {
  // Echoed into a header: only a well-formed origin, never anything else it might carry.
  if (!origin || !/^https?:\/\/[A-Za-z0-9.-]+(:\d{1,5})?$|^https?:\/\/\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/.test(origin)) {
    return undefined;
  }
  return allowed === "*" || allowed.includes(origin.toLowerCase()) ? origin : undefined;
}

/** The answer to a preflight (OPTIONS with Access-Control-Request-Method). */
export function preflight(req: MockRequest, kind: CrossOriginKind, allowed: AllowedOrigins): MockResponse {
  const origin = allowedOrigin(req.headers.origin, originsFor(kind, allowed));
  const vary = { vary: "Origin, Access-Control-Request-Method, Access-Control-Request-Headers" };
  if (!origin) {
    return {
      status: 403,
      headers: { ...vary, "content-type": "application/json; charset=utf-8" },
      body: JSON.stringify({
        Message: `The origin ${String(req.headers.origin).slice(0, 100)} may not call this mock from a browser; start it with --cors-origins to allow it.`,
      }),
      meta: { code: "cors.refused" },
    };
  }
  const asked = (req.headers["access-control-request-headers"] ?? "")
    .split(",")
    .map((h) => h.trim().toLowerCase())
    .filter((h) => /^[a-z0-9!#$%&'*+.^_`|~-]{1,64}$/.test(h));
  return {
    status: 204,
    headers: {
      ...vary,
      "access-control-allow-origin": origin,
      "access-control-allow-methods": "GET, HEAD, POST, PUT, DELETE, OPTIONS",
      "access-control-allow-headers": [...new Set([...ALWAYS_ALLOWED_HEADERS, ...asked])].join(", "),
      "access-control-max-age": "600",
    },
    meta: { code: "cors.preflight" },
  };
}

/**
 * Every answer to an allowed origin, errors included, says so and shows the mock's own headers.
 * The answer is the request's own: its headers are set in place.
 */
export function withCors(
  req: MockRequest,
  res: MockResponse,
  kind: CrossOriginKind,
  allowed: () => AllowedOrigins,
): MockResponse {
  const origin =
    req.headers.origin === undefined ? undefined : allowedOrigin(req.headers.origin, originsFor(kind, allowed()));
  const h = res.headers;
  h.vary = h.vary ? `${h.vary}, Origin` : "Origin";
  if (origin) {
    h["access-control-allow-origin"] = origin;
    h["access-control-expose-headers"] = EXPOSED;
  }
  return res;
}
