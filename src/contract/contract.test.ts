import { describe, expect, it } from "vitest";
import { type JsonSchema, loadContract, SchemaSet, specView } from "./contract.ts";

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
