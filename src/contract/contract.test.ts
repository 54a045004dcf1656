import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  codePoints,
  isCalendarDateOrOtherForm,
  type JsonSchema,
  loadContract,
  monthDayYear,
  SchemaSet,
  specView,
} from "./contract.ts";

// The customer field table of the service description, transcribed: this is
// the oracle the contract is held to, so it is written out, not derived.
const FIELD_TABLE: Array<[string, "boolean" | "string" | "string?" | "number" | "integer" | "date?" | "array?"]> = [
  ["ApplyOrderSurcharge", "boolean"],
  ["ChargeVatTypeId", "string"],
  ["CollectiveInvoiceSystemId", "string?"],
  ["CombineInvoicesForElectronicBanking", "boolean"],
  ["CreditLimit", "number"],
  ["CreditSqueezeId", "string?"],
  ["CurrencyId", "string?"],
  ["CustomerGroupId", "integer"],
  ["CustomerStateId", "string?"],
  ["Database", "string?"],
  ["DeliveryConditionId", "string?"],
  ["DiscountPercentage", "number"],
  ["HasOutstandingBalance", "boolean"],
  ["IncludeUnpaidInvoices", "boolean"],
  ["IntrastatGoodsCodeId", "string?"],
  ["IntrastatGoodsDistributionId", "string?"],
  ["IntrastatStatSystemId", "string?"],
  ["IntrastatTrafficRegionId", "string?"],
  ["IntrastatTransactionTypeId", "string?"],
  ["IntrastatTransportTypeId", "string?"],
  ["InvoiceOnBehalfOfMembers", "boolean"],
  ["IsDunForPayment", "boolean"],
  ["IsInFactoring", "boolean"],
  ["IsPaymentRefRequired", "boolean"],
  ["PaymentConditionId", "string?"],
  ["Person", "string?"],
  ["PricelistId", "string?"],
  ["PrintPurchaseDetails", "boolean"],
  ["PurchaseOrganizationId", "string?"],
  ["RevenueAccountId", "string?"],
  ["VatScenarioId", "string?"],
  ["AccountManagerId", "string?"],
  ["Addresses", "array?"],
  ["BusinessNumber", "string?"],
  ["City", "string?"],
  ["CocCity", "string?"],
  ["CocDate", "date?"],
  ["CocRegistration", "string?"],
  ["CountryId", "string?"],
  ["CustomerId", "string"],
  ["Email", "string?"],
  ["Fax", "string?"],
  ["Homepage", "string?"],
  ["LanguageId", "string?"],
  ["MobilePhone", "string?"],
  ["Name", "string"],
  ["OrganizationId", "integer"],
  ["ShortName", "string?"],
  ["Street1", "string?"],
  ["Street2", "string?"],
  ["SupplierId", "string?"],
  ["Telephone", "string?"],
  ["VatNumber", "string?"],
  ["VatVerificationDate", "date?"],
  ["ZipCode", "string?"],
];

const doc = loadContract();
const schemas = doc.components.schemas;
const deref = (s: JsonSchema): JsonSchema =>
  typeof s.$ref === "string"
    ? { ...deref(schemas[s.$ref.split("/").pop() as string] as JsonSchema), ...s, $ref: undefined }
    : s;
const typesOf = (s: JsonSchema) => [deref(s).type].flat().sort();

describe("the customer in the contract", () => {
  const customer = schemas.Customer as { properties: Record<string, JsonSchema>; required: string[] };

  it("has exactly the 55 fields of the service description, all present in answers", () => {
    expect(FIELD_TABLE).toHaveLength(55);
    expect(Object.keys(customer.properties).sort()).toEqual(FIELD_TABLE.map(([n]) => n).sort());
    expect([...customer.required].sort()).toEqual(FIELD_TABLE.map(([n]) => n).sort());
  });

  it.each(FIELD_TABLE)("%s has the type and nullability of the table (%s)", (name, kind) => {
    const prop = customer.properties[name] as JsonSchema;
    const want = {
      boolean: ["boolean"],
      string: ["string"],
      "string?": ["null", "string"],
      number: ["number"],
      integer: ["integer"],
      "date?": ["null", "string"],
      "array?": ["array", "null"],
    }[kind];
    expect(typesOf(prop)).toEqual(want);
    if (kind === "number") expect(prop.format).toBe("decimal");
    if (kind === "date?") expect(deref(prop).pattern).toBeTypeOf("string");
  });

  const valid = new SchemaSet(doc);
  it.each([
    ["03/31/2024", true],
    ["3/1/2024", true],
    ["12/31/1999", true],
    [null, true],
    ["2024-03-31", false],
    ["31/03/2024", false],
    ["31-3-2024", false],
    ["13/01/2024", false],
    ["", false],
  ])("writes dates as month/day/year: %j is %s", (value, ok) => {
    expect(valid.check("MonthDayYear", value).length === 0).toBe(ok);
  });
});

describe("request bodies", () => {
  const requests = new SchemaSet(doc, { useDefaults: true });

  it("fill every missing property with its default, so the answer is a whole customer", () => {
    const body: Record<string, unknown> = { Name: "Bakkerij De Korenaar" };
    expect(requests.check("CustomerRequest", body)).toEqual([]);
    expect(new SchemaSet(doc).check("Customer", body)).toEqual([]);
    expect(body).toMatchObject({
      CustomerId: "",
      OrganizationId: 0,
      ChargeVatTypeId: "J",
      Email: null,
      IsInFactoring: false,
    });
  });

  it("refuse a body without Name, naming the field", () => {
    expect(requests.check("CustomerRequest", {})).toEqual([{ field: "Name", message: "is required" }]);
  });

  it("name the field of a wrong type", () => {
    const problems = requests.check("CustomerRequest", { Name: "X", CreditLimit: "10", Addresses: [{ City: 5 }] });
    expect(problems).toEqual([
      { field: "CreditLimit", message: "must be of type number" },
      { field: "Addresses.0.City", message: "must be of type string or null" },
    ]);
  });
});

describe("the OAuth parts of the contract", () => {
  const valid = new SchemaSet(doc);
  const token = {
    access_token: "a",
    token_type: "bearer",
    expires_in: 7200,
    refresh_token: "r",
    scope: "http://BusinessAdmin.Mock.API/Web/WebApi/*",
  };

  it("accept the token response of the description and nothing with another lifetime", () => {
    expect(valid.check("TokenResponse", token)).toEqual([]);
    expect(valid.check("TokenResponse", { ...token, expires_in: 3600 })).toEqual([
      { field: "expires_in", message: "must be 7200" },
    ]);
  });

  it("tell the two grant types apart and require every parameter of each", () => {
    const base = { client_id: "c", client_secret: "s", redirect_uri: "http://localhost/cb" };
    const tokenRequest = (doc.paths["/OAuth/Token"]!.post as any).requestBody.content[
      "application/x-www-form-urlencoded"
    ].schema;
    expect(tokenRequest.discriminator.propertyName).toBe("grant_type");
    expect(valid.check("AuthorizationCodeGrant", { ...base, grant_type: "authorization_code", code: "x" })).toEqual([]);
    expect(valid.check("RefreshTokenGrant", { ...base, grant_type: "refresh_token" })).toEqual([
      { field: "refresh_token", message: "is required" },
    ]);
  });

  it("declare the code and implicit flows with the single scope", () => {
    const flows = (doc.components.securitySchemes as any).oauth2.flows;
    expect(Object.keys(flows).sort()).toEqual(["authorizationCode", "implicit"]);
    expect(Object.keys(flows.authorizationCode.scopes)).toEqual(Object.keys(flows.implicit.scopes));
    expect(Object.keys(flows.implicit.scopes)).toHaveLength(1);
    expect(valid.check("Scope", Object.keys(flows.implicit.scopes)[0])).toEqual([]);
  });

  it("serve the version segment in both spellings on every server", () => {
    for (const server of doc.servers as Array<{ url: string; variables: any }>) {
      expect(server.url).toMatch(/\/\{v\}\{version\}$/);
      expect(server.variables.v.enum).toEqual(["v", "V"]);
    }
  });
});

describe("every data operation of the description", () => {
  const ops: Array<[string, string, string[]]> = [
    ["/api/{database_id}/CustomerInfoList", "get", ["200", "401", "404"]],
    ["/api/{database_id}/Customer/{customer_id}", "get", ["200", "401", "404"]],
    ["/api/{database_id}/Customer", "post", ["200", "400", "401", "404"]],
    ["/api/{database_id}/Customer/{customer_id}", "put", ["200", "400", "401", "404"]],
    ["/api/{database_id}/Customer/{customer_id}", "delete", ["200", "401", "404"]],
  ];
  it.each(ops)("%s %s answers the status codes of the description", (path, method, codes) => {
    const op = doc.paths[path]?.[method] as { responses: Record<string, any> } | undefined;
    expect(op).toBeDefined();
    expect(Object.keys(op!.responses)).toEqual(expect.arrayContaining(codes));
  });
  it("takes customer bodies in JSON and XML", () => {
    const body = (doc.components.requestBodies as any).CustomerBody;
    expect(Object.keys(body.content)).toEqual(["application/json", "application/xml", "text/xml"]);
  });
  it.each(ops.filter(([, m]) => m !== "delete"))("%s %s speaks JSON and XML", (path, method) => {
    const op = doc.paths[path]?.[method] as any;
    expect(Object.keys(op.responses["200"].content)).toEqual(["application/json", "application/xml", "text/xml"]);
    if (method !== "get") expect(op.requestBody.$ref).toBe("#/components/requestBodies/CustomerBody");
  });
});

describe("the spec view of the contract", () => {
  const spec = new SchemaSet(specView(doc));
  const full = new SchemaSet(doc);

  it("does not hold an implementation to our assumptions", () => {
    // Info-list fields and the Address shape are our fill-ins (A-INFO-FIELDS, A-ADDRESS).
    expect(full.check("CustomerInfoList", [{ id: 1 }])).not.toEqual([]);
    expect(spec.check("CustomerInfoList", [{ id: 1 }])).toEqual([]);
    expect(spec.check("CustomerInfoList", [1])).not.toEqual([]);
    expect(spec.check("Error", { message: "x" })).toEqual([]);
  });

  it("still holds it to the description's types", () => {
    const customer = { Name: "x" } as Record<string, unknown>;
    expect(spec.check("Customer", customer).length).toBeGreaterThan(50);
    expect(
      spec.check("TokenResponse", {
        access_token: "a",
        token_type: "bearer",
        expires_in: 3600,
        refresh_token: "r",
        scope: "http://A.B.API/Web/WebApi/*",
      }),
    ).toEqual([{ field: "expires_in", message: "must be 7200" }]);
  });
});

describe("month/day/year dates (A-DATES)", () => {
  // The oracle: the calendar of Date (proleptic Gregorian, as .NET's DateTime), which the
  // allocation-free reader replaced on every body's path.
  const byDate = (text: string) => {
    const m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(text);
    if (!m) return undefined;
    const [month, day, year] = [Number(m[1]), Number(m[2]), Number(m[3])];
    if (year === 0) return undefined; // no year of .NET's DateTime
    const date = new Date(Date.UTC(year, month - 1, day));
    date.setUTCFullYear(year, month - 1, day);
    return date.getUTCMonth() === month - 1 && date.getUTCDate() === day ? { month, day, year } : undefined;
  };
  const pad = (n: number, width: number, padded: boolean) => (padded ? String(n).padStart(width, "0") : String(n));

  it("reads M/d/yyyy as the calendar does, for every year 0000-9999", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 13 }),
        fc.integer({ min: 0, max: 32 }),
        fc.integer({ min: 0, max: 9999 }),
        fc.boolean(),
        (month, day, year, padded) => {
          const text = `${pad(month, 2, padded)}/${pad(day, 2, padded)}/${pad(year, 4, true)}`;
          expect(monthDayYear(text)).toEqual(byDate(text));
          expect(isCalendarDateOrOtherForm(text)).toBe(byDate(text) !== undefined);
        },
      ),
      { numRuns: 5000 },
    );
  });

  it("names the leap days and refuses the days that do not exist", () => {
    expect(monthDayYear("02/29/2000")).toEqual({ month: 2, day: 29, year: 2000 });
    expect(monthDayYear("2/29/2024")).toEqual({ month: 2, day: 29, year: 2024 });
    expect(monthDayYear("02/29/0004")).toEqual({ month: 2, day: 29, year: 4 });
    expect(monthDayYear("01/01/0001")).toEqual({ month: 1, day: 1, year: 1 });
    for (const gone of [
      "02/29/1900",
      "02/30/2024",
      "04/31/2024",
      "13/01/2024",
      "00/10/2024",
      "01/00/2024",
      "01/01/0000",
      "02/29/0000",
    ]) {
      expect(monthDayYear(gone), gone).toBeUndefined();
      expect(isCalendarDateOrOtherForm(gone), gone).toBe(false);
    }
  });

  it("leaves text of another form to the schema's pattern", () => {
    for (const other of [
      "2024-01-15",
      "1/15/24",
      "001/15/2024",
      "1/15/20245",
      "a1/15/2024",
      "1//2024",
      "",
      "1/1/+202",
    ]) {
      expect(monthDayYear(other), other).toBeUndefined();
      expect(isCalendarDateOrOtherForm(other), other).toBe(true);
    }
  });
});

/** A contract of named schemas and nothing else, for the tests of how schemas compile. */
const schemasOnly = <S extends Record<string, JsonSchema>>(schemas: S) => ({
  openapi: "3.1.0",
  info: { title: "t", version: "1" },
  paths: {},
  components: { schemas },
});

describe("length limits count code points (maxLength, minLength)", () => {
  const doc = schemasOnly({
    Short: { type: "string", minLength: 2, maxLength: 3 },
    Code: { type: "string", maxLength: 3, pattern: "^[a-z]*$", format: "uri" },
  });
  const schemas = new SchemaSet(doc);
  const emoji = "\u{1F600}";

  it("a surrogate pair is one character, as Ajv counts it", () => {
    expect(schemas.check("Short", emoji.repeat(3))).toEqual([]);
    expect(schemas.check("Short", `a${emoji}`)).toEqual([]);
    expect(schemas.check("Short", emoji.repeat(4))).not.toEqual([]);
    expect(schemas.check("Short", emoji)).not.toEqual([]);
    // A lone surrogate is a character of its own.
    expect(schemas.check("Short", "\ud800\ud800\ud800\ud800")).not.toEqual([]);
    expect(codePoints(`${emoji}\ud800x\udc00`)).toBe(4);
  });

  it.each([
    ["Short", ["abcd", "a", "", emoji.repeat(5), "ab"]],
    ["Code", ["ABCDE", "abcd", "ab", "A"]],
  ] as const)("answers %s with Ajv's own errors, in Ajv's order", (name, texts) => {
    const ajv = new Ajv2020({ allErrors: true });
    addFormats.default(ajv, ["uri"]);
    const theirs = ajv.compile(doc.components.schemas[name]);
    for (const text of texts) {
      const ours = schemas.validator(name);
      expect(ours(text), text).toBe(theirs(text));
      // A text already too long is not matched against the pattern too (A-LIMITS): one error fewer.
      const tooLong = codePoints(text) > 3;
      expect(
        ours.errors?.map((e) => [e.keyword, e.message, e.params]),
        text,
      ).toEqual(
        theirs.errors
          ?.filter((e) => !(tooLong && e.keyword === "pattern"))
          .map((e) => [e.keyword, e.message, e.params]),
      );
    }
  });
});

describe("a schema that is no JSON Schema", () => {
  // Checked as it compiles (the document is not checked against the meta-schema: its schemas sit
  // under `components`, which the meta-schema does not read).
  const doc = schemasOnly({ BadType: { type: "strnig" }, LooseLimit: { maxLength: 3 } });

  it("stops the compile naming what is wrong", () => {
    const schemas = new SchemaSet(doc);
    expect(() => schemas.validator("BadType")).toThrow(/type must be JSONType or JSONType\[\]: strnig/);
    expect(() => schemas.validator("LooseLimit")).toThrow(/strict mode: missing type "string" for keyword "maxLength"/);
  });
});
