// The mock's control calls under /__mock/: reset, the movable clock, the
// operator's activation, the background user's refresh-token generator, and
// the scenarios of a frontend team (switches, rules, latency, failures, tokens,
// databases) with the request log. Not part of the contract. They take JSON
// only and answer only at the mock's own address (local.ts).

import { detachedText } from "../../contract/index.ts";
import { isoTime, MAX_DATE_MS } from "./clock.ts";
import { FORCEABLE } from "./forced.ts";
import type { MockRequest, MockResponse } from "./http.ts";
import { MAX_CLOCK_STEP_SECONDS } from "./limits.ts";
import type { Registry } from "./oauth/registry.ts";
import { sameSecret } from "./oauth/secrets.ts";
import type { TokenStore } from "./oauth/tokens.ts";
import type { RequestLog } from "./request-log.ts";
import type { Route, RoutedRequest } from "./router.ts";
import { checkRules, DEFAULT_RULES, RULE_NAMES } from "./rules.ts";
import { MAX_DELAY_MS, type Scenarios } from "./scenarios.ts";
import { project, SERVICE_WIDE, type StoredObject } from "./store.ts";

/** A JSON answer of the mock's own control calls. */
export function controlJson(status: number, value: unknown): MockResponse {
  return {
    status,
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" },
    body: JSON.stringify(value),
    ...(status >= 400 ? { meta: { problem: String((value as { Message?: unknown }).Message ?? "") } } : {}),
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

const refuse = (message: string) => controlJson(400, { Message: message });
const objectOf = (req: MockRequest) => {
  const body = readControlJson(req);
  return typeof body === "object" && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
};

export interface ControlParts {
  registry: Registry;
  tokens: TokenStore;
  scenarios: Scenarios;
  log: RequestLog;
  /** Everything back to the start: seed data, applications, scenarios, the clock. */
  reset(): void;
  /** Drops what has expired by `now` (codes, tokens, authorization requests). */
  sweep(now: number): void;
  /** How much each store holds. */
  counts(): Record<string, unknown>;
}

export function controlRoutes({ registry, tokens, scenarios, log, reset, sweep, counts }: ControlParts): Route[] {
  const now = (req: RoutedRequest) => isoTime(req.ctx.clock.now());
  /** Route names a latency or failure may name: the contract's operations, or `*`. */
  const routeNames = (req: RoutedRequest) => [
    "*",
    ...Object.values(req.ctx.contract.doc.paths).flatMap((p) =>
      Object.values(p).flatMap((op) => {
        const id = (op as { operationId?: unknown })?.operationId;
        return typeof id === "string" ? [id] : [];
      }),
    ),
  ];
  const checkRoute = (req: RoutedRequest, route: unknown) => {
    const names = routeNames(req);
    return typeof route === "string" && names.includes(route)
      ? undefined
      : refuse(`route must be one of ${names.join(", ")} (the contract's operationIds).`);
  };
  const scenarioState = (req: RoutedRequest) => ({
    routes: routeNames(req),
    switches: scenarios.switches().map((s) => ({
      name: s.name,
      kind: s.kind,
      what: s.what,
      on: scenarios.isOn(s.name),
      ...(s.breaks ? { breaks: s.breaks } : {}),
    })),
    rules: Object.fromEntries(
      RULE_NAMES.map((name) => [name, { value: scenarios.rules[name], default: DEFAULT_RULES[name] }]),
    ),
    latency: scenarios.state().latency,
    failures: scenarios.state().failures,
    active: scenarios.summary(),
  });
  /** `{"token": "<token or its first characters>"}` or `{"all": true}`. */
  const tokenAction = (act: (token: string, req: RoutedRequest) => boolean, all: (req: RoutedRequest) => number) =>
    ((req) => {
      const body = objectOf(req);
      if (body.all === true) return controlJson(200, { tokens: all(req) });
      // A body that names no token is the caller's mistake (400), not a token that is not there (404).
      if (typeof body.token !== "string" || body.token === "")
        return refuse('Name the token: send {"token": "<the token or its first 10 characters>"} or {"all": true}.');
      const given = body.token;
      const token = tokens.byPrefix(given) ?? given;
      if (!act(token, req)) {
        return controlJson(404, {
          Message: 'No token matches; send {"token": "<the token or its first 10 characters>"} or {"all": true}.',
        });
      }
      return controlJson(200, { tokens: 1 });
    }) satisfies Route["methods"][string];

  return [
    {
      path: "/__mock/reset",
      local: true,
      methods: {
        POST: (req) => {
          reset();
          return controlJson(200, { reset: true, now: now(req) });
        },
      },
    },
    {
      path: "/__mock/clock",
      local: true,
      methods: {
        GET: (req) => controlJson(200, { now: now(req) }),
        POST: (req) => {
          const seconds = objectOf(req).advanceSeconds;
          if (typeof seconds !== "number" || !Number.isFinite(seconds) || seconds < 0) {
            return refuse('Send JSON {"advanceSeconds": <seconds, 0 or more>}, for example {"advanceSeconds": 7200}.');
          }
          if (seconds > MAX_CLOCK_STEP_SECONDS || !req.ctx.clock.canAdvance(seconds)) {
            return refuse(
              `advanceSeconds ${seconds} moves the clock too far: at most ${MAX_CLOCK_STEP_SECONDS} (ten years) per call, and never closer than ten years to the end of the calendar (${isoTime(MAX_DATE_MS)}), so everything the mock issues still expires on a date. POST /__mock/reset sets the clock back to the real time.`,
            );
          }
          req.ctx.clock.advance(seconds);
          // What the jump made expire goes now, as the timer would have dropped it meanwhile.
          sweep(req.ctx.clock.now());
          return controlJson(200, { now: now(req) });
        },
      },
    },
    {
      // What the mock holds, by store: a long-running mock's growth shows here (the bench reads it).
      path: "/__mock/stats",
      local: true,
      methods: { GET: () => controlJson(200, counts()) },
    },
    {
      // Secrets of active applications are shown, as the portal shows them to their owners.
      path: "/__mock/applications",
      local: true,
      methods: {
        GET: () =>
          controlJson(
            200,
            registry
              .applications()
              .map(({ clientSecret, ...a }) => (a.status === "Actief" ? { ...a, clientSecret } : a)),
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
          const { clientId, clientSecret } = objectOf(req);
          if (typeof clientId !== "string" || typeof clientSecret !== "string") {
            return refuse('Send JSON {"clientId": "...", "clientSecret": "..."} of an active application.');
          }
          const app = registry.activeApplication(clientId);
          if (!app || !sameSecret(clientSecret, app.clientSecret)) {
            // The mock's own guarded call, for its operator: it may say which (the token endpoint,
            // the service's, does not). A pending application is what a new registration is.
            const known = registry.application(clientId);
            const named = JSON.stringify(clientId.slice(0, 60));
            const why =
              known === undefined
                ? `No application is registered with client_id ${named}.`
                : !sameSecret(clientSecret, known.clientSecret)
                  ? `The secret is not that of ${named}.`
                  : `The application ${named} is registered but not active (${known.status}): activate it with npx bawa activate ${clientId.slice(0, 60)} or in the portal.`;
            return controlJson(401, { Message: why });
          }
          const user = registry.user(registry.backgroundUser)!;
          const { scope } = req.ctx.config;
          const grant = { clientId: app.clientId, user: user.username, databases: user.databases, scope };
          // The generator counts against the client's refresh tokens like the token endpoint (A-LIMITS).
          const full = tokens.room(app.clientId, ["refresh"], req.ctx.clock.now());
          if (full) {
            const res = controlJson(full.retryAfter === undefined ? 400 : 429, { Message: full.message });
            if (full.retryAfter !== undefined) res.headers["retry-after"] = String(full.retryAfter);
            return res;
          }
          return controlJson(200, {
            refresh_token: tokens.issueRefreshToken(grant),
            client_id: app.clientId,
            user: user.username,
            databases: user.databases,
            scope,
          });
        },
      },
    },
    {
      path: "/__mock/scenarios",
      local: true,
      methods: { GET: (req) => controlJson(200, scenarioState(req)) },
    },
    {
      path: "/__mock/scenarios/{name}",
      local: true,
      methods: {
        POST: (req) => {
          const on = objectOf(req).on;
          if (typeof on !== "boolean") return refuse('Send JSON {"on": true} or {"on": false}.');
          const name = req.params.name ?? "";
          if (!scenarios.switches().some((s) => s.name === name)) {
            return controlJson(404, {
              Message: `There is no switch ${name}; GET /__mock/scenarios lists them.`,
            });
          }
          scenarios.set(name, on);
          return controlJson(200, scenarioState(req));
        },
      },
    },
    {
      path: "/__mock/rules",
      local: true,
      methods: {
        GET: (req) => controlJson(200, scenarioState(req).rules),
        POST: (req) => {
          const checked = checkRules(readControlJson(req));
          if (!checked.ok) return refuse(checked.message);
          scenarios.setRules(checked.rules);
          return controlJson(200, scenarioState(req));
        },
      },
    },
    {
      path: "/__mock/latency",
      local: true,
      methods: {
        POST: (req) => {
          const { route, ms } = objectOf(req);
          const bad = checkRoute(req, route);
          if (bad) return bad;
          if (typeof ms !== "number" || !Number.isInteger(ms) || ms < 0 || ms > MAX_DELAY_MS) {
            return refuse(`ms is a whole number of milliseconds from 0 (none) to ${MAX_DELAY_MS}.`);
          }
          scenarios.setLatency(route as string, ms);
          return controlJson(200, scenarioState(req));
        },
      },
    },
    {
      path: "/__mock/failures",
      local: true,
      methods: {
        POST: (req) => {
          const { route, status, count } = objectOf(req);
          const bad = checkRoute(req, route);
          if (bad) return bad;
          if (typeof status !== "number" || !FORCEABLE.includes(status)) {
            return refuse(`status is one of ${FORCEABLE.join(", ")}.`);
          }
          if (typeof count !== "number" || !Number.isInteger(count) || count < 0 || count > 1000) {
            return refuse("count is how many of the next answers fail: a whole number from 0 (none) to 1000.");
          }
          scenarios.failNext(route as string, status, count);
          return controlJson(200, scenarioState(req));
        },
      },
    },
    {
      path: "/__mock/tokens",
      local: true,
      methods: { GET: (req) => controlJson(200, tokens.list(req.ctx.clock.now())) },
    },
    {
      path: "/__mock/tokens/expire",
      local: true,
      methods: {
        POST: tokenAction(
          (token, req) => tokens.expire(token, req.ctx.clock.now()),
          (req) => tokens.expireAll(req.ctx.clock.now()),
        ),
      },
    },
    {
      path: "/__mock/tokens/revoke",
      local: true,
      methods: {
        POST: tokenAction(
          (token, req) => tokens.revoke(token, req.ctx.clock.now()),
          (req) => tokens.revokeAll(req.ctx.clock.now()),
        ),
      },
    },
    requestLogRoute(log),
    {
      // The contract's resources as the mock serves them (src/contract/resources.ts).
      path: "/__mock/resources",
      local: true,
      methods: { GET: (req) => controlJson(200, resourcesOf(req)) },
    },
    {
      path: "/__mock/databases",
      local: true,
      methods: { GET: (req) => controlJson(200, req.ctx.store.databases()) },
    },
    {
      path: "/__mock/databases/{database_id}/reset",
      local: true,
      methods: {
        POST: (req) => {
          const db = req.params.database_id ?? "";
          if (!req.ctx.store.hasDatabase(db)) {
            const known = req.ctx.store.databases().map((d) => d.database);
            return controlJson(404, {
              Message: `There is no database ${db.slice(0, 60)}; the databases are: ${known.join(", ")}.`,
            });
          }
          req.ctx.store.reset(db);
          return controlJson(200, {
            reset: db,
            objects: req.ctx.store.databases().find((d) => d.database === db)?.objects ?? {},
          });
        },
      },
    },
    {
      // The objects of a collection of the whole service (not kept per database).
      path: "/__mock/objects/{collection}",
      local: true,
      methods: {
        GET: (req) => {
          const c = collectionNamed(req, req.params.collection ?? "");
          if (!c) return unknownCollection(req);
          if (c.databaseScoped) {
            return controlJson(404, {
              Message: `${c.name} is kept per database: GET /__mock/databases/<database>/${c.name}.`,
            });
          }
          const columns = summaryColumns(req, c.name);
          return controlJson(
            200,
            req.ctx.store.list(c.name, SERVICE_WIDE).map((o: StoredObject) => project(o, columns)),
          );
        },
      },
    },
    {
      // The objects of one collection in one database, as rows of its summary columns.
      path: "/__mock/databases/{database_id}/{collection}",
      local: true,
      methods: {
        GET: (req) => {
          const c = collectionNamed(req, req.params.collection ?? "");
          if (!c) return unknownCollection(req);
          const columns = summaryColumns(req, c.name);
          const db = req.params.database_id ?? "";
          return controlJson(
            200,
            req.ctx.store.list(c.name, db).map((o: StoredObject) => project(o, columns)),
          );
        },
      },
    },
  ];
}

/**
 * GET /__mock/requests (`?after=<id>`): the request log after that id, for the dashboard and for
 * tools (the mock's, bawa proxy's). `totals` adds figures of everything answered
 * since the start, not only of the entries kept (bawa proxy: how many answers it judged, how many
 * broke a rule), so a page that saw none of the older entries still says what happened.
 */
export function requestLogRoute(log: RequestLog, totals?: () => Record<string, number>): Route {
  return {
    path: "/__mock/requests",
    local: true,
    methods: {
      GET: (req) => {
        const after = Number(req.query.get("after")?.[0] ?? 0);
        const entries = log.since(Number.isFinite(after) ? after : 0);
        return controlJson(200, { size: log.size, entries, ...totals?.() });
      },
    },
  };
}

/** A collection by its name or a resource's, without case, a plural "s" allowed (`customers`). */
export function collectionNamed(req: RoutedRequest, name: string) {
  const want = name.toLowerCase();
  return req.ctx.contract.resources.collections.find((c) =>
    [c.name, ...c.resources].some((n) => [n.toLowerCase(), `${n.toLowerCase()}s`].includes(want)),
  );
}

const unknownCollection = (req: RoutedRequest) =>
  controlJson(404, {
    Message: `No such resource; the collections are: ${req.ctx.contract.resources.collections.map((c) => c.name).join(", ")}.`,
  });

/**
 * The columns a collection's objects show in the dashboard: the properties of the first list
 * that projects it (its info fields), else its own first eight properties.
 */
function summaryColumns(req: RoutedRequest, collection: string): readonly string[] {
  const { resources } = req.ctx.contract;
  const c = resources.collection(collection)!;
  const projection = resources.operations.find(
    (o) => o.collection === c && o.action === "list" && o.view.schema !== c.schema,
  );
  return projection?.view.properties ?? c.properties.slice(0, 8);
}

/** What GET /__mock/resources answers: each resource, its kind, its data and its operations. */
function resourcesOf(req: RoutedRequest) {
  const { resources } = req.ctx.contract;
  return {
    resources: [...resources.resources].map(([name, r]) => ({
      name,
      kind: r.kind,
      collection: r.collection.name,
      perDatabase: r.collection.databaseScoped,
      operations: r.operations.map((o) => ({ operationId: o.operationId, method: o.method, path: o.path })),
    })),
    collections: resources.collections.map((c) => ({
      name: c.name,
      editable: c.editable,
      perDatabase: c.databaseScoped,
      idProperty: c.idProperty ?? null,
      columns: summaryColumns(req, c.name),
      total: req.ctx.store.totals()[c.name] ?? 0,
    })),
    notServed: resources.unsupported,
    // Lists and info objects that show read-only data of their own where an editable resource's was likely meant.
    detached: resources.detached.map((d) => ({ ...d, text: detachedText(d) })),
  };
}
