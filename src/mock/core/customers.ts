// The customer resource: pure handlers of (request, state, clock).
import { isXmlChar, type Problem } from "../../contract/index.ts";
import { challenge, checkBearer, quotable, REALM } from "./bearer.ts";
import { answer, decodeBody, problem } from "./format.ts";
import type { MockResponse } from "./http.ts";
import type { Handler, RoutedRequest } from "./router.ts";
import { type Customer, infoOf } from "./store.ts";

/** Runs `next` only for a valid token whose user may use the database in the path (rule 4, A-DATABASE-ACCESS). */
function withDatabase(next: (req: RoutedRequest, db: string) => MockResponse): Handler {
  return (req) => {
    const { ctx } = req;
    const bearer = checkBearer(req.headers.authorization, ctx.tokens, ctx.clock.now());
    if (bearer.kind !== "granted") {
      const message =
        bearer.kind === "missing"
          ? "Authorization has been denied for this request: no access token was sent."
          : `Authorization has been denied for this request: ${bearer.description}.`;
      return problem(ctx.contract, req.format, 401, message, [], { "www-authenticate": challenge(bearer) });
    }
    const db = req.params.database_id ?? "";
    if (db.trim() === "") {
      return problem(ctx.contract, req.format, 401, "No database is given: put the database id after /api/.", [], {
        "www-authenticate": challenge({ kind: "missing" }),
      });
    }
    if (!bearer.grant.databases.includes(db)) {
      return problem(ctx.contract, req.format, 401, `The user of this token may not use database ${db}.`, [], {
        "www-authenticate": `Bearer realm="${REALM}", error="insufficient_scope", error_description="${quotable(`no access to database ${db}`)}"`,
      });
    }
    return next(req, db);
  };
}

const notFound = (req: RoutedRequest, db: string, id: string) =>
  problem(req.ctx.contract, req.format, 404, `No customer with id ${id} exists in database ${db}.`);

export const listCustomers: Handler = withDatabase((req, db) =>
  req.ctx.store.memo(db, `list:${req.format.mediaType}`, () =>
    answer(req.ctx.contract, req.format, 200, "CustomerInfoList", req.ctx.store.list(db).map(infoOf)),
  ),
);

export const getCustomer: Handler = withDatabase((req, db) => {
  const id = req.params.customer_id!;
  const customer = req.ctx.store.get(db, id);
  return customer ? answer(req.ctx.contract, req.format, 200, "Customer", customer) : notFound(req, db, id);
});

export const createCustomer: Handler = withDatabase((req, db) => {
  const input = readCustomer(req);
  if (!input.ok) return input.response;
  const created = req.ctx.store.create(db, input.customer);
  if (!created.ok)
    return problem(req.ctx.contract, req.format, 400, "The request is invalid.", [
      { field: created.field, message: created.reason },
    ]);
  return answer(req.ctx.contract, req.format, 200, "Customer", created.customer);
});

export const updateCustomer: Handler = withDatabase((req, db) => {
  const id = req.params.customer_id!;
  const input = readCustomer(req, id);
  if (!input.ok) return input.response;
  const updated = req.ctx.store.replace(db, id, input.customer);
  return updated ? answer(req.ctx.contract, req.format, 200, "Customer", updated) : notFound(req, db, id);
});

export const deleteCustomer: Handler = withDatabase((req, db) => {
  const id = req.params.customer_id!;
  if (!req.ctx.store.delete(db, id)) return notFound(req, db, id);
  return { status: 200, headers: { "content-length": "0" } };
});

type Read = { ok: true; customer: Customer } | { ok: false; response: MockResponse };

/**
 * Decodes and validates a customer body against the contract, filling in
 * defaults (A-DEFAULTS). On PUT, `pathId` is the id of the path (A-PUT-ID).
 */
function readCustomer(req: RoutedRequest, pathId?: string): Read {
  const { contract } = req.ctx;
  const decoded = decodeBody(contract, req.format, req.headers["content-type"], req.body, "CustomerRequest");
  if (!decoded.ok) return decoded;
  const body = decoded.value;
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return { ok: false, response: problem(contract, req.format, 400, "The request body must be one customer object.") };
  }
  const raw = body as Record<string, unknown>;
  if (pathId !== undefined && raw.CustomerId === undefined) raw.CustomerId = pathId;
  const problems = contract.requests.check("CustomerRequest", raw);
  if (problems.length === 0) problems.push(...checkDates(raw), ...notXmlText(raw));
  if (pathId !== undefined && typeof raw.CustomerId === "string" && raw.CustomerId !== pathId) {
    problems.push({ field: "CustomerId", message: `must be ${JSON.stringify(pathId)}, the id in the path` });
  }
  if (problems.length > 0)
    return { ok: false, response: problem(contract, req.format, 400, "The request is invalid.", problems) };
  // A-UNKNOWN-PROPERTIES: keep exactly the contract's properties, in the customer and in each address.
  const customer = pick(raw, propertiesOf(contract, "Customer")) as Customer;
  const addressFields = propertiesOf(contract, "Address");
  if (Array.isArray(customer.Addresses)) customer.Addresses = customer.Addresses.map((a) => pick(a, addressFields));
  return { ok: true, customer };
}

const propertiesOf = (contract: RoutedRequest["ctx"]["contract"], schema: string) =>
  Object.keys((contract.doc.components.schemas[schema] as { properties: object }).properties);

const pick = (value: object, keys: readonly string[]) =>
  Object.fromEntries(keys.map((k) => [k, (value as Record<string, unknown>)[k]]));

/**
 * Strings XML 1.0 can not carry (control characters, lone surrogates) are
 * refused with the field, so nothing is stored that one of the two formats
 * could not give back (decision 0009).
 */
function notXmlText(value: unknown, field = ""): Problem[] {
  if (typeof value === "string") {
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
  return Object.entries(value).flatMap(([k, v]) => notXmlText(v, field ? `${field}.${k}` : k));
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
