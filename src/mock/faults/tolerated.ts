// Tolerated behaviours: what real ASP.NET services of the family do that the
// description does not forbid, or forbids in a way the suite reports once.
// The suite must pass against each, or report exactly the finding named in
// `expect`; `bawa faults` runs the suite against each and judges it.
import type { Switch } from "../core/scenarios.ts";
import { rewriteDates } from "./resources.ts";
import { objectsInAnswers, objectsInJson } from "./transforms.ts";

const tolerated = (s: Omit<Switch, "kind">): Switch => ({ kind: "tolerated", ...s });

/** Fields real customers carry that the description does not list (research notes). */
const EXTRA_FIELDS = {
  customProperties: { Region: "Noord" },
  canChange: true,
  dateCreated: "2024-03-01T09:30:00",
  dateChanged: "2024-03-02T16:05:00",
  fullAddress: "Oudegracht 1, 3511 AA Utrecht",
  messages: [],
};

export const TOLERATED: readonly Switch[] = [
  tolerated({
    name: "extra-fields-json",
    group: "extra-fields",
    what: "JSON objects carry fields the description does not list; XML does not",
    transforms: [objectsInJson((o) => ({ ...o, ...EXTRA_FIELDS }))],
    expect: [{ settings: {}, failed: [] }],
  }),
  tolerated({
    name: "extra-fields-both",
    group: "extra-fields",
    what: "objects carry fields the description does not list, in JSON and XML",
    transforms: [objectsInAnswers((o) => ({ ...o, ...EXTRA_FIELDS }))],
    expect: [{ settings: {}, failed: [] }],
  }),
  tolerated({
    name: "camel-case-json",
    group: "names",
    what: "JSON answers are camelCase (Json.NET's camelCase resolver), XML keeps PascalCase",
    rules: { jsonNames: "camel" },
    expect: [
      { settings: {}, failed: ["CUST-NAMES"] },
      { settings: { CONFORMANCE_CASE_INSENSITIVE_NAMES: "1" }, failed: ["CUST-NAMES"] },
    ],
  }),
  tolerated({
    name: "iso-dates",
    group: "dates",
    what: "CocDate and VatVerificationDate are written yyyy-MM-ddTHH:mm:ss",
    transforms: [objectsInJson(rewriteDates((m, d, y) => `${y}-${m}-${d}T00:00:00`))],
    expect: [
      { settings: {}, failed: ["CUST-DATES"] },
      { settings: { CONFORMANCE_ACCEPT_DATE_FORMATS: "iso" }, failed: ["CUST-DATES"] },
    ],
  }),
  tolerated({
    name: "dmy-dates",
    group: "dates",
    what: "CocDate and VatVerificationDate are written d-M-yyyy",
    transforms: [objectsInJson(rewriteDates((m, d, y) => `${Number(d)}-${Number(m)}-${y}`))],
    expect: [
      { settings: {}, failed: ["CUST-DATES"] },
      { settings: { CONFORMANCE_ACCEPT_DATE_FORMATS: "dmy" }, failed: ["CUST-DATES"] },
    ],
  }),
  tolerated({
    name: "unknown-method-405",
    what: "a method the path does not have is 405 with Allow, as ASP.NET answers",
    transforms: [
      {
        codes: ["route.no-method"],
        apply: (res) => ({
          ...res,
          status: 405,
          headers: { ...res.headers, allow: (res.meta?.allow ?? []).join(", ") },
        }),
      },
    ],
    expect: [{ settings: {}, failed: [] }],
  }),
  tolerated({
    name: "error-without-modelstate",
    what: "error bodies carry only Message, no ModelState",
    transforms: [
      {
        apply: (res, t) => {
          if (res.meta?.schema !== "Error") return res;
          const { ModelState: _gone, ...rest } = res.meta.value as Record<string, unknown>;
          return t.reencode(res, rest);
        },
      },
    ],
    expect: [{ settings: {}, failed: [] }],
  }),
];
