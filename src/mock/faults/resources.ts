// Faults of the resources of the contract: their fields, their lifecycle and
// their lists. Each acts on every resource; which properties it touches is read
// from the resource's schema (its numbers, dates, decimals), never named here.
import type { Collection } from "../../contract/index.ts";
import { JSON_FORMAT } from "../core/format.ts";
import { bodyValue } from "../core/http.ts";
import type { Switch } from "../core/scenarios.ts";
import { fault, mapValue, OBJECT_ANSWERS, objectsInAnswers, objectsInJson } from "./transforms.ts";

type Json = Record<string, unknown>;

/** The first property (in contract order) of the collection that `test` picks, and is in `o`. */
const firstWhere = (o: Json, c: Collection, test: (k: string) => boolean) =>
  c.properties.find((k) => k in o && k !== c.idProperty && test(k));
const isNumber = (c: Collection) => (k: string) => c.types[k]!.some((t) => t === "number" || t === "integer");
/** A nullable property no list shows, no date: leaving it out is noticed only by a check of all fields. */
const quietNullable = (c: Collection) => (k: string) =>
  c.types[k]!.includes("null") && !c.dateProperties.includes(k) && c.types[k]!.includes("string");

/** Every month/day/year date property of an object (`MM/dd/yyyy`) written another way; other values stay. */
export const rewriteDates =
  (to: (m: string, d: string, y: string) => string) =>
  (o: Json, c: Collection): Json => {
    for (const k of c.dateProperties) {
      const m = /^(\d\d)\/(\d\d)\/(\d{4})$/.exec(String(o[k]));
      if (m) o[k] = to(m[1]!, m[2]!, m[3]!);
    }
    return o;
  };

export const RESOURCE_FAULTS: readonly Switch[] = [
  fault({
    name: "field-wrong-type",
    breaks: ["CUST-FIELDS", "SVC-FIELDS"],
    says: /must be of type number/,
    what: "the first number property of each object is written as a string",
    transforms: [
      objectsInJson((o, c) => {
        const k = firstWhere(o, c, isNumber(c));
        return k ? { ...o, [k]: String(o[k]) } : o;
      }),
    ],
  }),
  fault({
    name: "field-missing",
    breaks: ["CUST-FIELDS", "SVC-FIELDS"],
    says: /is required/,
    what: "the first nullable text property of each object, no date, is left out",
    transforms: [
      objectsInJson((o, c) => {
        const k = firstWhere(o, c, quietNullable(c));
        if (k) delete o[k];
        return o;
      }),
    ],
  }),
  fault({
    name: "created-without-id",
    breaks: ["CUST-CREATE-ID"],
    says: /answers the identifier the service gave[\s\S]*Received: ""/,
    what: "the service gives objects no identifier (an empty id)",
    transforms: [objectsInAnswers((o, c) => (c.idProperty && c.idProperty in o ? { ...o, [c.idProperty]: "" } : o))],
  }),
  fault({
    name: "camel-case",
    breaks: ["CUST-NAMES"],
    says: /field names differ from the table only in case/,
    what: "JSON answers write field names in camelCase",
    rules: { jsonNames: "camel" },
  }),
  fault({
    name: "dates-iso",
    breaks: ["CUST-DATES"],
    says: /dates are written ISO/,
    what: "dates are written as yyyy-MM-dd",
    transforms: [objectsInJson(rewriteDates((m, d, y) => `${y}-${m}-${d}`))],
  }),
  fault({
    name: "decimals-rounded",
    breaks: ["CUST-DECIMALS"],
    says: /Expected: 12345\.67[\s\S]*Received: 12346/,
    what: "amounts (format decimal) are rounded to whole numbers",
    transforms: [
      objectsInJson((o, c) => {
        for (const k of c.properties)
          if (c.formats[k] === "decimal" && typeof o[k] === "number") o[k] = Math.round(o[k]);
        return o;
      }),
    ],
  }),
  fault({
    name: "defaults-missing",
    breaks: ["CUST-DEFAULTS"],
    says: /omitted properties missing from the stored/,
    what: "properties missing from the body stay missing from the object",
    rules: { fillDefaults: false },
  }),
  fault({
    name: "put-keeps-omitted",
    breaks: ["CUST-DEFAULTS"],
    says: /a PUT left out that kept the value/,
    what: "a property a PUT leaves out keeps its old value instead of its default",
    rules: { putFillsDefaults: false },
  }),
  fault({
    name: "full-body-refused",
    breaks: ["CUST-BODY-ALL"],
    says: /too many properties[\s\S]*Expected: 200[\s\S]*Received: 400/,
    what: "a body with every property is refused",
    rules: { acceptAllProperties: false },
  }),
  fault({
    name: "created-not-addressable",
    breaks: ["SVC-RESOURCE-ADDRESS"],
    says: /the address POST named[\s\S]*Expected: 200[\s\S]*Received: 404/,
    what: "POST answers an id at which the created object can not be read",
    transforms: [
      {
        codes: ["resource.created"],
        apply: (res, t) => {
          const id = t.operation(res)?.collection.idProperty;
          return id ? mapValue((o) => ({ ...o, [id]: `${o[id]}-x` }))(res, t) : res;
        },
      },
    ],
  }),
  fault({
    name: "put-ignored",
    breaks: ["CUST-UPDATE-ID", "SVC-METHODS"],
    says: /PUT's .*read back/,
    what: "PUT answers 200 and changes nothing",
    rules: { putChanges: false },
  }),
  fault({
    name: "delete-keeps",
    breaks: ["SVC-METHODS"],
    says: /after DELETE[\s\S]*Expected: 404[\s\S]*Received: 200/,
    what: "DELETE answers 200 and removes nothing",
    rules: { deleteRemoves: false },
  }),
  fault({
    name: "list-wrapped",
    breaks: ["INFO-LIST"],
    says: /\(body\) must be of type array/,
    what: "lists are an object, not a list",
    transforms: [
      {
        codes: ["resource.list"],
        apply: (res) =>
          res.meta?.format?.kind === "json" ? { ...res, body: JSON.stringify({ Items: bodyValue(res.meta) }) } : res,
      },
    ],
  }),
  fault({
    name: "list-writable",
    breaks: ["SVC-READ-ONLY-LIST"],
    says: /answered 200[\s\S]*Expected: false/,
    what: "POST, PUT and DELETE on read-only resources (lists, info objects) answer 200",
    transforms: [
      {
        codes: ["route.no-method"],
        // A path whose only method is GET is a read-only resource's.
        apply: (res) =>
          res.meta?.allow?.every((m) => m === "GET" || m === "HEAD") ? { ...res, status: 200, body: "[]" } : res,
      },
    ],
  }),
  fault({
    name: "bad-bodies-500",
    breaks: ["A-INVALID-BODIES"],
    says: /500/,
    what: "a body of the wrong type or syntax crashes the call (500)",
    transforms: [{ codes: ["body.invalid", "body.malformed"], apply: (res) => ({ ...res, status: 500 }) }],
  }),
  fault({
    name: "required-not-enforced",
    breaks: ["SVC-REQUIRED", "A-REQUIRED"],
    says: /without \w+: answered 200|without Name[\s\S]*Expected: 400[\s\S]*Received: 200/,
    what: "a body without a property its schema requires is stored, that property given a value (a body without any is still 400)",
    rules: { enforceRequired: false },
  }),
  fault({
    name: "values-fitted",
    breaks: ["A-INVALID-BODIES", "A-LIMITS"],
    says: /answered 200 .*\((cut to \d+ characters|not the value sent)\)|Expected: 400[\s\S]*Received: 200/,
    what: "a text over its maxLength is stored cut to it, a value its enum does not list as the enum's first",
    rules: { refuseOutOfDomain: false },
  }),
  fault({
    name: "replacements-not-validated",
    // The customer's row of A-REQUIRED: its other check (a body without Name) creates.
    breaks: ["A-INVALID-BODIES", "SVC-REQUIRED", "A-REQUIRED · Customer"],
    says: /PUT [^:]*: answered 200/,
    what: "a PUT is not held to a create's rules: a required property it leaves out is given a value, a text over its maxLength cut, a value its enum does not list replaced, and stored (POST still refuses them)",
    rules: { validateReplacements: false },
  }),
  fault({
    name: "xml-unreadable-text-dropped",
    breaks: ["A-INVALID-BODIES"],
    says: /<\w+>[^<]*<\/\w+> in XML: answered 200 .*stored \w+ = .*\((not the value sent|not shown)\)/,
    what: "an XML element whose text its property's type can not read (a number, a truth value, a list written as words) is dropped and the property takes its default, as a reader that tries to parse and ignores a failure does; JSON bodies of the wrong type are still 400",
    rules: { xmlRefusesUnreadableText: false },
  }),
  fault({
    name: "unparsed-replacements-500",
    breaks: ["A-INVALID-BODIES"],
    says: /PUT [^,\s]+, (JSON|XML) ending .*: answered 500/,
    what: "a PUT whose body is not a JSON or XML document crashes the call (500), as an update action that does not check its bound model for null does (POST still refuses it with 400)",
    transforms: [
      {
        codes: ["body.malformed"],
        apply: (res, t) =>
          t.req.method === "PUT" ? t.reencode({ ...res, status: 500 }, { Message: "An error has occurred." }) : res,
      },
    ],
  }),
  fault({
    name: "xml-as-json",
    breaks: ["SVC-FORMATS"],
    says: /an XML media type[\s\S]*Received string:\s+"application\/json/,
    what: "XML is asked for, JSON comes back",
    transforms: [
      {
        codes: [...OBJECT_ANSWERS, "resource.list"],
        apply: (res) =>
          res.meta?.format?.kind === "xml"
            ? {
                ...res,
                headers: { ...res.headers, "content-type": "application/json; charset=utf-8" },
                body: JSON.stringify(bodyValue(res.meta)),
                meta: { ...res.meta, format: JSON_FORMAT },
              }
            : res,
      },
    ],
  }),
];
