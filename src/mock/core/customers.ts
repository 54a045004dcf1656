// The customer resource: pure handlers of (request, state, clock).
import { isXmlChar, type Problem } from "../../contract/index.ts";
import { type AccessGrant, challenge, checkBearer, quotable, REALM } from "./bearer.ts";
import { bindProperties } from "./binding.ts";
import { answer, bodyFormat, decodeBody, problem } from "./format.ts";
import type { MockResponse } from "./http.ts";
import { applyListQuery, parseListQuery } from "./list-query.ts";
import type { Handler, RoutedRequest } from "./router.ts";
import { type Customer, INFO_FIELDS, infoOf } from "./store.ts";

/** Who calls when the rule requireAccessToken is off: nobody in particular, with every database. */
const ANONYMOUS: AccessGrant = { user: "(no token)", clientId: "(none)", databases: ["*"] };

/**
 * Runs `next` only for a valid token whose user may use the database in the
 * path (Errors rule 4, A-DATABASE-ACCESS); the answer names client, user and database.
 */
function withDatabase(next: (req: RoutedRequest, db: string, grant: AccessGrant) => MockResponse): Handler {
  return (req) => {
    const { ctx } = req;
    const { rules } = ctx;
    const bearer = checkBearer(
      req.headers.authorization,
      ctx.tokens,
      ctx.clock.now(),
      rules.bearerSchemeCaseInsensitive,
    );
    const denied = (message: string, code: string, header: string) =>
      problem(req, 401, message, [], rules.bearerChallenge ? { "www-authenticate": header } : {}, { code });
    let grant: AccessGrant;
    if (bearer.kind === "granted") grant = bearer.grant;
    else if (bearer.kind === "missing" && !rules.requireAccessToken) grant = ANONYMOUS;
    else if (bearer.kind === "missing") {
      return denied(
        "Authorization has been denied for this request: no access token was sent.",
        "auth.missing-token",
        challenge(bearer),
      );
    } else {
      return denied(
        `Authorization has been denied for this request: ${bearer.description}.`,
        "auth.invalid-token",
        challenge(bearer),
      );
    }
    const who = { client: grant.clientId, user: grant.user };
    let db = req.params.database_id ?? "";
    if (db.trim() === "") {
      if (rules.requireDatabase) {
        const res = denied(
          "No database is given: put the database id after /api/.",
          "auth.no-database",
          challenge({ kind: "missing" }),
        );
        return { ...res, meta: { ...res.meta, ...who } };
      }
      db = grant.databases.find((d) => d !== "*") ?? "DEMO";
    }
    if (!grant.databases.includes(db) && !grant.databases.includes("*")) {
      const res = denied(
        `The user of this token may not use database ${db}.`,
        "auth.database-forbidden",
        `Bearer realm="${REALM}", error="insufficient_scope", error_description="${quotable(`no access to database ${db}`)}"`,
      );
      return { ...res, meta: { ...res.meta, ...who, database: db } };
    }
    const res = next(req, db, grant);
    return { ...res, meta: { ...res.meta, ...who, database: db } };
  };
}

const notFound = (req: RoutedRequest, db: string, id: string) =>
  problem(req, 404, `No customer with id ${id} exists in database ${db}.`, [], {}, { code: "customer.not-found" });

export const listCustomers: Handler = withDatabase((req, db) => {
  const { store, rules } = req.ctx;
  const parsed = parseListQuery(req.query, INFO_FIELDS);
  if (!parsed.ok) return problem(req, 400, parsed.message, [], {}, { code: "query.invalid" });
  const { query } = parsed;
  // The customers in order, kept until the next write: a page is then a slice of them.
  const all = store.memo(db, "customers", () => store.list(db));
  const list = () =>
    answer(req, 200, "CustomerInfoList", applyListQuery(all, query, infoOf), {}, { code: "customer.list" });
  const whole = !query.filter && !query.orderBy && query.skip === undefined && query.top === undefined;
  if (!whole) return list();
  // The whole list, encoded once per format until the next write, kept as bytes as well as text.
  // Its info objects (10 MB at 100,000 customers) are not kept: the scenarios that reshape the
  // list from them make them again.
  return store.memo(db, `list:${req.format.mediaType}:${rules.jsonNames}`, () => {
    const res = list();
    if (res.body === undefined) return res;
    const { value: _made, ...meta } = res.meta ?? {};
    return {
      ...res,
      meta: { ...meta, makeValue: () => applyListQuery(all, query, infoOf) },
      encoded: { text: res.body, bytes: Buffer.from(res.body) },
    };
  });
});

export const getCustomer: Handler = withDatabase((req, db) => {
  const id = req.params.customer_id!;
  const customer = req.ctx.store.get(db, id);
  return customer ? answer(req, 200, "Customer", customer, {}, { code: "customer.read" }) : notFound(req, db, id);
});

export const createCustomer: Handler = withDatabase((req, db) => {
  const input = readCustomer(req);
  if (!input.ok) return input.response;
  const created = req.ctx.store.create(db, input.customer);
  if (!created.ok) {
    return problem(
      req,
      400,
      "The request is invalid.",
      [{ field: created.field, message: created.reason }],
      {},
      {
        code: "customer.refused",
      },
    );
  }
  return answer(req, 200, "Customer", created.customer, ignoredHeader(input.ignored), {
    code: "customer.created",
    ignored: input.ignored,
  });
});

export const updateCustomer: Handler = withDatabase((req, db) => {
  const id = req.params.customer_id!;
  const input = readCustomer(req, id);
  if (!input.ok) return input.response;
  const { store, rules } = req.ctx;
  const updated = rules.putChanges ? store.replace(db, id, input.customer) : store.get(db, id);
  if (!updated) return notFound(req, db, id);
  return answer(req, 200, "Customer", updated, ignoredHeader(input.ignored), {
    code: "customer.updated",
    ignored: input.ignored,
  });
});

export const deleteCustomer: Handler = withDatabase((req, db) => {
  const id = req.params.customer_id!;
  const { store, rules } = req.ctx;
  const found = rules.deleteRemoves ? store.delete(db, id) : store.get(db, id) !== undefined;
  if (!found) return notFound(req, db, id);
  return { status: 200, headers: { "content-length": "0" }, meta: { code: "customer.deleted" } };
});

type Read = { ok: true; customer: Customer; ignored: readonly string[] } | { ok: false; response: MockResponse };

/**
 * Decodes and validates a customer body against the contract, filling in
 * defaults (A-DEFAULTS). On PUT, `pathId` is the id of the path (A-PUT-ID).
 */
function readCustomer(req: RoutedRequest, pathId?: string): Read {
  const { contract, rules } = req.ctx;
  const decoded = decodeBody(req, req.headers["content-type"], req.body, "CustomerRequest");
  if (!decoded.ok) return decoded;
  const invalid = (message: string, problems: Problem[] = [], ignored: readonly string[] = []): Read => ({
    ok: false,
    response: problem(req, 400, message, problems, ignoredHeader(ignored), { code: "body.invalid", ignored }),
  });
  const body = decoded.value;
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return invalid("The request body must be one customer object.");
  }
  const fields = propertiesOf(contract, "Customer");
  const json = bodyFormat(req.headers["content-type"])?.kind === "json";
  const bound = bindProperties(
    body as Record<string, unknown>,
    fields,
    { Addresses: propertiesOf(contract, "Address") },
    json,
  );
  if (bound.problems.length > 0) return invalid("The request is invalid.", bound.problems, bound.ignored);
  const raw = bound.value;
  const sent = Object.keys(raw);
  if (!rules.acceptAllProperties && sent.length === fields.length) {
    return invalid("The request body has too many properties.");
  }
  if (pathId !== undefined && raw.CustomerId === undefined) raw.CustomerId = pathId;
  const problems = contract.requests.check("CustomerRequest", raw);
  if (problems.length === 0) problems.push(...checkDates(raw), ...notXmlText(raw));
  if (pathId !== undefined && typeof raw.CustomerId === "string" && raw.CustomerId !== pathId) {
    problems.push({ field: "CustomerId", message: `must be ${JSON.stringify(pathId)}, the id in the path` });
  }
  if (problems.length > 0) return invalid("The request is invalid.", problems, bound.ignored);
  // Without the default-value rule, only what was sent (plus the identifier) is kept.
  const wasSent = new Set(sent);
  const kept = rules.fillDefaults ? fields : fields.filter((k) => wasSent.has(k) || k === "CustomerId");
  return { ok: true, customer: pick(raw, kept) as Customer, ignored: bound.ignored };
}

/** `X-Bawa-Ignored-Properties`: what a body sent that bound to no field, so a typo shows at once. */
export function ignoredHeader(ignored: readonly string[]): Record<string, string> {
  if (ignored.length === 0) return {};
  const names = ignored.slice(0, 20).map((n) => quotable(n, 60).replaceAll(",", "%2C"));
  return { "x-bawa-ignored-properties": `${names.join(", ")}${ignored.length > 20 ? ", ..." : ""}` };
}

// One array per schema, so binding can keep its lookups for it (binding.ts).
const properties = new WeakMap<object, string[]>();
const propertiesOf = (contract: RoutedRequest["ctx"]["contract"], schema: string) => {
  const s = contract.doc.components.schemas[schema] as { properties: object };
  let names = properties.get(s);
  if (!names) {
    names = Object.keys(s.properties);
    properties.set(s, names);
  }
  return names;
};

function pick(value: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of keys) out[k] = value[k];
  return out;
}

/**
 * Strings XML 1.0 can not carry (control characters, lone surrogates) are
 * refused with the field, so nothing is stored that one of the two formats
 * could not give back (decision 0009).
 */
// Characters XML 1.0 certainly carries (BMP, no surrogate): most text is only these, and then
// nothing needs to be looked at one code point at a time.
const PLAIN_XML_TEXT = /^[\t\n\r\u0020-\uD7FF\uE000-\uFFFD]*$/;

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
  const out: Problem[] = [];
  for (const [k, v] of Object.entries(value))
    if (typeof v !== "number" && typeof v !== "boolean" && v !== null)
      out.push(...notXmlText(v, field ? `${field}.${k}` : k));
  return out;
}

const DATE_FIELDS = ["CocDate", "VatVerificationDate"] as const;

/** A-DATES: the date must exist; it is stored as MM/dd/yyyy. */
function checkDates(c: Record<string, unknown>): Problem[] {
  const out: Problem[] = [];
  for (const field of DATE_FIELDS) {
    const v = c[field];
    if (typeof v !== "string") continue;
    const [m, d, y] = v.split("/").map(Number) as [number, number, number];
    const date = new Date(Date.UTC(y, m - 1, d));
    if (date.getUTCMonth() !== m - 1 || date.getUTCDate() !== d) {
      out.push({ field, message: `is not a date that exists (${v}; month/day/year)` });
    } else {
      c[field] = `${String(m).padStart(2, "0")}/${String(d).padStart(2, "0")}/${String(y).padStart(4, "0")}`;
    }
  }
  return out;
}
