// Application registration (A-REGISTRATION): a developer portal where an
// owner registers an application, sees its credentials once it is active, and
// changes its redirect URI. Outside the version segment. Its forms carry an
// anti-forgery token bound to a cookie, so no other site can post them.
import { createHmac, randomBytes } from "node:crypto";
import { formOf, type Params, single } from "../http.ts";
import { MAX_APPLICATION_NAME, MAX_APPLICATIONS } from "../limits.ts";
import type { Route, RoutedRequest } from "../router.ts";
import { html, screen } from "./pages.ts";
import { type Application, type Registry, registrableRedirectUri } from "./registry.ts";
import { cookie, sameSecret } from "./secrets.ts";

const PORTAL_COOKIE = "bawa_portal";

export function portalRoutes(registry: Registry): Route[] {
  // Per process: a restart invalidates open forms, which is all it costs.
  const key = randomBytes(32);
  const tokenOf = (browser: string) => createHmac("sha256", key).update(browser).digest("base64url");

  /** The browser's portal cookie (a new one when it has none) and the form token bound to it. */
  const antiForgery = (req: RoutedRequest) => {
    const existing = cookie(req, PORTAL_COOKIE);
    const browser = existing && /^[A-Za-z0-9_-]{43}$/.test(existing) ? existing : randomBytes(32).toString("base64url");
    const headers: Record<string, string> =
      browser === existing
        ? {}
        : { "set-cookie": `${PORTAL_COOKIE}=${browser}; Path=/portal; HttpOnly; SameSite=Strict` };
    return { field: `<input type="hidden" name="csrf" value="${tokenOf(browser)}">`, headers };
  };
  const forged = (req: RoutedRequest, form: Params) => {
    const browser = cookie(req, PORTAL_COOKIE);
    return !browser || !sameSecret(single(form, "csrf"), tokenOf(browser));
  };
  const refused = (status: number, title: string, message: string) =>
    screen(status, title, `<p class="error" role="alert">${html(message)}</p><p><a href="/portal">Back</a></p>`);
  const forgedAnswer = () =>
    refused(
      403,
      "Form refused",
      "This form was not sent from the portal page this mock showed (anti-forgery check). Open the portal and try again.",
    );

  const page = (req: RoutedRequest, app: Application, message = "", status = 200) => {
    const guard = antiForgery(req);
    return screen(
      status,
      app.name,
      `${message ? `<p class="error" role="alert">${html(message)}</p>` : ""}
<p>Status: <strong data-status>${html(app.status)}</strong></p>
${
  app.status === "Actief"
    ? `<p>Client Identifier: <code data-client-id>${html(app.clientId)}</code><br>Client Secret: <code data-client-secret>${html(app.clientSecret)}</code></p>`
    : `<p class="muted">The operator activates new applications (<code>bawa activate ${html(app.clientId)}</code>); the Client Identifier and Client Secret appear here then.</p>`
}
<form method="post" action="/portal/applications/${encodeURIComponent(app.clientId)}/redirect-uri">
${guard.field}
<label>Redirect URI <input name="redirect_uri" value="${html(app.redirectUri)}" required></label>
<button type="submit">Change redirect URI</button>
</form>
<p><a href="/portal">All applications</a></p>`,
      guard.headers,
    );
  };

  const list = (req: RoutedRequest) => {
    const guard = antiForgery(req);
    const items = registry
      .applications()
      .map(
        (a) =>
          `<li><a href="/portal/applications/${encodeURIComponent(a.clientId)}">${html(a.name)}</a> (${html(a.status)})</li>`,
      )
      .join("");
    return screen(
      200,
      "Developer portal",
      `<ul>${items}</ul>
<h2>Register an application</h2>
<form method="post" action="/portal/applications">
${guard.field}
<label>Name <input name="name" required maxlength="${MAX_APPLICATION_NAME}"></label>
<label>Redirect URI <input name="redirect_uri" required placeholder="http://localhost:5173/callback"></label>
<button type="submit">Register</button>
</form>`,
      guard.headers,
    );
  };

  // A post that is not a form has none of the fields, and is refused for the first one missing.
  const form = (req: RoutedRequest): Params => formOf(req) ?? new Map();
  const find = (req: RoutedRequest) => registry.application(req.params.client_id ?? "");
  const notFound = (req: RoutedRequest) =>
    screen(404, "Not found", `<p class="error">No application ${html(req.params.client_id ?? "")}.</p>`);
  const seeOther = (app: Application) => ({
    status: 303,
    headers: { location: `/portal/applications/${encodeURIComponent(app.clientId)}` },
  });

  return [
    { path: "/portal", local: true, methods: { GET: list } },
    {
      path: "/portal/applications",
      local: true,
      methods: {
        POST: (req) => {
          const f = form(req);
          if (forged(req, f)) return forgedAnswer();
          const name = single(f, "name")?.trim();
          const uri = single(f, "redirect_uri");
          if (!name) return refused(400, "Registration refused", "The name is missing.");
          if (name.length > MAX_APPLICATION_NAME) {
            return refused(400, "Registration refused", `The name is longer than ${MAX_APPLICATION_NAME} characters.`);
          }
          if (typeof uri !== "string") return refused(400, "Registration refused", "The redirect URI is missing.");
          const checked = registrableRedirectUri(uri);
          if (!checked.ok) return refused(400, "Registration refused", `The redirect URI ${checked.problem}.`);
          if (registry.applications().length >= MAX_APPLICATIONS) {
            return refused(
              400,
              "Registration refused",
              `The portal holds ${MAX_APPLICATIONS} applications, the most it keeps.`,
            );
          }
          return seeOther(registry.register(name, checked.uri));
        },
      },
    },
    {
      path: "/portal/applications/{client_id}",
      local: true,
      methods: {
        GET: (req) => {
          const app = find(req);
          return app ? page(req, app) : notFound(req);
        },
      },
    },
    {
      path: "/portal/applications/{client_id}/redirect-uri",
      local: true,
      methods: {
        POST: (req) => {
          const app = find(req);
          if (!app) return notFound(req);
          const f = form(req);
          if (forged(req, f)) return forgedAnswer();
          const uri = single(f, "redirect_uri");
          const checked =
            typeof uri === "string" ? registrableRedirectUri(uri) : { ok: false as const, problem: "is missing" };
          if (!checked.ok) return page(req, app, `The redirect URI ${checked.problem}.`, 400);
          registry.changeRedirectUri(app.clientId, checked.uri);
          return seeOther(app);
        },
      },
    },
  ];
}
