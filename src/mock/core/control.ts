// The mock's control calls under /__mock/: reset, the movable clock, the
// operator's activation and the background user's refresh-token generator.
// Not part of the contract. They take JSON only and answer only at the mock's
// own address (the `local` guard in app.ts), so no other site can send them.
import type { MockRequest, MockResponse } from "./http.ts";
import { MAX_CLOCK_STEP_SECONDS } from "./limits.ts";
import type { Registry } from "./oauth/registry.ts";
import { sameSecret } from "./oauth/secrets.ts";
import type { TokenStore } from "./oauth/tokens.ts";
import type { Route } from "./router.ts";

/** A JSON answer of the mock's own control calls. */
export function controlJson(status: number, value: unknown): MockResponse {
  return {
    status,
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" },
    body: JSON.stringify(value),
  };
}

/** The JSON body of a control call, or undefined when it is absent or not JSON. */
export function readControlJson(req: MockRequest): unknown {
  try {
    return JSON.parse(req.body?.toString("utf8") || "null") ?? undefined;
  } catch {
    return undefined;
  }
}

export interface ControlParts {
  registry: Registry;
  tokens: TokenStore;
  /** Restores everything but the clock from the seed. */
  reset(): void;
}

export function controlRoutes({ registry, tokens, reset }: ControlParts): Route[] {
  return [
    {
      path: "/__mock/reset",
      local: true,
      methods: {
        POST: (req) => {
          reset();
          return controlJson(200, { reset: true, now: new Date(req.ctx.clock.now()).toISOString() });
        },
      },
    },
    {
      path: "/__mock/clock",
      local: true,
      methods: {
        GET: (req) => controlJson(200, { now: new Date(req.ctx.clock.now()).toISOString() }),
        POST: (req) => {
          const seconds = (readControlJson(req) as { advanceSeconds?: unknown } | undefined)?.advanceSeconds;
          if (typeof seconds !== "number" || !Number.isFinite(seconds) || seconds < 0) {
            return controlJson(400, {
              Message: 'Send JSON {"advanceSeconds": <seconds, 0 or more>}, for example {"advanceSeconds": 7200}.',
            });
          }
          if (seconds > MAX_CLOCK_STEP_SECONDS || !req.ctx.clock.canAdvance(seconds)) {
            return controlJson(400, {
              Message: `advanceSeconds ${seconds} moves the clock too far: at most ${MAX_CLOCK_STEP_SECONDS} (ten years) per call, and not past the year 275759.`,
            });
          }
          req.ctx.clock.advance(seconds);
          return controlJson(200, { now: new Date(req.ctx.clock.now()).toISOString() });
        },
      },
    },
    {
      path: "/__mock/applications",
      local: true,
      methods: {
        GET: () =>
          controlJson(
            200,
            registry.applications().map(({ clientSecret: _secret, ...a }) => a),
          ),
      },
    },
    {
      // The operator's activation (description: registered → Actief).
      path: "/__mock/applications/{client_id}/activate",
      local: true,
      methods: {
        POST: (req) => {
          const app = registry.activate(req.params.client_id ?? "");
          if (!app) {
            return controlJson(404, {
              Message: `No application is registered with client_id ${req.params.client_id}.`,
            });
          }
          const { clientId, status, clientSecret, redirectUri } = app;
          return controlJson(200, { clientId, status, clientSecret, redirectUri });
        },
      },
    },
    {
      // The refresh-token generator for the background user (description, Authentication 8).
      path: "/__mock/refresh-tokens",
      local: true,
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
          const { scope } = req.ctx.config;
          const refreshToken = tokens.issueRefreshToken({
            clientId: app.clientId,
            user: user.username,
            databases: user.databases,
            scope,
          });
          return controlJson(200, {
            refresh_token: refreshToken,
            client_id: app.clientId,
            user: user.username,
            databases: user.databases,
            scope,
          });
        },
      },
    },
  ];
}
