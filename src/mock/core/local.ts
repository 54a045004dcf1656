// The guard of the mock's own pages and control calls (routes marked `local`):
// they change what every client of the mock sees, so only the mock's own
// address and its own pages may reach them. A Host that is not the mock's is
// refused (DNS rebinding), a change sent by another site's page (Origin) is
// refused, and control calls take only JSON, which no cross-site form or
// simple request can send (no preflight would let it through).
import { controlJson } from "./control.ts";
import { allowedOrigin, originsFor } from "./cors.ts";
import { type MockResponse, mediaTypeOf, single } from "./http.ts";
import { html, screen } from "./oauth/pages.ts";
import { cookies, sameSecret } from "./oauth/secrets.ts";
import type { RoutedRequest } from "./router.ts";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
/** The dashboard's cookie that carries the control token once `/__mock/?token=` was opened. */
export const CONTROL_COOKIE = "bawa_control";

/** The refusal of a request to a local route that does not come from the mock's own side, or undefined. */
export function refuseForeign(req: RoutedRequest, path: string): MockResponse | undefined {
  const control = path === "/__mock" || path.startsWith("/__mock/");
  const refuse = (status: number, message: string) =>
    control
      ? controlJson(status, { Message: message })
      : screen(status, "Request refused", `<p class="error" role="alert">${html(message)}</p>`);
  const { ownHosts, controlToken } = req.ctx.config;
  const host = req.headers.host?.toLowerCase();
  if (host !== undefined && ownHosts.length > 0 && !ownHosts.includes(host)) {
    return refuse(
      403,
      `Host ${host.slice(0, 100)} is not an address of this mock (${ownHosts.join(", ")}); add it with --allowed-hosts if it is.`,
    );
  }
  // With a token, the portal is guarded too: it shows secrets and changes the redirect URIs every login uses.
  if (controlToken !== undefined && !givesToken(req, controlToken)) {
    return refuse(
      401,
      "This mock's control calls, dashboard and portal need its control token (--control-token, or printed at start off loopback): send it as X-Bawa-Control-Token, or open the dashboard once at /__mock/?token=<token>.",
    );
  }
  if (SAFE_METHODS.has(req.method.toUpperCase())) return undefined;
  const origin = req.headers.origin;
  const pageMayCall = control && allowedOrigin(origin, originsFor("control", req.ctx.allowedOrigins())) !== undefined;
  if (origin !== undefined && !isOwnOrigin(origin, host, ownHosts) && !pageMayCall) {
    return refuse(403, `A page of another site (Origin ${origin.slice(0, 100)}) can not change this mock.`);
  }
  if (control && mediaTypeOf(req.headers["content-type"]) !== "application/json") {
    return refuse(415, "Control calls take Content-Type: application/json (so that no other site can send them).");
  }
  return undefined;
}

/**
 * Whether the request carries the control token: the header when it is sent (a wrong one is not
 * rescued by a cookie), else the query's (the dashboard's link, newer than any cookie), else a
 * cookie; every cookie of that name counts, as a browser may still hold one of an earlier start.
 */
function givesToken(req: RoutedRequest, token: string): boolean {
  const header = req.headers["x-bawa-control-token"];
  if (header !== undefined) return sameSecret(header, token);
  const query = single(req.query, "token");
  if (query !== undefined) return sameSecret(query, token);
  return cookies(req, CONTROL_COOKIE).some((c) => sameSecret(c, token));
}

function isOwnOrigin(origin: string, host: string | undefined, ownHosts: readonly string[]): boolean {
  const m = /^http:\/\/([^/]+)$/i.exec(origin);
  if (!m) return false;
  const originHost = m[1]!.toLowerCase();
  return originHost === host || ownHosts.includes(originHost);
}
