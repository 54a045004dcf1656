// The resources of the contract, served from the resource model: one handler
// per operation, a pure function of (request, state, clock). Nothing here knows
// a resource by name; what each one is (kind, id, database, dates, shapes) is
// read from openapi.yaml by src/contract/resources.ts.

import type { OpenApiDocument } from "../../contract/contract.ts";
import {
  type Collection,
  type CompiledContract,
  isXmlChar,
  type Operation,
  type Problem,
  type ResourceModel,
} from "../../contract/index.ts";
import { bindProperties } from "../../rules/binding.ts";
import { propertiesOf, requiredOfWrite, valueFor } from "../../rules/bodies.ts";
import type { AnswerCode } from "./answer-codes.ts";
import { type AccessGrant, challenge, checkBearer, quotable, REALM } from "./bearer.ts";
import { exampleHandler } from "./examples.ts";
import { answer, bodyFormat, decodeBody, PLAIN_XML_TEXT, problem } from "./format.ts";
import { encodedOf, type MockResponse } from "./http.ts";
import { applyListQuery, parseListQuery } from "./list-query.ts";
import type { Handler, Route, RoutedRequest } from "./router.ts";
import type { Rules } from "./rules.ts";
import { project, SERVICE_WIDE, type StoredObject } from "./store.ts";

/** Answer codes of the resource operations (AnswerMeta.code): what happened, whatever the resource. */
export type ResourceCode = Extract<AnswerCode, `resource.${string}`>;

/** Who calls when the rule requireAccessToken is off: nobody in particular, with every database. */
const ANONYMOUS: AccessGrant = { user: "(no token)", clientId: "(none)", databases: ["*"] };

/** The handler of one operation of the resource model. */
export function resourceHandler(op: Operation): Handler {
  switch (op.action) {
    case "list":
      return withAccess(op, listObjects(op));
    case "read":
      return withAccess(op, readObject(op));
    case "create":
      return withAccess(op, createObject(op));
    case "update":
      return withAccess(op, updateObject(op));
    case "delete":
      return withAccess(op, deleteObject(op));
  }
}

type Next = (req: RoutedRequest, db: string, grant: AccessGrant) => MockResponse;

/**
 * Runs `next` only for a valid token and, on a path with a database segment, only when its
 * user may use the database in the path (Errors rule 4, A-DATABASE-ACCESS). The answer names
 * client, user, database and resource.
 */
function withAccess(op: Operation, next: Next): Handler {
  return (req) => {
    const { ctx } = req;
    const { rules } = ctx;
    // The fault expired-accepted-on-writes judges a write's token as at the epoch, when none had expired.
    const at = op.method !== "GET" && !rules.accessTokensExpireOnWrites ? 0 : ctx.clock.now();
    const bearer = checkBearer(req.headers.authorization, ctx.tokens, at, rules.bearerSchemeCaseInsensitive);
    let grant: AccessGrant;
    if (bearer.kind === "granted") grant = bearer.grant;
    else if (bearer.kind === "missing" && !rules.requireAccessToken) grant = ANONYMOUS;
    else if (bearer.kind === "missing") {
      return denied(
        req,
        op,
        "Authorization has been denied for this request: no access token was sent.",
        "auth.missing-token",
        challenge(bearer),
      );
    } else {
      return denied(
        req,
        op,
        `Authorization has been denied for this request: ${bearer.description}.`,
        "auth.invalid-token",
        challenge(bearer),
      );
    }
    if (op.databaseParam === undefined) return named(next(req, SERVICE_WIDE, grant), op, grant, undefined);
    let db = req.params[op.databaseParam] ?? "";
    if (db.trim() === "") {
      if (rules.requireDatabase) {
        const res = denied(
          req,
          op,
          "No database is given: put the database id after /api/.",
          "auth.no-database",
          challenge({ kind: "missing" }),
        );
        return named(res, op, grant, undefined);
      }
      db = grant.databases.find((d) => d !== "*") ?? "DEMO";
    }
    if (!grant.databases.includes(db) && !grant.databases.includes("*")) {
      const res = denied(
        req,
        op,
        `The user of this token may not use database ${db}; it may use ${grant.databases.join(", ")}.`,
        "auth.database-forbidden",
        `Bearer realm="${REALM}", error="insufficient_scope", error_description="${quotable(`no access to database ${db}`)}"`,
      );
      return named(res, op, grant, db);
    }
    return named(next(req, db, grant), op, grant, db);
  };
}

/** A 401 of the resource server, with the Bearer challenge unless the rule bearerChallenge is off. */
const denied = (req: RoutedRequest, op: Operation, message: string, code: AnswerCode, challengeHeader: string) => {
  const res = problem(
    req,
    401,
    message,
    [],
    req.ctx.rules.bearerChallenge ? { "www-authenticate": challengeHeader } : undefined,
    { code },
  );
  res.meta!.resource = op.resource;
  return res;
};

/** Names the caller, the resource and the database in the answer's meta (its own: handlers make it fresh). */
function named(res: MockResponse, op: Operation, grant: AccessGrant, db: string | undefined): MockResponse {
  res.meta ??= {};
  const { meta } = res;
  meta.client = grant.clientId;
  meta.user = grant.user;
  meta.resource = op.resource;
  if (db !== undefined && db !== SERVICE_WIDE) meta.database = db;
  return res;
}

const notFound = (req: RoutedRequest, op: Operation, db: string, id: string) =>
  problem(
    req,
    404,
    `No ${op.collection.name} with id ${id} exists${db === SERVICE_WIDE ? "" : ` in database ${db}`}.`,
    [],
    {},
    { code: "resource.not-found" satisfies ResourceCode },
  );

/** A list: the collection's objects as the list's items show them, with the OData list parameters. */
// The fault stale-list: the first list of a collection is kept for good, as a cache that no
// write clears would: objects created after it never show, deleted ones stay (only a sequence
// of calls shows it). Kept per store, so a reset mock starts without it.
const staleLists = new WeakMap<object, Map<string, readonly StoredObject[]>>();
function staleList(store: object, key: string, fresh: readonly StoredObject[]): readonly StoredObject[] {
  let lists = staleLists.get(store);
  if (!lists) {
    lists = new Map();
    staleLists.set(store, lists);
  }
  if (!lists.has(key)) lists.set(key, [...fresh]);
  return lists.get(key)!;
}

function listObjects(op: Operation): Next {
  const { collection: c, view } = op;
  const whole = view.properties.length === c.properties.length && view.schema === c.schema;
  const item = whole
    ? (o: StoredObject) => o as Record<string, unknown>
    : (o: StoredObject) => project(o, view.properties);
  // A list of the whole service whose items name databases shows those the user may open (x-bawa-database).
  const byDatabase = !c.databaseScoped ? c.databaseProperty : undefined;
  return (req, db, grant) => {
    const { store, rules } = req.ctx;
    const parsed = parseListQuery(req.query, view.properties);
    if (!parsed.ok) return problem(req, 400, parsed.message, [], {}, { code: "query.invalid" });
    const { query } = parsed;
    const open = byDatabase === undefined || grant.databases.includes("*") ? undefined : new Set(grant.databases);
    const scope = open ? `:${[...open].join(",")}` : "";
    // The objects in order, kept until the next write: a page is then a slice of them.
    const fresh = store.memo(c.name, db, `objects${scope}`, () => {
      const objects = store.list(c.name, db);
      return open ? objects.filter((o) => open.has(String(o[byDatabase!]))) : objects;
    });
    const all = rules.listFollowsWrites ? fresh : staleList(store, `${c.name}\u0000${db}${scope}`, fresh);
    const list = () =>
      answer(
        req,
        200,
        op.answers,
        applyListQuery(all, query, item),
        {},
        { code: "resource.list" satisfies ResourceCode },
      );
    const everything = !query.filter && !query.orderBy && query.skip === undefined && query.top === undefined;
    if (!everything) return list();
    // The whole list, encoded once per format until the next write, kept as bytes as well as text.
    // Its items (10 MB at 100,000 objects) are not kept: the scenarios that reshape the list
    // from them make them again.
    const cached = store.memo(c.name, db, `list:${req.format.mediaType}:${rules.jsonNames}${scope}`, () => {
      const res = list();
      return {
        status: res.status,
        headers: res.headers,
        body: res.body!,
        encoded: encodedOf(res.body!),
        makeValue: () => applyListQuery(all, query, item),
        schema: res.meta!.schema!,
        format: res.meta!.format!,
      };
    });
    // Each answer is its own object (the steps after the handler name caller and route in its
    // meta); the text, the bytes and the headers are the cached ones.
    return {
      status: cached.status,
      headers: { ...cached.headers },
      body: cached.body,
      encoded: cached.encoded,
      meta: {
        code: "resource.list" satisfies ResourceCode,
        makeValue: cached.makeValue,
        schema: cached.schema,
        format: cached.format,
      },
    };
  };
}

function readObject(op: Operation): Next {
  const { collection: c, view } = op;
  const whole = view.schema === c.schema;
  return (req, db) => {
    const id = req.params[op.idParam!]!;
    const o = req.ctx.store.get(c.name, db, id);
    if (!o) return notFound(req, op, db, id);
    const value = whole ? o : project(o, view.properties);
    return answer(
      req,
      200,
      view.schema,
      value,
      undefined,
      { code: "resource.read" satisfies ResourceCode },
      { keep: whole },
    );
  };
}

/** A write the store can not take (a cap of A-LIMITS, the process's memory): 400 naming why. */
const refused = (req: RoutedRequest, field: string, reason: string) =>
  problem(
    req,
    400,
    "The request is invalid.",
    [{ field, message: reason }],
    {},
    {
      code: "resource.refused" satisfies ResourceCode,
    },
  );

function createObject(op: Operation): Next {
  const c = op.collection;
  return (req, db) => {
    const input = readBody(req, op, db);
    if (!input.ok) return input.response;
    const full = req.ctx.room?.(req.body?.length ?? 0);
    if (full !== undefined) return refused(req, "", full);
    const created = req.ctx.store.create(c.name, db, input.object);
    if (!created.ok) return refused(req, created.field, created.reason);
    return stored(req, c.schema, created.object, sentInVain(input, created.object), "resource.created");
  };
}

/**
 * The answer to a write: the object as stored (A-WRITE-RESPONSE), naming what the body sent in
 * vain. Its text is not kept with the object (a read keeps it): most written objects are not read
 * soon, and keeping text for each made every write cost the collector more.
 */
const stored = (req: RoutedRequest, schema: string, o: StoredObject, ignored: readonly string[], code: ResourceCode) =>
  answer(req, 200, schema, o, ignoredHeader(ignored), { code, ignored });

function updateObject(op: Operation): Next {
  const c = op.collection;
  return (req, db) => {
    const id = req.params[op.idParam!]!;
    const input = readBody(req, op, db, id);
    if (!input.ok) return input.response;
    const full = req.ctx.room?.(req.body?.length ?? 0);
    if (full !== undefined) return refused(req, "", full);
    const { store, rules } = req.ctx;
    const before = rules.putFillsDefaults ? undefined : store.get(c.name, db, id);
    // Without the rule, what the body left out keeps the value it had (a merge, not a replace).
    const object = before
      ? project({ ...input.object, ...omitted(before, input.sent ?? []) }, c.request!.properties)
      : input.object;
    const updated = rules.putChanges ? store.replace(c.name, db, id, object) : store.get(c.name, db, id);
    if (!updated) return notFound(req, op, db, id);
    return stored(req, c.schema, updated, sentInVain(input, updated), "resource.updated");
  };
}

/** The properties of a stored object that a body did not send. */
function omitted(o: StoredObject, sent: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (!sent.includes(k)) out[k] = v;
  return out;
}

function deleteObject(op: Operation): Next {
  const c = op.collection;
  return (req, db) => {
    const id = req.params[op.idParam!]!;
    const { store, rules } = req.ctx;
    const found = rules.deleteRemoves ? store.delete(c.name, db, id) : store.get(c.name, db, id) !== undefined;
    if (!found) return notFound(req, op, db, id);
    return {
      status: 200,
      headers: { "content-length": "0" },
      meta: { code: "resource.deleted" satisfies ResourceCode },
    };
  };
}

type Read =
  | {
      ok: true;
      object: Record<string, unknown>;
      ignored: readonly string[];
      /** Values the body gave for properties the service sets itself (sequences, the database). */
      given: ReadonlyArray<readonly [string, unknown]>;
      /** The properties the body sent, where a rule that is off by default needs them. */
      sent?: readonly string[];
    }
  | { ok: false; response: MockResponse };

/**
 * What the answer names as sent in vain: the properties that bound to nothing, and those the
 * service set itself whose value the body gave otherwise (`OrganizationId`, `Database`), so a value
 * replaced is never replaced silently.
 */
function sentInVain(input: Extract<Read, { ok: true }>, stored: StoredObject): readonly string[] {
  if (input.given.length === 0) return input.ignored;
  const replaced = input.given.filter(([k, v]) => v !== stored[k]).map(([k]) => k);
  return replaced.length === 0 ? input.ignored : [...input.ignored, ...replaced];
}

/**
 * Decodes and validates a body against the collection's request schema, filling in defaults
 * (A-DEFAULTS). On PUT, `pathId` is the id of the path (A-PUT-ID). A property holding the
 * database (`x-bawa-database`) is the path's database.
 */
function readBody(req: RoutedRequest, op: Operation, db: string, pathId?: string): Read {
  const { contract, rules } = req.ctx;
  const c = op.collection;
  const request = c.request!;
  const idProperty = c.idProperty!;
  const decoded = decodeBody(req, req.headers["content-type"], req.body, request.schema);
  if (!decoded.ok) return decoded;
  const invalid = (message: string, problems: Problem[] = [], ignored: readonly string[] = []): Read => ({
    ok: false,
    response: problem(req, 400, message, problems, ignoredHeader(ignored), { code: "body.invalid", ignored }),
  });
  const body = decoded.value;
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return invalid(`The request body must be one ${c.name} object.`);
  }
  const fields = request.properties;
  const json = bodyFormat(req.headers["content-type"])?.kind === "json";
  const bound = bindProperties(body as Record<string, unknown>, fields, c.nested, json);
  if (bound.problems.length > 0) return invalid("The request is invalid.", bound.problems, bound.ignored);
  const raw = bound.value;
  const given = givenOf(raw, c.serviceSet);
  // What was sent, before defaults fill the rest: only the rules that are off by default read it.
  const sent = rules.acceptAllProperties && rules.fillDefaults && rules.putFillsDefaults ? undefined : Object.keys(raw);
  if (!rules.acceptAllProperties && sent!.length === fields.length) {
    return invalid("The request body has too many properties.");
  }
  if (pathId !== undefined && raw[idProperty] === undefined) raw[idProperty] = c.idIsNumber ? Number(pathId) : pathId;
  // A planted fault of an update path that skips the create's checks: a replacement fitted as both rules off fit.
  const held = pathId !== undefined && !rules.validateReplacements ? LOOSE : rules;
  if (!held.enforceRequired || !held.refuseOutOfDomain) loosen(raw, contract, c, held);
  let problems = contract.requests.check(request.schema, raw);
  if (decoded.lost.length > 0) problems = withLost(problems, decoded.lost, bound.ignored);
  if (problems.length === 0) {
    writeDates(raw, c.dateProperties);
    if (!decoded.plain) problems.push(...notXmlText(raw));
  }
  if (pathId !== undefined && raw[idProperty] !== undefined && String(raw[idProperty]) !== pathId) {
    problems.push({ field: idProperty, message: `must be ${JSON.stringify(pathId)}, the id in the path` });
  }
  if (problems.length > 0) return invalid("The request is invalid.", problems, bound.ignored);
  if (c.databaseProperty !== undefined && db !== SERVICE_WIDE) raw[c.databaseProperty] = db;
  // Without the default-value rule, only what was sent (plus the identifier) is kept.
  const kept = rules.fillDefaults ? fields : fields.filter((k) => sent!.includes(k) || k === idProperty);
  // The stored object holds the contract's properties in its order: a body that has just those,
  // in that order, is stored as it is.
  return {
    ok: true,
    object: inOrder(raw, kept) ? raw : project(raw, kept),
    ignored: bound.ignored,
    given,
    ...(sent ? { sent } : {}),
  };
}

const LOOSE = { enforceRequired: false, refuseOutOfDomain: false } as const;

/**
 * What a planted fault accepts instead of refusing, before the schema is checked: a required
 * property left out that has no default gets a value made from its schema (`enforceRequired` off); a text over its
 * maxLength is cut to it and a value its enum does not list becomes the first it does
 * (`refuseOutOfDomain` off). The id and what the service sets itself keep their own rules.
 */
function loosen(
  raw: Record<string, unknown>,
  contract: CompiledContract,
  c: Collection,
  rules: Pick<Rules, "enforceRequired" | "refuseOutOfDomain">,
): void {
  const schema = c.request!.schema;
  const props = propertiesOf(contract, schema);
  // What a write must give (a required property with a default is filled in with it, as always).
  if (!rules.enforceRequired) {
    for (const k of requiredOfWrite(contract, c)) if (raw[k] === undefined) raw[k] = valueFor(props[k] ?? {});
  }
  if (rules.refuseOutOfDomain) return;
  const own = new Set([c.idProperty, ...c.serviceSet.map((s) => s.name)]);
  for (const [k, p] of Object.entries(props)) {
    const v = raw[k];
    if (own.has(k) || v === undefined || v === null) continue;
    if (p.enum && !p.enum.includes(v)) raw[k] = p.enum.find((e) => e !== null);
    else if (typeof v === "string" && p.maxLength !== undefined && v.length > p.maxLength)
      raw[k] = v.slice(0, p.maxLength);
  }
}

/**
 * A body's problems with those of its numbers the mock would not keep as sent (`lost`, numbers.ts)
 * first: what the number would have become says more than the schema's view of it, which follows
 * (1e400, read as Infinity, is "not of type number" to it). A number in a property the binding
 * ignored is not stored, so not refused; names compare without case, as a JSON body's bind.
 */
function withLost(problems: Problem[], lost: readonly Problem[], ignored: readonly string[]): Problem[] {
  const skipped = ignored.map((i) => i.toLowerCase());
  const kept = lost.filter((p) => {
    const field = p.field.toLowerCase();
    return !skipped.some((i) => field === i || field.startsWith(`${i}.`));
  });
  return kept.length === 0 ? problems : [...kept, ...problems];
}

const NOTHING_GIVEN: ReadonlyArray<readonly [string, unknown]> = Object.freeze([]);
/** The values a body gave for the properties the service sets, other than the value that leaves them to it. */
function givenOf(
  raw: Record<string, unknown>,
  serviceSet: Collection["serviceSet"],
): ReadonlyArray<readonly [string, unknown]> {
  let out: Array<readonly [string, unknown]> | undefined;
  for (const { name, unset } of serviceSet) {
    const v = raw[name];
    if (v === undefined || v === null || v === unset) continue;
    out ??= [];
    out.push([name, v]);
  }
  return out ?? NOTHING_GIVEN;
}

/** Whether an object's own properties are exactly `keys`, in that order. */
function inOrder(o: Record<string, unknown>, keys: readonly string[]): boolean {
  let i = 0;
  for (const k in o) if (k !== keys[i++]) return false;
  return i === keys.length;
}

/** `X-Bawa-Ignored-Properties`: what a body sent that bound to no field, so a typo shows at once. */
export function ignoredHeader(ignored: readonly string[]): Record<string, string> {
  if (ignored.length === 0) return {};
  const names = ignored.slice(0, 20).map((n) => quotable(n, 60).replaceAll(",", "%2C"));
  return { "x-bawa-ignored-properties": `${names.join(", ")}${ignored.length > 20 ? ", ..." : ""}` };
}

/**
 * Strings XML 1.0 can not carry (control characters, lone surrogates) are
 * refused with the field, so nothing is stored that one of the two formats
 * could not give back (decision 0009).
 */
// Most text is only characters XML 1.0 certainly carries (PLAIN_XML_TEXT), and then nothing needs
// to be looked at one code point at a time.
const NO_PROBLEMS = Object.freeze([]) as unknown as Problem[];

function notXmlText(value: unknown, field = ""): Problem[] {
  if (typeof value === "string") {
    if (PLAIN_XML_TEXT.test(value)) return [];
    for (const ch of value) {
      const cp = ch.codePointAt(0)!;
      if (!isXmlChar(cp)) {
        const hex = cp.toString(16).toUpperCase().padStart(4, "0");
        return [{ field, message: `contains the character U+${hex}, which XML can not carry; leave it out` }];
      }
    }
    return [];
  }
  if (typeof value !== "object" || value === null) return [];
  let out: Problem[] | undefined;
  for (const k in value) {
    const v = (value as Record<string, unknown>)[k];
    if (v === null || typeof v === "number" || typeof v === "boolean") continue;
    if (typeof v === "string" && PLAIN_XML_TEXT.test(v)) continue;
    const found = notXmlText(v, field ? `${field}.${k}` : k);
    if (found.length === 0) continue;
    out ??= [];
    out.push(...found);
  }
  return out ?? NO_PROBLEMS;
}

/** A-DATES: a valid month/day/year date (the schema's format checked it) is stored as MM/dd/yyyy. */
function writeDates(o: Record<string, unknown>, dates: readonly string[]): void {
  for (const field of dates) {
    const v = o[field];
    // Ten characters of a valid date are MM/dd/yyyy already.
    if (typeof v !== "string" || v.length === 10) continue;
    const [m, d, y] = v.split("/");
    o[field] = `${m!.padStart(2, "0")}/${d!.padStart(2, "0")}/${y!.padStart(4, "0")}`;
  }
}

/**
 * The routes of the data API: every path of the resource model with a handler per operation,
 * and the operations outside the result kinds, answered from the contract's examples or schemas
 * (examples.ts): every operation of the contract is answered as declared, never a silent 404.
 */
export function resourceRoutes(model: ResourceModel, doc: OpenApiDocument): Route[] {
  const routes: Route[] = model.paths.map((p) => ({
    path: p.path,
    operations: p.operations,
    methods: Object.fromEntries(
      Object.entries(p.operations).map(([method, op]) => [method, resourceHandler(op as Operation)]),
    ),
  }));
  for (const u of model.unsupported) {
    let route = routes.find((r) => r.path === u.path);
    if (!route) {
      // A data route (operations given, none of the model's): Prefer: code= and scenarios work on it.
      route = { path: u.path, methods: {}, operations: {} };
      routes.push(route);
    }
    (route.methods as Record<string, Handler>)[u.method] = exampleHandler(doc, u);
  }
  return routes;
}
