// Server-rendered screens of the authorization server: plain HTML forms that
// work without JavaScript, load nothing from elsewhere and refuse framing.
import type { MockResponse } from "../http.ts";

/**
 * Headers of every screen: no framing (RFC 9700 4.16; the rule refuseFraming),
 * no third-party loads, no caching.
 */
export function screenHeaders(refuseFraming = true): Record<string, string> {
  return {
    "content-type": "text/html; charset=utf-8",
    ...(refuseFraming ? { "x-frame-options": "DENY" } : {}),
    "content-security-policy": `default-src 'none'; style-src 'unsafe-inline'; ${refuseFraming ? "frame-ancestors 'none'; " : ""}base-uri 'none'`,
    "cache-control": "no-store",
    // Not no-referrer: under it a browser sends `Origin: null` with the page's own form posts,
    // which the portal must refuse as it refuses other sites. Other origins still learn nothing.
    "referrer-policy": "same-origin",
    "x-content-type-options": "nosniff",
  };
}

export const html = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

export function screen(
  status: number,
  title: string,
  body: string,
  headers: Record<string, string> = {},
  refuseFraming = true,
): MockResponse {
  return {
    status,
    headers: { ...screenHeaders(refuseFraming), ...headers },
    body: `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${html(title)} · Business Administration (bawa mock)</title>
<style>
body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem;color:#1d2433}
h1{font-size:1.35rem}form{display:grid;gap:.75rem}label{display:grid;gap:.25rem}
input{padding:.5rem;font-size:1rem}button{padding:.6rem 1rem;font-size:1rem;cursor:pointer}
.error{background:#fde8e8;border:1px solid #e0a0a0;padding:.6rem}.muted{color:#5b6475;font-size:.9rem}
.row{display:flex;gap:.75rem}
</style>
</head>
<body>
<h1>${html(title)}</h1>
${body}
</body>
</html>
`,
  };
}

export function loginScreen(opts: {
  action: string;
  request: string;
  csrf: string;
  appName: string;
  error?: string;
  username?: string;
  refuseFraming: boolean;
  /** 429 with Retry-After while logins are locked (A-LIMITS); 200 otherwise. */
  status?: number;
  headers?: Record<string, string>;
}): MockResponse {
  return screen(
    opts.status ?? 200,
    "Log in",
    `<p><strong>${html(opts.appName)}</strong> asks for access to your administration.</p>
${opts.error ? `<p class="error" role="alert">${html(opts.error)}</p>` : ""}
<form method="post" action="${html(opts.action)}">
<input type="hidden" name="request" value="${html(opts.request)}">
<input type="hidden" name="csrf" value="${html(opts.csrf)}">
<label>User name <input name="username" autocomplete="username" required value="${html(opts.username ?? "")}"></label>
<label>Password <input name="password" type="password" autocomplete="current-password" required></label>
<button type="submit">Log in</button>
</form>`,
    opts.headers ?? {},
    opts.refuseFraming,
  );
}

export function permissionScreen(opts: {
  action: string;
  request: string;
  csrf: string;
  appName: string;
  user: string;
  databases: readonly string[];
  scope: string;
  refuseFraming: boolean;
}): MockResponse {
  return screen(
    200,
    "Grant permission",
    `<p>Logged in as <strong>${html(opts.user)}</strong>.</p>
<p><strong>${html(opts.appName)}</strong> wants to read and change all data of your administrations
(${opts.databases.map((d) => `<code>${html(d)}</code>`).join(", ")}).</p>
<p class="muted">Scope: <code>${html(opts.scope)}</code></p>
<form method="post" action="${html(opts.action)}">
<input type="hidden" name="request" value="${html(opts.request)}">
<input type="hidden" name="csrf" value="${html(opts.csrf)}">
<div class="row">
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</div>
</form>`,
    {},
    opts.refuseFraming,
  );
}

/** A cap of A-LIMITS is full: 429 with Retry-After, or 400 when waiting makes no room. */
export function limitScreen(message: string, retryAfter: number | undefined, refuseFraming = true): MockResponse {
  return screen(
    retryAfter === undefined ? 400 : 429,
    "Try again later",
    `<p class="error" role="alert">${html(message)}</p>`,
    retryAfter === undefined ? {} : { "retry-after": String(retryAfter) },
    refuseFraming,
  );
}

/** The error page of the authorization endpoint: shown, never redirected (RFC 6749 4.1.2.1). */
export function errorScreen(status: number, message: string, refuseFraming = true): MockResponse {
  return screen(
    status,
    "Authorization failed",
    `<p class="error" role="alert">${html(message)}</p>
<p class="muted">You were not sent back to the application, because it could not be verified.</p>`,
    {},
    refuseFraming,
  );
}
