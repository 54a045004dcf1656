// The rules of the resource server that exchanges show: bearer tokens and the
// database segment (Errors, rule 4), statuses, formats, the fields of the
// objects (names, types, dates, decimals, defaults) and their lifecycle
// (created objects are at their address, PUT changes, DELETE removes). Only
// what the description says is judged: a path the contract does not declare is
// another resource of the service ("not shown"), never an error; the body of a
// write's answer is "not shown", so only the fields it does carry are judged.
import { asMonthDayYear, dateFormatOf } from "../../../conformance/lib/dates.ts";
import { described, otherCase } from "../../../conformance/lib/names.ts";
import { readXml, xmlText } from "../../../conformance/lib/shapes.ts";
import {
  type Collection,
  type CompiledContract,
  monthDayYear,
  type Operation,
  type SchemaSet,
} from "../../contract/index.ts";
import {
  type Exchange,
  expectation,
  fingerprint,
  header,
  jsonOf,
  mediaType,
  text,
  type Violation,
} from "../exchange.ts";
import type { Place } from "../places.ts";
import type { Memory, ObjectSeen } from "./memory.ts";
import { TOKEN_SECONDS } from "./oauth.ts";

type Json = Record<string, unknown>;

const v = (requirement: string, where: string, expected: string, found?: string): Violation => ({
  requirement,
  where,
  expected,
  ...(found === undefined ? {} : { found }),
});
const shown = (value: unknown) => {
  if (value === undefined) return "missing";
  const s = JSON.stringify(value) ?? String(value);
  return s.length > 80 ? `${s.slice(0, 80)}...` : s;
};
const isObject = (x: unknown): x is Json => typeof x === "object" && x !== null && !Array.isArray(x);
/** Requests that change an object. */
const WRITES = ["POST", "PUT"];

/** A data call: everything the exchange shows about the resource server. */
export function judgeData(
  ex: Exchange,
  place: Place,
  memory: Memory,
  { spec, contract }: { spec: SchemaSet; contract: CompiledContract },
): Violation[] {
  const ok = ex.status >= 200 && ex.status < 300;
  const method = ex.method.toUpperCase();
  if (place.noDatabase) {
    return ok
      ? [
          v(
            "ERR-4-DATABASE",
            "path database_id",
            "401 when no database is given",
            `${ex.status} without a database segment`,
          ),
        ]
      : [];
  }
  // Not in the contract: another resource of the service, which the description does not show.
  if (!place.template) return [];
  if (!place.operationId) {
    const readOnly = place.methods.every((m) => m === "GET");
    return ok && readOnly && ["POST", "PUT", "DELETE"].includes(method)
      ? [v("SVC-READ-ONLY-LIST", "method", `only GET on ${place.template}`, `${method} answered ${ex.status}`)]
      : [];
  }
  const op = place.operation;
  if (!op) return [];
  const out = judgeBearer(ex, place, op, memory);
  const c = op.collection;
  const db = op.databaseParam ? (place.params[op.databaseParam] ?? "") : "";
  const key = (id: unknown) => `${c.name}\u0000${db}\u0000${String(id)}`;
  const pathId = op.idParam ? place.params[op.idParam] : undefined;
  const seen = pathId === undefined ? undefined : memory.objects.get(key(pathId));
  const sent = WRITES.includes(method) ? requestView(ex, c) : undefined;

  if (!ok) {
    if (ex.status === 404 && method === "GET" && seen?.created && !seen.deleted) {
      out.push(
        v(
          "SVC-RESOURCE-ADDRESS",
          "status",
          `the ${c.name} that POST created with ${c.idProperty} ${pathId}, at its address`,
          "404",
        ),
      );
    }
    if (ex.status === 400 && sent && beyondRefusal(c, sent.view, pathId, contract)) {
      out.push(v("CUST-BODY-ALL", "status", "a body with all properties is accepted", "400"));
    }
    return out;
  }
  // Reads must answer 200; what a write answers is "not shown" (a 201 or 204 there is the service's own).
  if (ex.status !== 200 && method === "GET") {
    out.push(v("ERR-200", "status", "200 for a call that succeeds", String(ex.status)));
  }
  if (WRITES.includes(method) && (ex.requestBody?.length ?? 0) === 0) {
    out.push(v("ERR-3-REQUIRED", "body", `400 when the ${c.name} body is missing`, `${ex.status} without a body`));
  }
  if (method === "DELETE") {
    if (pathId !== undefined) remember(memory, key(pathId), { deleted: true, changed: undefined });
    return out;
  }
  const body = ex.body ?? Buffer.alloc(0);
  if (body.length === 0) {
    if (method === "GET" && ex.body !== undefined) {
      out.push(
        v(op.action === "list" ? "INFO-LIST" : fieldsOf(c), "body", `the ${op.answers} of the answer`, "an empty body"),
      );
    }
    return out;
  }
  const type = mediaType(header(ex, "content-type"));
  const format =
    type === "application/json" || type.endsWith("+json")
      ? "json"
      : /^(application|text)\/xml$/.test(type)
        ? "xml"
        : undefined;
  const asked = place.suffix ?? acceptedFormat(ex.requestHeaders.accept);
  if (!format || (asked && format !== asked)) {
    out.push(
      v(
        "SVC-FORMATS",
        "header Content-Type",
        asked ? `${asked.toUpperCase()}, as ${place.suffix ? "the suffix" : "Accept"} asked` : "JSON or XML",
        type || "none",
      ),
    );
    if (!format) return out;
  }
  if (format === "xml") {
    let fields: Json;
    try {
      fields = readXml(text(body)).fields;
    } catch (err) {
      out.push(v("SVC-FORMATS", "body", "well-formed XML", (err as Error).message.slice(0, 120)));
      return out;
    }
    if (c.editable && op.action === "read" && pathId !== undefined) {
      const xml = described(fields, c.properties, { caseInsensitiveNames: true });
      out.push(...parity(seen?.json, xml, c));
      remember(memory, key(pathId), { xml });
    }
    return out;
  }
  const parsed = jsonOf(body);
  if (!parsed) {
    out.push(v("SVC-FORMATS", "body", "JSON, as its Content-Type says", text(body).slice(0, 40)));
    return out;
  }
  if (op.action === "list") {
    if (!Array.isArray(parsed.value) || !parsed.value.every(isObject)) {
      out.push(
        v(
          "INFO-LIST",
          "body",
          "a JSON array of objects",
          Array.isArray(parsed.value)
            ? "an array of other values"
            : typeof parsed.value === "object"
              ? "an object"
              : typeof parsed.value,
        ),
      );
    } else if (!c.editable) {
      // Info objects of their own schema (not a subset of an editable
      // resource's fields): one finding per answer, its first problem.
      const problems = parsed.value.flatMap((item, i) => spec.check(c.schema, item).map((p) => ({ ...p, i })));
      const p = problems[0];
      if (p) {
        out.push(
          v(
            "SVC-FIELDS",
            `body[${p.i}].${p.field || "(item)"}`,
            expectation(p.message),
            `${shown((parsed.value[p.i] as Json)[p.field.split(".")[0] ?? ""])}${problems.length > 1 ? ` (and ${problems.length - 1} more)` : ""}`,
          ),
        );
      }
    }
    return out;
  }
  if (!c.editable) return out;
  const judged = judgeObject(parsed.value, { ex, op, pathId, seen, sent, spec });
  out.push(...judged.violations);
  const view = judged.view;
  if (!view) return out;
  if (method === "GET" && seen?.deleted) {
    out.push(v("SVC-METHODS", "status", `404: DELETE removed this ${c.name}`, String(ex.status)));
  }
  const id = c.idProperty ? view[c.idProperty] : undefined;
  if (method === "POST" && id !== undefined && id !== "") {
    memory.objects.set(key(id), { json: view, created: true, deleted: false, sent: sent?.view });
  } else if (method === "PUT" && pathId !== undefined) {
    memory.objects.set(key(pathId), {
      json: view,
      created: seen?.created ?? false,
      deleted: false,
      sent: sent?.view,
      changed: judged.changed,
    });
  } else if (method === "GET" && pathId !== undefined) {
    out.push(...parity(view, seen?.xml, c));
    remember(memory, key(pathId), { json: view, changed: undefined });
  }
  return out;
}

const defaults = new WeakMap<Collection, Json>();

/**
 * The requirement an object's fields answer to: the customer's are the
 * description's own table (CUST-FIELDS), as the suite checks them; every other
 * resource's are its schema in the contract (SVC-FIELDS).
 */
const fieldsOf = (c: Collection) => (c.name === "Customer" ? "CUST-FIELDS" : "SVC-FIELDS");

/**
 * Whether a write's body leaves the service no reason to refuse it that the
 * description would allow: every property is there, it fits even our
 * assumptions' limits (the whole contract, not its spec view), a PUT's id is
 * the path's, and every code (a string property named ...Id, whose allowed
 * values are not shown) is null or its default.
 */
function beyondRefusal(c: Collection, body: Json, pathId: string | undefined, contract: CompiledContract): boolean {
  const request = c.request;
  if (!request?.properties.every((p) => p in body)) return false;
  if (contract.answers.check(request.schema, body).length > 0) return false;
  const id = c.idProperty ? body[c.idProperty] : undefined;
  if (pathId !== undefined && id !== "" && id !== undefined && String(id) !== pathId) return false;
  let given = defaults.get(c);
  if (!given) {
    given = {};
    contract.requests.check(request.schema, given);
    defaults.set(c, given);
  }
  const code = (p: string) => p !== c.idProperty && p.endsWith("Id") && (c.types[p] ?? []).includes("string");
  return request.properties.every((p) => !code(p) || body[p] === null || body[p] === given[p]);
}

function remember(memory: Memory, key: string, change: Partial<ObjectSeen>): void {
  const known = memory.objects.get(key) ?? { created: false, deleted: false };
  memory.objects.set(key, { ...known, ...change });
}

/** The format an Accept header asks for when it names only JSON or only XML; otherwise none. */
function acceptedFormat(accept: string | undefined): "json" | "xml" | undefined {
  const ranges = (accept ?? "")
    .split(",")
    .map((p) => p.split(";"))
    .filter(([, ...params]) => !params.some((q) => /^\s*q\s*=\s*0(\.0*)?\s*$/.test(q)))
    .map(([r]) => (r ?? "").trim().toLowerCase());
  const json = ranges.includes("application/json");
  const xml = ranges.includes("application/xml") || ranges.includes("text/xml");
  if (ranges.some((r) => r === "*/*" || r === "application/*" || r === "text/*")) return undefined;
  return json && !xml ? "json" : xml && !json ? "xml" : undefined;
}

/** The described fields of a write's JSON body, under the table's names. */
function requestView(ex: Exchange, c: Collection): { view: Json } | undefined {
  if (mediaType(ex.requestHeaders["content-type"]) !== "application/json") return undefined;
  const parsed = jsonOf(ex.requestBody);
  if (!parsed || !isObject(parsed.value)) return undefined;
  return { view: described(parsed.value, c.request?.properties ?? c.properties, { caseInsensitiveNames: true }) };
}

/** Bearer tokens on data calls: ERR-4-TOKEN, the challenge of RFC 6750, and what tokens did before. */
function judgeBearer(ex: Exchange, place: Place, op: Operation, memory: Memory): Violation[] {
  const out: Violation[] = [];
  const ok = ex.status >= 200 && ex.status < 300;
  const authorization = ex.requestHeaders.authorization;
  if (authorization === undefined && ok) {
    out.push(v("ERR-4-TOKEN", "header Authorization", "401 when the token is absent", String(ex.status)));
  }
  if (ex.status === 401) {
    const challenge = header(ex, "www-authenticate");
    if (!challenge || !/^bearer(\s|$)/i.test(challenge)) {
      out.push(v("OAUTH-BEARER-CHALLENGE", "header WWW-Authenticate", "a Bearer challenge", challenge ?? "none"));
    } else if (authorization === undefined && /\berror\s*=/i.test(challenge)) {
      out.push(
        v(
          "OAUTH-BEARER-CHALLENGE",
          "header WWW-Authenticate",
          "no error code when no credentials came",
          /error\s*=\s*"?([^",]*)/i.exec(challenge)?.[1] ?? "an error code",
        ),
      );
    }
  }
  const m = /^(\S+) +(\S+)\s*$/.exec(authorization ?? "");
  if (!m || m[1]!.toLowerCase() !== "bearer") return out;
  const scheme = m[1]!;
  const token = memory.access.get(fingerprint(m[2]!));
  if (!token) return out;
  const db = op.databaseParam ? (place.params[op.databaseParam] ?? "") : "";
  const age = memory.targetTime(ex.at) - token.issuedAt;
  const lineage = token.lineage ? memory.refresh.get(token.lineage) : undefined;
  if (ok) {
    if (token.revoked) {
      out.push(
        v(
          "OAUTH-CODE-REUSE-REVOKES",
          "header Authorization",
          "401: the code this token came from was used twice",
          String(ex.status),
        ),
      );
    } else if (age > TOKEN_SECONDS * 1000 + 2000) {
      out.push(
        v(
          "TOK-EXPIRY",
          "header Authorization",
          `401 once ${TOKEN_SECONDS} s have passed`,
          `${ex.status}, ${Math.round(age / 1000)} s after it was issued`,
        ),
      );
    }
    if (!token.answered.has(db)) token.answered.set(db, scheme);
    lineage?.answered.add(db);
    return out;
  }
  const alive = age < Math.min(token.expiresIn, TOKEN_SECONDS) * 1000 - 5000;
  if (ex.status !== 401 || token.revoked || !alive) return out;
  const before = token.answered.get(db);
  if (before !== undefined && before !== scheme) {
    out.push(
      v(
        "OAUTH-BEARER-CASE",
        "header Authorization",
        `the scheme name in any case (${before} worked on ${db || "this call"})`,
        `${scheme}: 401`,
      ),
    );
  } else if (before !== undefined) {
    out.push(
      v(
        "DATA-BEARER",
        "header Authorization",
        `answered, as this token was on ${db || "this call"} ${Math.round(age / 1000)} s into its ${TOKEN_SECONDS} s`,
        "401",
      ),
    );
  } else if (token.via === "refresh" && lineage && !lineage.revoked && lineage.answered.has(db)) {
    out.push(
      v(
        "TOK-REFRESH",
        "header Authorization",
        `the refreshed access token works where the one before it did (${db})`,
        "401",
      ),
    );
  }
  return out;
}

interface ObjectContext {
  ex: Exchange;
  op: Operation;
  pathId: string | undefined;
  seen: ObjectSeen | undefined;
  sent: { view: Json } | undefined;
  spec: SchemaSet;
}

/**
 * One object of an editable resource in a JSON answer: its names (CUST-NAMES),
 * dates (CUST-DATES), id (CUST-CREATE-ID, SVC-RESOURCE-ADDRESS, ERR-2-ID),
 * fields (CUST-FIELDS, CUST-DEFAULTS), decimals (CUST-DECIMALS) and whether a
 * PUT changed it (CUST-UPDATE-ID). A drift of names or dates is reported once,
 * and the rest is judged under the table's names and dates, as the suite does.
 */
function judgeObject(
  value: unknown,
  { ex, op, pathId, seen, sent, spec }: ObjectContext,
): { violations: Violation[]; view?: Json; changed?: ObjectSeen["changed"] } {
  const out: Violation[] = [];
  const c = op.collection;
  const method = ex.method.toUpperCase();
  const write = WRITES.includes(method);
  if (!isObject(value)) {
    return {
      violations: [v(fieldsOf(c), "body", `a ${c.name} object`, Array.isArray(value) ? "an array" : typeof value)],
    };
  }
  const fields = c.properties;
  const lower = new Set(fields.map((f) => f.toLowerCase()));
  if (!Object.keys(value).some((k) => lower.has(k.toLowerCase()))) {
    const found = `200 with ${Object.keys(value).slice(0, 3).join(", ") || "an empty object"}`;
    if (op.action === "read") {
      return {
        violations: [v("ERR-2-ID", "body", `the ${c.name} ${pathId}, or 404 when no object has that id`, found)],
      };
    }
    return write ? { violations: [] } : { violations: [v(fieldsOf(c), "body", `a ${c.name} object`, found)] };
  }
  const cased = otherCase(value, fields);
  if (cased.length > 0) {
    const [written, field] = cased[0]!;
    out.push(
      v(
        "CUST-NAMES",
        "body",
        "field names as the table writes them (PascalCase)",
        `${written} for ${field}${cased.length > 1 ? ` and ${cased.length - 1} more` : ""}`,
      ),
    );
  }
  const view = described(value, fields, { caseInsensitiveNames: true });
  const reported = new Set<string>();
  for (const d of c.dateProperties) {
    const x = view[d];
    if (x === null || x === undefined || dateFormatOf(x) === "mdy") continue;
    out.push(v("CUST-DATES", `body.${d}`, "month/day/year", shown(x)));
    reported.add(d);
    view[d] = asMonthDayYear(x);
  }
  const idProperty = c.idProperty;
  const id = idProperty ? view[idProperty] : undefined;
  if (idProperty && id === "") {
    out.push(v("CUST-CREATE-ID", `body.${idProperty}`, "the identifier the service gave the object", '""'));
    reported.add(idProperty);
  } else if (idProperty && pathId !== undefined && id !== undefined && String(id) !== pathId) {
    out.push(
      v("SVC-RESOURCE-ADDRESS", `body.${idProperty}`, `${JSON.stringify(pathId)}, the id of the path`, shown(id)),
    );
    reported.add(idProperty);
  }
  // What the last write sent this object, to tell a default not given from a field left out.
  const lastSent = write ? sent?.view : seen?.sent;
  for (const p of spec.check(c.schema, view)) {
    const field = p.field.split(".")[0] ?? "";
    if (reported.has(field)) continue;
    const missing = p.message === "is required";
    // The body of a write's answer is not shown: only the fields it carries are judged.
    if (write && missing) continue;
    if (missing && lastSent && !(field in lastSent)) {
      out.push(
        v(
          "CUST-DEFAULTS",
          `body.${field}`,
          `${field} with its default value (the body that wrote it left it out)`,
          "missing",
        ),
      );
    } else {
      out.push(v(fieldsOf(c), `body.${p.field || "(body)"}`, expectation(p.message), shown(view[field])));
    }
  }
  for (const f of fields) {
    const given = lastSent?.[f];
    const got = view[f];
    if (c.formats[f] !== "decimal" || typeof given !== "number" || Number.isInteger(given)) continue;
    if (typeof got === "number" && got !== given && Number.isInteger(got) && Math.abs(got - given) < 1) {
      out.push(v("CUST-DECIMALS", `body.${f}`, `${given}, the decimal sent`, String(got)));
    }
  }
  // PUT changes the object: fields a PUT changed must not all show their old values.
  let changed: ObjectSeen["changed"];
  if (method === "PUT" && sent && seen?.json) {
    const skip = new Set([idProperty, c.databaseProperty, ...c.sequences]);
    const fieldsChanged = Object.keys(sent.view).filter((f) => !skip.has(f) && !same(sent.view[f], seen.json![f]));
    if (fieldsChanged.length > 0) changed = { fields: fieldsChanged, before: seen.json };
  }
  const pending = method === "PUT" ? changed : method === "GET" ? seen?.changed : undefined;
  if (pending?.fields.every((f) => same(view[f], pending.before[f]))) {
    out.push(
      v(
        "CUST-UPDATE-ID",
        `body.${pending.fields[0]}`,
        `the value PUT sent (${pending.fields.join(", ")} changed)`,
        `${shown(view[pending.fields[0]!])}, unchanged`,
      ),
    );
  }
  // What later exchanges compare with (XML parity, a PUT's change) leaves out what was reported here.
  for (const f of reported) if (!c.dateProperties.includes(f)) delete view[f];
  return { violations: out, view, changed };
}

/** Two values of a described field are the same (dates compared as dates). */
function same(a: unknown, b: unknown): boolean {
  if (typeof a === "string" && typeof b === "string") {
    const [x, y] = [monthDayYear(a), monthDayYear(b)];
    if (x && y) return x.year === y.year && x.month === y.month && x.day === y.day;
  }
  return JSON.stringify(a) === JSON.stringify(b);
}

/** SVC-FORMATS: the XML form carries the JSON form's described fields and values. */
function parity(json: Json | undefined, xml: Json | undefined, c: Collection): Violation[] {
  if (!json || !xml) return [];
  const differences: string[] = [];
  for (const [name, value] of Object.entries(json)) {
    if (typeof value === "object" && value !== null) continue;
    if (!(name in xml)) {
      differences.push(`${name} is missing in XML`);
      continue;
    }
    const x = xml[name];
    const equal =
      value === null
        ? x === null || x === ""
        : typeof value === "number"
          ? Number(x) === value
          : typeof value === "boolean"
            ? String(x).toLowerCase() === String(value)
            : c.dateProperties.includes(name)
              ? same(asMonthDayYear(x), value)
              : x === xmlText(value);
    if (!equal) differences.push(`${name} is ${shown(x)} in XML, ${shown(value)} in JSON`);
  }
  if (differences.length === 0) return [];
  return [
    v(
      "SVC-FORMATS",
      "body (XML and JSON of one object)",
      "the same field names and values in both forms",
      `${differences.slice(0, 3).join("; ")}${differences.length > 3 ? `; ${differences.length - 3} more` : ""}`,
    ),
  ];
}
