// The rules of the resource server that exchanges show: bearer tokens and the
// database segment (Errors, rule 4), statuses, formats, the fields of the
// objects (names, types, dates, decimals, defaults) and their lifecycle
// (created objects are at their address, PUT changes, DELETE removes). Only
// what the description says is judged: a path the contract does not declare is
// another resource of the service ("not shown"), never an error; the body of a
// write's answer is "not shown", so only the fields it does carry are judged.
import { type Collection, type CompiledContract, monthDayYear, type Operation } from "../../contract/index.ts";
import { requiredOfWrite } from "../bodies.ts";
import { asMonthDayYear, dateFormatOf } from "../dates.ts";
import {
  type Exchange,
  expectation,
  header,
  jsonOf,
  mediaType,
  type ParsedJson,
  text,
  type Violation,
} from "../exchange.ts";
import type { RequirementId } from "../generated/requirements.ts";
import { KeptView, type ObjectSeen, type SentFields } from "../memory.ts";
import { described, describedOrSelf, otherCase, sharesAName } from "../names.ts";
import { readXml, xmlText } from "../xml.ts";
import { BEARER_STEPS, type BearerCall, bearerOf } from "./bearer.ts";
import { group, isObject, type Judged, type Step, shown, violation } from "./step.ts";

type Json = Record<string, unknown>;

/** Requests that change an object. */
const WRITES = ["POST", "PUT"];

/** One data call of an operation the contract declares, read once for every step. */
interface DataCall extends BearerCall {
  op: Operation;
  c: Collection;
  /** The key of an object in the judge's memory. */
  key(id: unknown): string;
  /** The id in the path, for an item path. */
  pathId: string | undefined;
  /** What the judge saw of that object before. */
  seen: ObjectSeen | undefined;
  /** A write's JSON body as the table names its fields: the parsed body itself when it is already so, never changed. */
  sent: { view: Readonly<Json> } | undefined;
  /** The answer's body format, from its Content-Type: JSON, XML, or neither. */
  format: "json" | "xml" | undefined;
  /** The format the request asked for, by suffix or Accept. */
  asked: "json" | "xml" | undefined;
  body: Buffer;
  /** Set by the steps as they read the answer: its JSON, and the object's view under the table's names. */
  parsed?: ParsedJson | undefined;
  view?: Readonly<Json> | undefined;
  changed?: ObjectSeen["changed"];
  /** What a write's body gave, as reads judge it (set with the view). */
  given?: SentFields | undefined;
  /** Fields whose drift a step reported: later comparisons leave them out. */
  reported: Set<string>;
}

/**
 * The requirement an object's fields answer to: the customer's are the
 * description's own table (CUST-FIELDS), as the suite checks them; every other
 * resource's are its schema in the contract (SVC-FIELDS).
 */
export const fieldsOf = (c: Collection): RequirementId => (c.name === "Customer" ? "CUST-FIELDS" : "SVC-FIELDS");

const defaults = new WeakMap<Collection, Json>();

/**
 * Whether a write's body leaves the service no reason to refuse it that the
 * description would allow: every property is there, it fits even our
 * assumptions' limits (the whole contract, not its spec view), a PUT's id is
 * the path's, a POST's id is the empty one the description sends on create
 * (an id the client chose may be one in use), and every code (a string
 * property named ...Id, whose allowed values are not shown) is null or its
 * default.
 */
function beyondRefusal(c: Collection, body: Json, pathId: string | undefined, contract: CompiledContract): boolean {
  const request = c.request;
  if (!request?.properties.every((p) => p in body)) return false;
  if (contract.answers.check(request.schema, body).length > 0) return false;
  const id = c.idProperty ? body[c.idProperty] : undefined;
  const chosen = id !== "" && id !== undefined && id !== null && id !== 0;
  if (pathId !== undefined && chosen && String(id) !== pathId) return false;
  if (pathId === undefined && chosen) return false;
  let given = defaults.get(c);
  if (!given) {
    given = {};
    contract.requests.check(request.schema, given);
    defaults.set(c, given);
  }
  const code = (p: string) => p !== c.idProperty && p.endsWith("Id") && (c.types[p] ?? []).includes("string");
  return request.properties.every((p) => !code(p) || body[p] === null || body[p] === given[p]);
}

/** The body of an answer that had none: one, read by every such exchange, never written. */
const NO_BODY = Buffer.alloc(0);

function remember(d: Pick<DataCall, "memory">, key: string, change: Partial<ObjectSeen>): void {
  const known = d.memory.objects.get(key) ?? { created: false, deleted: false };
  d.memory.objects.set(key, { ...known, ...change });
}

/** The format an Accept header asks for when it names only JSON or only XML; otherwise none. */
function acceptedFormat(accept: string | undefined): "json" | "xml" | undefined {
  const key = accept ?? "";
  if (formatsAsked.has(key)) return formatsAsked.get(key);
  const asked = formatOf(accept);
  // Clients send a few Accept values over and over; a flood of new ones is not kept.
  if (formatsAsked.size < 256) formatsAsked.set(key, asked);
  return asked;
}
const formatsAsked = new Map<string, "json" | "xml" | undefined>();

function formatOf(accept: string | undefined): "json" | "xml" | undefined {
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

const NO_DECIMALS: Readonly<Record<string, number>> = Object.freeze({});

/**
 * What a write's body gave, as reads judge it. A body that gives every field of the request names
 * the collection's own list: most do, and the list is then not copied.
 */
function sentFields(view: Readonly<Json>, c: Collection): SentFields {
  const all = c.request?.properties ?? c.properties;
  const given = Object.keys(view);
  // The view's names are described ones (describedOrSelf): as many are all of them.
  const names = given.length === all.length ? all : given;
  let decimals = NO_DECIMALS;
  for (const f of c.decimalProperties) {
    const x = view[f];
    if (typeof x === "number" && !Number.isInteger(x)) {
      if (decimals === NO_DECIMALS) decimals = {};
      (decimals as Record<string, number>)[f] = x;
    }
  }
  return { names, decimals };
}

/** The described fields of a write's JSON body, under the table's names. */
function requestView(ex: Exchange, c: Collection): DataCall["sent"] {
  if (mediaType(ex.requestHeaders["content-type"]) !== "application/json") return undefined;
  const parsed = jsonOf(ex.requestBody);
  if (!parsed || !isObject(parsed.value)) return undefined;
  return { view: describedOrSelf(parsed.value, c.request?.properties ?? c.properties) };
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
    violation(
      "SVC-FORMATS",
      "body (XML and JSON of one object)",
      "the same field names and values in both forms",
      `${differences.slice(0, 3).join("; ")}${differences.length > 3 ? `; ${differences.length - 3} more` : ""}`,
    ),
  ];
}

// ── a path without its database, and a path that is not an operation ──

interface PathOnly extends Judged {}

export const NO_DATABASE = group<PathOnly>({
  name: "a data path without its database segment",
  read: (j) => (j.place.endpoint === "data" && j.place.noDatabase ? j : undefined),
  steps: [
    {
      name: "a call without a database is refused",
      reports: ["ERR-4-DATABASE"],
      run: ({ ok, ex }) =>
        ok
          ? [
              violation(
                "ERR-4-DATABASE",
                "path database_id",
                "401 when no database is given",
                `${ex.status} without a database segment`,
              ),
            ]
          : [],
    },
  ],
});

export const READ_ONLY_PATHS = group<PathOnly>({
  name: "a declared data path, a method it does not declare",
  read: (j) =>
    j.place.endpoint === "data" && !j.place.noDatabase && j.place.template && !j.place.operationId ? j : undefined,
  steps: [
    {
      name: "lists and info objects are not written to",
      reports: ["SVC-READ-ONLY-LIST"],
      run: ({ place, method, ok, ex }) => {
        const readOnly = place.methods.every((m) => m === "GET");
        return ok && readOnly && ["POST", "PUT", "DELETE"].includes(method)
          ? [
              violation(
                "SVC-READ-ONLY-LIST",
                "method",
                `only GET on ${place.template}`,
                `${method} answered ${ex.status}`,
              ),
            ]
          : [];
      },
    },
  ],
});

// ── an operation of the contract ──

/** Steps of a call that succeeded. */
const ANSWERED: ReadonlyArray<Step<DataCall>> = [
  {
    name: "a read that succeeds answers 200",
    reports: ["ERR-200"],
    run: ({ ex, method }) =>
      ex.status !== 200 && method === "GET"
        ? [violation("ERR-200", "status", "200 for a call that succeeds", String(ex.status))]
        : [],
  },
  {
    name: "a write without a body is refused",
    reports: ["ERR-3-REQUIRED"],
    run: ({ ex, method, c }) =>
      WRITES.includes(method) && (ex.requestBody?.length ?? 0) === 0
        ? [violation("ERR-3-REQUIRED", "body", `400 when the ${c.name} body is missing`, `${ex.status} without a body`)]
        : [],
  },
  {
    // The customer's required properties are not shown (A-REQUIRED, an assumption the judge does
    // not hold a target to); a team's resource declares its own in its contract (SVC-REQUIRED).
    name: "a write without a property the contract requires is refused",
    reports: ["SVC-REQUIRED"],
    run: ({ ex, method, c, sent, contract }) => {
      if (!WRITES.includes(method) || !sent || c.name === "Customer") return [];
      const missing = requiredOfWrite(contract, c).filter((k) => sent.view[k] === undefined);
      return missing.length > 0
        ? [
            violation(
              "SVC-REQUIRED",
              `body.${missing[0]}`,
              `400: the ${c.name} body leaves out ${missing.join(", ")}, which the contract requires`,
              String(ex.status),
            ),
          ]
        : [];
    },
  },
  {
    name: "remember what DELETE removed",
    reports: [],
    run: (d) => {
      if (d.method === "DELETE" && d.pathId !== undefined)
        remember(d, d.key(d.pathId), { deleted: true, changed: undefined });
      return undefined;
    },
  },
];

/**
 * Steps of the body of a successful read or write, each run only where the ones before it found
 * the body readable (a step that found it unreadable leaves nothing for the next: no format, no
 * parsed JSON, no view). What DELETE answers is not shown: its body is not read.
 */
const BODY: ReadonlyArray<Step<DataCall>> = [
  {
    name: "a read answers a body",
    reports: ["INFO-LIST", "CUST-FIELDS", "SVC-FIELDS"],
    run: ({ method, body, ex, op, c }) =>
      method === "GET" && body.length === 0 && ex.body !== undefined
        ? [
            violation(
              op.action === "list" ? "INFO-LIST" : fieldsOf(c),
              "body",
              `the ${op.answers} of the answer`,
              "an empty body",
            ),
          ]
        : [],
  },
  {
    name: "the answer is JSON or XML, as Accept or the suffix asked",
    reports: ["SVC-FORMATS"],
    run: ({ body, format, asked, place, ex }) => {
      if (body.length === 0 || (format && (!asked || format === asked))) return [];
      return [
        violation(
          "SVC-FORMATS",
          "header Content-Type",
          asked ? `${asked.toUpperCase()}, as ${place.suffix ? "the suffix" : "Accept"} asked` : "JSON or XML",
          mediaType(header(ex, "content-type")) || "none",
        ),
      ];
    },
  },
  {
    name: "an XML answer is well-formed, and an object's XML carries its JSON form's values",
    reports: ["SVC-FORMATS"],
    run: (d) => {
      if (d.body.length === 0 || d.format !== "xml") return [];
      let fields: Json;
      try {
        fields = readXml(text(d.body)).fields;
      } catch (err) {
        return [violation("SVC-FORMATS", "body", "well-formed XML", (err as Error).message.slice(0, 120))];
      }
      if (!d.c.editable) return [];
      const xml = described(fields, d.c.properties, { caseInsensitiveNames: true });
      const xmlBytes = 2 * d.body.length;
      if (d.op.action === "read" && d.pathId !== undefined) {
        remember(d, d.key(d.pathId), { xml, xmlBytes });
        return parity(d.seen?.json?.value, xml, d.c);
      }
      // A write answered in XML is the object as it is now: what was kept of it before (a JSON or
      // an XML read of the object before the write) is no form of it to hold the next read to.
      if (d.method === "PUT" && d.pathId !== undefined)
        d.memory.objects.set(d.key(d.pathId), { xml, xmlBytes, created: d.seen?.created ?? false, deleted: false });
      const id = d.c.idProperty ? xml[d.c.idProperty] : undefined;
      if (d.method === "POST" && typeof id === "string" && id !== "")
        d.memory.objects.set(d.key(id), { xml, xmlBytes, created: true, deleted: false });
      return [];
    },
  },
  {
    name: "a JSON answer parses",
    reports: ["SVC-FORMATS"],
    run: (d) => {
      if (d.body.length === 0 || d.format !== "json") return [];
      d.parsed = jsonOf(d.body);
      return d.parsed
        ? []
        : [violation("SVC-FORMATS", "body", "JSON, as its Content-Type says", text(d.body).slice(0, 40))];
    },
  },
  {
    name: "a list is an array of objects; info objects of their own schema carry its fields",
    reports: ["INFO-LIST", "SVC-FIELDS"],
    run: ({ parsed, op, c, spec }) => {
      if (!parsed || op.action !== "list") return [];
      const items = parsed.value;
      if (!Array.isArray(items) || !items.every(isObject)) {
        return [
          violation(
            "INFO-LIST",
            "body",
            "a JSON array of objects",
            Array.isArray(items) ? "an array of other values" : typeof items === "object" ? "an object" : typeof items,
          ),
        ];
      }
      if (c.editable) return [];
      // Info objects of their own schema (not a subset of an editable resource's fields): one
      // finding per answer, its first problem.
      const problems = items.flatMap((item, i) => spec.check(c.schema, item).map((p) => ({ ...p, i })));
      const p = problems[0];
      if (!p) return [];
      return [
        violation(
          "SVC-FIELDS",
          `body[${p.i}].${p.field || "(item)"}`,
          expectation(p.message),
          `${shown((items[p.i] as Json)[p.field.split(".")[0] ?? ""])}${problems.length > 1 ? ` (and ${problems.length - 1} more)` : ""}`,
        ),
      ];
    },
  },
  {
    name: "an object: its names, dates, id, fields, defaults, decimals, and what PUT changed",
    reports: [
      "CUST-FIELDS",
      "SVC-FIELDS",
      "ERR-2-ID",
      "CUST-NAMES",
      "CUST-DATES",
      "CUST-CREATE-ID",
      "SVC-RESOURCE-ADDRESS",
      "CUST-DEFAULTS",
      "CUST-DECIMALS",
      "CUST-UPDATE-ID",
    ],
    run: (d) => (d.parsed && d.op.action !== "list" && d.c.editable ? judgeObject(d.parsed.value, d) : []),
  },
  {
    name: "an object DELETE removed is gone",
    reports: ["SVC-METHODS"],
    run: ({ view, method, seen, c, ex }) =>
      view && method === "GET" && seen?.deleted
        ? [violation("SVC-METHODS", "status", `404: DELETE removed this ${c.name}`, String(ex.status))]
        : [],
  },
  {
    name: "remember the object as it was created, replaced or read; its JSON and XML forms agree",
    reports: ["SVC-FORMATS"],
    run: (d) => {
      const { view, method, c, pathId, seen, memory } = d;
      if (!view) return [];
      const id = c.idProperty ? view[c.idProperty] : undefined;
      // Kept as the body's text where the view is the body as it came, and what a write gave (memory.ts).
      const json = KeptView.of(view, d.parsed);
      const kept = d.given;
      if (method === "POST" && id !== undefined && id !== "") {
        memory.objects.set(d.key(id), { json, created: true, deleted: false, sent: kept });
      } else if (method === "PUT" && pathId !== undefined) {
        memory.objects.set(d.key(pathId), {
          json,
          created: seen?.created ?? false,
          deleted: false,
          sent: kept,
          changed: d.changed,
        });
      } else if (method === "GET" && pathId !== undefined) {
        const out = parity(view, seen?.xml, c);
        remember(d, d.key(pathId), { json, changed: undefined });
        return out;
      }
      return [];
    },
  },
];

/** Steps of a refused call. */
const REFUSED: ReadonlyArray<Step<DataCall>> = [
  {
    name: "an object POST created is at its address",
    reports: ["SVC-RESOURCE-ADDRESS"],
    run: ({ ex, method, seen, c, pathId }) =>
      ex.status === 404 && method === "GET" && seen?.created && !seen.deleted
        ? [
            violation(
              "SVC-RESOURCE-ADDRESS",
              "status",
              `the ${c.name} that POST created with ${c.idProperty} ${pathId}, at its address`,
              "404",
            ),
          ]
        : [],
  },
  {
    name: "a body with all properties is accepted",
    reports: ["CUST-BODY-ALL"],
    run: ({ ex, sent, c, pathId, contract }) =>
      ex.status === 400 && sent && beyondRefusal(c, sent.view, pathId, contract)
        ? [violation("CUST-BODY-ALL", "status", "a body with all properties is accepted", "400")]
        : [],
  },
];

/**
 * One object of an editable resource in a JSON answer: its names (CUST-NAMES),
 * dates (CUST-DATES), id (CUST-CREATE-ID, SVC-RESOURCE-ADDRESS, ERR-2-ID),
 * fields (CUST-FIELDS, CUST-DEFAULTS), decimals (CUST-DECIMALS) and whether a
 * PUT changed it (CUST-UPDATE-ID). A drift of names or dates is reported once,
 * and the rest is judged under the table's names and dates, as the suite does.
 * Leaves the object's view and what PUT changed on the reading, for the steps after it.
 */
function judgeObject(value: unknown, d: DataCall): Violation[] {
  const out: Violation[] = [];
  const { op, pathId, seen, sent, spec, c, method } = d;
  const write = WRITES.includes(method);
  if (!isObject(value)) {
    return [violation(fieldsOf(c), "body", `a ${c.name} object`, Array.isArray(value) ? "an array" : typeof value)];
  }
  const fields = c.properties;
  if (!sharesAName(value, fields)) {
    const found = `200 with ${Object.keys(value).slice(0, 3).join(", ") || "an empty object"}`;
    if (op.action === "read") {
      return [violation("ERR-2-ID", "body", `the ${c.name} ${pathId}, or 404 when no object has that id`, found)];
    }
    return write ? [] : [violation(fieldsOf(c), "body", `a ${c.name} object`, found)];
  }
  // The parsed body itself when it has nothing to drop or rename (then no name has another case);
  // copied before a change below.
  let view: Readonly<Json> = describedOrSelf(value, fields);
  let mine: Json | undefined;
  const own = (): Json => {
    // A view that is not the body is a copy made for this reading (described()): it may change.
    mine ??= view === value ? { ...view } : (view as Json);
    view = mine;
    return mine;
  };
  const cased = view === value ? [] : otherCase(value, fields);
  if (cased.length > 0) {
    const [written, field] = cased[0]!;
    out.push(
      violation(
        "CUST-NAMES",
        "body",
        "field names as the table writes them (PascalCase)",
        `${written} for ${field}${cased.length > 1 ? ` and ${cased.length - 1} more` : ""}`,
      ),
    );
  }
  const reported = d.reported;
  for (const f of c.dateProperties) {
    const x = view[f];
    if (x === null || x === undefined || dateFormatOf(x) === "mdy") continue;
    out.push(violation("CUST-DATES", `body.${f}`, "month/day/year", shown(x)));
    reported.add(f);
    own()[f] = asMonthDayYear(x);
  }
  const idProperty = c.idProperty;
  const id = idProperty ? view[idProperty] : undefined;
  if (idProperty && id === "") {
    out.push(violation("CUST-CREATE-ID", `body.${idProperty}`, "the identifier the service gave the object", '""'));
    reported.add(idProperty);
  } else if (idProperty && pathId !== undefined && id !== undefined && String(id) !== pathId) {
    out.push(
      violation(
        "SVC-RESOURCE-ADDRESS",
        `body.${idProperty}`,
        `${JSON.stringify(pathId)}, the id of the path`,
        shown(id),
      ),
    );
    reported.add(idProperty);
  }
  // What the last write sent this object, to tell a default not given from a field left out.
  if (write && sent) d.given = sentFields(sent.view, c);
  const lastSent = write ? d.given : seen?.sent;
  for (const p of spec.check(c.schema, view)) {
    const field = p.field.split(".")[0] ?? "";
    if (reported.has(field)) continue;
    const missing = p.message === "is required";
    // The body of a write's answer is not shown: only the fields it carries are judged.
    if (write && missing) continue;
    if (missing && lastSent && !lastSent.names.includes(field)) {
      out.push(
        violation(
          "CUST-DEFAULTS",
          `body.${field}`,
          `${field} with its default value (the body that wrote it left it out)`,
          "missing",
        ),
      );
    } else {
      out.push(violation(fieldsOf(c), `body.${p.field || "(body)"}`, expectation(p.message), shown(view[field])));
    }
  }
  for (const f of c.decimalProperties) {
    const given = lastSent?.decimals[f];
    const got = view[f];
    if (given === undefined) continue;
    if (typeof got === "number" && got !== given && Number.isInteger(got) && Math.abs(got - given) < 1) {
      out.push(violation("CUST-DECIMALS", `body.${f}`, `${given}, the decimal sent`, String(got)));
    }
  }
  // PUT changes the object: fields a PUT changed must not all show their old values.
  let changed: ObjectSeen["changed"];
  const kept = method === "PUT" ? seen?.json : undefined;
  const before = kept?.value;
  if (sent && kept && before) {
    const skip = new Set([idProperty, c.databaseProperty, ...c.sequences]);
    const fieldsChanged = Object.keys(sent.view).filter((f) => !skip.has(f) && !same(sent.view[f], before[f]));
    if (fieldsChanged.length > 0) changed = { fields: fieldsChanged, before, bytes: kept.bytes };
  }
  const pending = method === "PUT" ? changed : method === "GET" ? seen?.changed : undefined;
  if (pending?.fields.every((f) => same(view[f], pending.before[f]))) {
    out.push(
      violation(
        "CUST-UPDATE-ID",
        `body.${pending.fields[0]}`,
        `the value PUT sent (${pending.fields.join(", ")} changed)`,
        `${shown(view[pending.fields[0]!])}, unchanged`,
      ),
    );
  }
  // What later exchanges compare with (XML parity, a PUT's change) leaves out what was reported here.
  for (const f of reported) if (!c.dateProperties.includes(f)) delete own()[f];
  d.view = view;
  d.changed = changed;
  return out;
}

/** A call of an operation the contract declares: the bearer steps, then the answer's. */
export const DATA = group<DataCall>({
  name: "a data call of an operation the contract declares",
  read(j) {
    const { place, ex, method } = j;
    const op = place.operation;
    if (place.endpoint !== "data" || place.noDatabase || !place.operationId || !op) return undefined;
    const c = op.collection;
    const db = op.databaseParam ? (place.params[op.databaseParam] ?? "") : "";
    const key = (id: unknown) => `${c.name}\u0000${db}\u0000${String(id)}`;
    const pathId = op.idParam ? place.params[op.idParam] : undefined;
    const type = mediaType(header(ex, "content-type"));
    return {
      op,
      c,
      key,
      pathId,
      seen: pathId === undefined ? undefined : j.memory.objects.get(key(pathId)),
      sent: WRITES.includes(method) ? requestView(ex, c) : undefined,
      format:
        type === "application/json" || type.endsWith("+json")
          ? "json"
          : /^(application|text)\/xml$/.test(type)
            ? "xml"
            : undefined,
      asked: place.suffix ?? acceptedFormat(ex.requestHeaders.accept),
      body: ex.body ?? NO_BODY,
      reported: new Set(),
      ...bearerOf(j, db),
    };
  },
  steps: [
    ...BEARER_STEPS,
    ...REFUSED.map((s) => ({ ...s, run: (d: DataCall) => (d.ok ? [] : s.run(d)) })),
    ...ANSWERED.map((s) => ({ ...s, run: (d: DataCall) => (d.ok ? s.run(d) : []) })),
    ...BODY.map((s) => ({ ...s, run: (d: DataCall) => (d.ok && d.method !== "DELETE" ? s.run(d) : []) })),
  ],
});
