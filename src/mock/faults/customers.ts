// Faults of the customer resource: its fields, its lifecycle and its list.
import { JSON_FORMAT } from "../core/format.ts";
import { bodyValue } from "../core/http.ts";
import type { Switch } from "../core/scenarios.ts";
import { CUSTOMER_ANSWERS, customersInJson, fault, mapValue } from "./transforms.ts";

/** `MM/dd/yyyy` written another way; other values stay. */
export const rewriteDates =
  (to: (m: string, d: string, y: string) => string) =>
  (c: Record<string, unknown>): Record<string, unknown> => {
    for (const k of ["CocDate", "VatVerificationDate"]) {
      const m = /^(\d\d)\/(\d\d)\/(\d{4})$/.exec(String(c[k]));
      if (m) c[k] = to(m[1]!, m[2]!, m[3]!);
    }
    return c;
  };

export const CUSTOMER_FAULTS: readonly Switch[] = [
  fault({
    name: "field-wrong-type",
    breaks: ["CUST-FIELDS"],
    what: "CreditLimit is written as a string",
    transforms: [customersInJson((c) => ({ ...c, CreditLimit: String(c.CreditLimit) }))],
  }),
  fault({
    name: "field-missing",
    breaks: ["CUST-FIELDS"],
    what: "Fax is left out of customers",
    transforms: [
      customersInJson((c) => {
        delete c.Fax;
        return c;
      }),
    ],
  }),
  fault({
    name: "customer-id-empty",
    breaks: ["CUST-CREATE-ID"],
    what: "the service gives a created customer no identifier",
    transforms: [customersInJson((c) => ({ ...c, CustomerId: "" }))],
  }),
  fault({
    name: "camel-case",
    breaks: ["CUST-NAMES"],
    what: "JSON answers write field names in camelCase",
    rules: { jsonNames: "camel" },
  }),
  fault({
    name: "dates-iso",
    breaks: ["CUST-DATES"],
    what: "dates are written as yyyy-MM-dd",
    transforms: [customersInJson(rewriteDates((m, d, y) => `${y}-${m}-${d}`))],
  }),
  fault({
    name: "decimals-rounded",
    breaks: ["CUST-DECIMALS"],
    what: "amounts are rounded to whole numbers",
    transforms: [
      customersInJson((c) => ({
        ...c,
        CreditLimit: Math.round(Number(c.CreditLimit)),
        DiscountPercentage: Math.round(Number(c.DiscountPercentage)),
      })),
    ],
  }),
  fault({
    name: "defaults-missing",
    breaks: ["CUST-DEFAULTS"],
    what: "properties missing from the body stay missing from the customer",
    rules: { fillDefaults: false },
  }),
  fault({
    name: "full-body-refused",
    breaks: ["CUST-BODY-ALL"],
    what: "a body with every property is refused",
    rules: { acceptAllProperties: false },
  }),
  fault({
    name: "created-not-addressable",
    breaks: ["SVC-RESOURCE-ADDRESS"],
    what: "POST answers an id at which the created customer can not be read",
    transforms: [{ codes: ["customer.created"], apply: mapValue((c) => ({ ...c, CustomerId: `${c.CustomerId}-x` })) }],
  }),
  fault({
    name: "put-ignored",
    breaks: ["CUST-UPDATE-ID"],
    what: "PUT answers 200 and changes nothing",
    rules: { putChanges: false },
  }),
  fault({
    name: "delete-keeps",
    breaks: ["SVC-METHODS"],
    what: "DELETE answers 200 and removes nothing",
    rules: { deleteRemoves: false },
  }),
  fault({
    name: "list-wrapped",
    breaks: ["INFO-LIST"],
    what: "the info list is an object, not a list",
    transforms: [
      {
        codes: ["customer.list"],
        apply: (res) =>
          res.meta?.format?.kind === "json" ? { ...res, body: JSON.stringify({ Items: bodyValue(res.meta) }) } : res,
      },
    ],
  }),
  fault({
    name: "list-writable",
    breaks: ["SVC-READ-ONLY-LIST"],
    what: "POST, PUT and DELETE on the info list answer 200",
    transforms: [
      {
        codes: ["route.no-method"],
        routes: [
          "POST /api/{database_id}/CustomerInfoList",
          "PUT /api/{database_id}/CustomerInfoList",
          "DELETE /api/{database_id}/CustomerInfoList",
        ],
        apply: (res) => ({ ...res, status: 200, body: "[]" }),
      },
    ],
  }),
  fault({
    name: "bad-bodies-500",
    breaks: ["A-INVALID-BODIES"],
    what: "a body of the wrong type or syntax crashes the call (500)",
    transforms: [{ codes: ["body.invalid"], apply: (res) => ({ ...res, status: 500 }) }],
  }),
  fault({
    name: "xml-as-json",
    breaks: ["SVC-FORMATS"],
    what: "XML is asked for, JSON comes back",
    transforms: [
      {
        codes: CUSTOMER_ANSWERS,
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
