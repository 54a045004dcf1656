// The guard of the mock's own pages and control calls (routes marked `local`):
// they change what every client of the mock sees, so only the mock's own
// address and its own pages may reach them. A Host that is not the mock's is
// refused (DNS rebinding), a change sent by another site's page (Origin) is
// refused, and control calls take only JSON, which no cross-site form or
// simple request can send (no preflight would let it through).
import { controlJson } from "./control.ts";
import { allowedOrigin } from "./cors.ts";
import { type MockResponse, mediaTypeOf, single } from "./http.ts";
import { html, screen } from "./oauth/pages.ts";
import { cookie, sameSecret } from "./oauth/secrets.ts";
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
  if (control && controlToken !== undefined) {
    const given = req.headers["x-bawa-control-token"] ?? cookie(req, CONTROL_COOKIE) ?? single(req.query, "token");
    if (!sameSecret(given, controlToken)) {
      return refuse(
        401,
        "This mock listens on a non-loopback address: its control calls need the control token it printed at start (header X-Bawa-Control-Token, or open the dashboard at /__mock/?token=<token>).",
      );
    }
  }
  if (SAFE_METHODS.has(req.method.toUpperCase())) return undefined;
  const origin = req.headers.origin;
  const pageMayCall = control && allowedOrigin(origin, req.ctx.allowedOrigins()) !== undefined;
  if (origin !== undefined && !isOwnOrigin(origin, host, ownHosts) && !pageMayCall) {
    return refuse(403, `A page of another site (Origin ${origin.slice(0, 100)}) can not change this mock.`);
  }
  if (control && mediaTypeOf(req.headers["content-type"]) !== "application/json") {
    return refuse(415, "Control calls take Content-Type: application/json (so that no other site can send them).");
  }
  return undefined;
}

function isOwnOrigin(origin: string, host: string | undefined, ownHosts: readonly string[]): boolean {
  const m = /^http:\/\/([^/]+)$/i.exec(origin);
  if (!m) return false;
  const originHost = m[1]!.toLowerCase();
  return originHost === host || ownHosts.includes(originHost);
}
