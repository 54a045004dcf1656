// Application registration (A-REGISTRATION): a developer portal where an
// owner registers an application and changes its redirect URI, the operator's
// activation, and the background user's refresh-token generator
// (A-BACKGROUND-USER). All outside the version segment.
import { controlJson, readControlJson } from "../app.ts";
import { parseParams, single } from "../http.ts";
import type { Route, RoutedRequest } from "../router.ts";
import { html, screen } from "./pages.ts";
import { type Application, type Registry, redirectUriProblem } from "./registry.ts";
import { sameSecret } from "./server.ts";
import type { TokenStore } from "./tokens.ts";

export function portalRoutes(registry: Registry, tokens: TokenStore): Route[] {
  const page = (app: Application, message = "") =>
    screen(
      200,
      app.name,
      `${message ? `<p class="error" role="alert">${html(message)}</p>` : ""}
<p>Status: <strong data-status>${html(app.status)}</strong></p>
${
  app.status === "Actief"
    ? `<p>Client Identifier: <code data-client-id>${html(app.clientId)}</code><br>Client Secret: <code data-client-secret>${html(app.clientSecret)}</code></p>`
    : `<p class="muted">The operator activates new applications (<code>bawa activate ${html(app.clientId)}</code>); the Client Identifier and Client Secret appear here then.</p>`
}
<form method="post" action="/portal/applications/${encodeURIComponent(app.clientId)}/redirect-uri">
<label>Redirect URI <input name="redirect_uri" value="${html(app.redirectUri)}" required></label>
<button type="submit">Change redirect URI</button>
</form>
<p><a href="/portal">All applications</a></p>`,
    );

  const form = (req: RoutedRequest) => parseParams(req.body?.toString("utf8") ?? "");
  const find = (req: RoutedRequest) => registry.application(req.params.client_id ?? "");
  const notFound = (req: RoutedRequest) =>
    screen(404, "Not found", `<p class="error">No application ${html(req.params.client_id ?? "")}.</p>`);

  return [
    {
      path: "/portal",
      methods: {
        GET: () =>
          screen(
            200,
            "Developer portal",
            `<ul>${registry
              .applications()
              .map(
                (a) =>
                  `<li><a href="/portal/applications/${encodeURIComponent(a.clientId)}">${html(a.name)}</a> (${html(a.status)})</li>`,
              )
              .join("")}</ul>
<h2>Register an application</h2>
<form method="post" action="/portal/applications">
<label>Name <input name="name" required></label>
<label>Redirect URI <input name="redirect_uri" required placeholder="http://localhost:5173/callback"></label>
<button type="submit">Register</button>
</form>`,
          ),
      },
    },
    {
      path: "/portal/applications",
      methods: {
        POST: (req) => {
          const f = form(req);
          const name = single(f, "name");
          const uri = single(f, "redirect_uri");
          const problem = typeof uri === "string" ? redirectUriProblem(uri) : "is missing";
          if (typeof name !== "string" || name.trim() === "" || problem || typeof uri !== "string") {
            return screen(
              400,
              "Registration refused",
              `<p class="error" role="alert">${html(problem ? `The redirect URI ${problem}.` : "The name is missing.")}</p><p><a href="/portal">Back</a></p>`,
            );
          }
          const app = registry.register(name.trim(), uri);
          return { status: 303, headers: { location: `/portal/applications/${encodeURIComponent(app.clientId)}` } };
        },
      },
    },
    {
      path: "/portal/applications/{client_id}",
      methods: {
        GET: (req) => {
          const app = find(req);
          return app ? page(app) : notFound(req);
        },
      },
    },
    {
      path: "/portal/applications/{client_id}/redirect-uri",
      methods: {
        POST: (req) => {
          const app = find(req);
          if (!app) return notFound(req);
          const uri = single(form(req), "redirect_uri");
          const problem = typeof uri === "string" ? redirectUriProblem(uri) : "is missing";
          if (problem || typeof uri !== "string") return { ...page(app, `The redirect URI ${problem}.`), status: 400 };
          registry.changeRedirectUri(app.clientId, uri);
          return { status: 303, headers: { location: `/portal/applications/${encodeURIComponent(app.clientId)}` } };
        },
      },
    },
    {
      // The operator's activation (description: registered → Actief).
      path: "/__mock/applications/{client_id}/activate",
      methods: {
        POST: (req) => {
          const app = registry.activate(req.params.client_id ?? "");
          if (!app)
            return controlJson(404, {
              Message: `No application is registered with client_id ${req.params.client_id}.`,
            });
          return controlJson(200, {
            clientId: app.clientId,
            status: app.status,
            clientSecret: app.clientSecret,
            redirectUri: app.redirectUri,
          });
        },
      },
    },
    {
      path: "/__mock/applications",
      methods: {
        GET: () =>
          controlJson(
            200,
            registry.applications().map(({ clientSecret: _secret, ...a }) => a),
          ),
      },
    },
    {
      // The refresh-token generator for the background user (description, Authentication 8).
      path: "/__mock/refresh-tokens",
      methods: {
        POST: (req) => {
          const body = readControlJson(req) as { clientId?: unknown; clientSecret?: unknown } | undefined;
          if (typeof body?.clientId !== "string" || typeof body.clientSecret !== "string") {
            return controlJson(400, {
              Message: 'Send JSON {"clientId": "...", "clientSecret": "..."} of an active application.',
            });
          }
          const app = registry.activeApplication(body.clientId);
          if (!app || !sameSecret(body.clientSecret, app.clientSecret)) {
            return controlJson(401, { Message: "The application is unknown, not active, or its secret is wrong." });
          }
          const user = registry.user(registry.backgroundUser)!;
          const refreshToken = tokens.issueRefreshToken({
            clientId: app.clientId,
            user: user.username,
            databases: user.databases,
            scope: req.ctx.config.scope,
          });
          return controlJson(200, {
            refresh_token: refreshToken,
            client_id: app.clientId,
            user: user.username,
            databases: user.databases,
            scope: req.ctx.config.scope,
          });
        },
      },
    },
  ];
}
