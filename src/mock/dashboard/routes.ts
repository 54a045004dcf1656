// The dashboard at GET /__mock/: plain HTML, one stylesheet and one script,
// served by the mock itself (no network beyond it). Everything it shows and
// changes goes through the control calls of src/mock/core/control.ts.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { PROJECT_ROOT } from "../../paths.ts";
import type { MockResponse } from "../core/http.ts";
import { CONTROL_COOKIE } from "../core/local.ts";
import { html } from "../core/oauth/pages.ts";
import type { Route } from "../core/router.ts";

const ASSETS = resolve(PROJECT_ROOT, "src/mock/dashboard/assets");
const read = (name: string) => readFileSync(resolve(ASSETS, name), "utf8");

const HEADERS = {
  "cache-control": "no-store",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
};

const asset = (type: string, body: string): MockResponse => ({
  status: 200,
  headers: { ...HEADERS, "content-type": `${type}; charset=utf-8` },
  body,
});

/** Whose dashboard it is: the mock's, or bawa proxy's (the request log and its violations only). */
export interface DashboardOptions {
  /** The proxy's target: the page shows the requests it forwarded and the rules their answers broke. */
  proxyOf?: string;
}

export function dashboardRoutes(options: DashboardOptions = {}): Route[] {
  const page = options.proxyOf
    ? read("dashboard.html")
        .replace("<title>bawa mock · dashboard</title>", "<title>bawa proxy · dashboard</title>")
        .replace("<body>", `<body data-mode="proxy" data-target="${html(options.proxyOf)}">`)
    : read("dashboard.html");
  const script = read("dashboard.js");
  const style = read("dashboard.css");
  return [
    {
      path: "/__mock",
      local: true,
      methods: {
        GET: (req) => {
          // Opened with ?token=: keep the token in a cookie and drop it from the address bar. The
          // cookie is for the whole mock, so the portal (guarded by the same token) opens too.
          const token = req.query.get("token")?.[0];
          if (token !== undefined) {
            return {
              status: 303,
              headers: {
                location: "/__mock/",
                "set-cookie": `${CONTROL_COOKIE}=${encodeURIComponent(token)}; Path=/; HttpOnly; SameSite=Strict`,
                "cache-control": "no-store",
              },
            };
          }
          return asset("text/html", page);
        },
      },
    },
    { path: "/__mock/dashboard.js", local: true, methods: { GET: () => asset("text/javascript", script) } },
    { path: "/__mock/dashboard.css", local: true, methods: { GET: () => asset("text/css", style) } },
  ];
}
