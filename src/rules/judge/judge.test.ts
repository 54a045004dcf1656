// The judge on hand-made exchanges: what a conforming implementation may
// answer that the mock never does (a login page at the authorize address, a
// write answered with the id alone, fields and resources the description does
// not show), and drifts reported once rather than as a cascade.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { writeCopy } from "../../../scripts/copy-resource.mjs";
import { compileContract, contractInUse } from "../../contract/index.ts";
import { completeBody, type PropertySchema, propertiesOf, valueFor } from "../bodies.ts";
import { type Exchange, jsonOf } from "../exchange.ts";
import { CLIENT_KEYED_BYTES, KeptView } from "../memory.ts";
import { CLOCK_HEADER, clockHeader, readClockHeader } from "../mock-state.ts";
import { describedOrSelf } from "../names.ts";
import { Places } from "../places.ts";
import { Judge } from "./index.ts";
import { isObject } from "./step.ts";

const contract = contractInUse();
const seed = (await import("../../../mock-data/Customer/DEMO.json", { with: { type: "json" } })).default as Array<
  Record<string, unknown>
>;
const customer = seed[0]!;

type Given = Partial<Omit<Exchange, "body" | "requestBody">> & { body?: unknown; requestBody?: unknown };

/** An exchange: JSON bodies are given as values, text as strings. */
function exchange(g: Given): Exchange {
  const encode = (b: unknown) =>
    b === undefined ? undefined : Buffer.from(typeof b === "string" ? b : JSON.stringify(b), "utf8");
  return {
    method: g.method ?? "GET",
    url: g.url ?? "/v1/api/DEMO/Customer/1001",
    requestHeaders: { authorization: "Bearer a-token-of-the-client", ...g.requestHeaders },
    requestBody: encode(g.requestBody),
    status: g.status ?? 200,
    headers: { "content-type": "application/json; charset=utf-8", ...g.headers },
    body: encode(g.body),
    at: g.at ?? Date.now(),
  };
}

const camel = (o: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(o).map(([k, v]) => [k.charAt(0).toLowerCase() + k.slice(1), v]));

/** A create answered with the id alone (its body is not shown), and the object's address and fields. */
const createdWith = (requestBody: Record<string, unknown>): Given => ({
  method: "POST",
  url: "/v1/api/DEMO/Customer",
  requestBody,
  requestHeaders: { "content-type": "application/json" },
  body: { CustomerId: "1009" },
});
const at1009 = "/v1/api/DEMO/Customer/1009";
const stored = { ...customer, CustomerId: "1009" };
const without = (o: Record<string, unknown>, field: string) =>
  Object.fromEntries(Object.entries(o).filter(([k]) => k !== field));

const cases: Array<[string, { given: Given[]; want: string[] }]> = [
  ["a customer as the table describes it", { given: [{ body: customer }], want: [] }],
  [
    "a customer with fields the description does not list",
    { given: [{ body: { ...customer, dateCreated: "2024-03-01T09:30:00", customProperties: {} } }], want: [] },
  ],
  [
    "camelCase names: one CUST-NAMES, not 55 missing fields",
    { given: [{ body: camel(customer) }], want: ["CUST-NAMES"] },
  ],
  [
    "ISO dates: CUST-DATES for each date, nothing else",
    {
      given: [{ body: { ...customer, CocDate: "2011-03-14T00:00:00", VatVerificationDate: "2024-01-15" } }],
      want: ["CUST-DATES", "CUST-DATES"],
    },
  ],
  [
    "the XML form with another value than the JSON form",
    {
      given: [
        { body: customer },
        {
          headers: { "content-type": "application/xml" },
          requestHeaders: { accept: "application/xml" },
          body: `<Customer><CustomerId>1001</CustomerId><Name>${customer.Name}</Name><City>Elders</City></Customer>`,
        },
      ],
      want: ["SVC-FORMATS"],
    },
  ],
  [
    "a PUT answered in XML is the object now: a later JSON read is held to it, not to an XML read before",
    {
      given: [
        {
          headers: { "content-type": "application/xml" },
          requestHeaders: { accept: "application/xml" },
          body: contract.xml.stringify("Customer", customer),
        },
        {
          method: "PUT",
          requestHeaders: { "content-type": "application/xml", accept: "application/xml" },
          requestBody: contract.xml.stringify("CustomerRequest", { ...customer, City: "Elders" }),
          headers: { "content-type": "application/xml" },
          body: contract.xml.stringify("Customer", { ...customer, City: "Elders" }),
        },
        { body: { ...customer, City: "Elders" } },
        // The same answer twice would be judged as a drift had the PUT's XML not been kept.
        { body: { ...customer, City: "Gouda" } },
      ],
      want: ["SVC-FORMATS"],
    },
  ],
  [
    "a create naming an id of the client's choosing refused (it may be in use): no CUST-BODY-ALL",
    {
      given: [
        {
          method: "POST",
          url: "/v1/api/DEMO/Customer",
          requestHeaders: { "content-type": "application/json" },
          // A body the service had no reason to refuse but its id: every property, codes at their defaults.
          requestBody: {
            ...completeBody(contract, contract.resources.collections.find((c) => c.name === "Customer")!, {
              name: "A chosen id",
              nameProperty: "Name",
            }),
            CustomerId: "1001",
          },
          status: 400,
          body: {
            Message: "The request is invalid.",
            ModelState: { "customer.CustomerId": ["1001 is already in use"] },
          },
        },
      ],
      want: [],
    },
  ],
  [
    "a write answered with the id alone (its body is not shown)",
    {
      given: [
        {
          method: "POST",
          url: "/v1/api/DEMO/Customer",
          requestBody: { Name: "X" },
          requestHeaders: { "content-type": "application/json" },
          body: { CustomerId: "1009" },
        },
      ],
      want: [],
    },
  ],
  [
    "a decimal a create sent, rounded on a later read",
    {
      given: [
        createdWith({ ...customer, CustomerId: "" }),
        { url: at1009, body: { ...stored, DiscountPercentage: 3 } },
      ],
      want: ["CUST-DECIMALS"],
    },
  ],
  [
    "a field a create left out, missing on a later read: its default",
    {
      given: [createdWith(without(customer, "Email")), { url: at1009, body: without(stored, "Email") }],
      want: ["CUST-DEFAULTS"],
    },
  ],
  [
    "a field a create sent, missing on a later read",
    { given: [createdWith(customer), { url: at1009, body: without(stored, "Email") }], want: ["CUST-FIELDS"] },
  ],
  [
    "a resource the contract does not declare",
    { given: [{ url: "/v1/api/DEMO/SupplierInfoList", body: [{ x: 1 }] }], want: [] },
  ],
  [
    "the login screen at the authorize address (200), refusing framing",
    {
      given: [
        {
          url: "/v1/OAuth/Authorize?client_id=c&redirect_uri=http%3A%2F%2Fapp.example%2Fcb&scope=s&response_type=code",
          headers: { "content-type": "text/html", "x-frame-options": "DENY" },
          body: "<form></form>",
        },
      ],
      want: [],
    },
  ],
  [
    "the login screen at the authorize address, framable",
    {
      given: [
        {
          url: "/v1/OAuth/Authorize?client_id=c&redirect_uri=http%3A%2F%2Fapp.example%2Fcb&scope=s&response_type=code",
          headers: { "content-type": "text/html" },
          body: "<form></form>",
        },
      ],
      want: ["OAUTH-SCREENS-NO-FRAMING"],
    },
  ],
  [
    "a 401 with a challenge that is not Bearer",
    {
      given: [{ status: 401, headers: { "www-authenticate": 'Basic realm="x"' }, body: { Message: "no" } }],
      want: ["OAUTH-BEARER-CHALLENGE"],
    },
  ],
  [
    "an answer in JSON when Accept asked only for XML",
    { given: [{ requestHeaders: { accept: "application/xml" }, body: customer }], want: ["SVC-FORMATS"] },
  ],
  [
    "an answer in JSON when Accept takes anything",
    { given: [{ requestHeaders: { accept: "*/*" }, body: customer }], want: [] },
  ],
];

describe("the judge", () => {
  it.each(cases)("%s", (_name, { given, want }) => {
    const judge = new Judge(contract);
    const got = given.flatMap((g) => judge.judge(exchange(g)).map((v) => v.requirement));
    expect(got).toEqual(want);
  });

  it("never shows a token, code or secret as what it found", () => {
    const judge = new Judge(contract);
    const token = "a-short-one";
    const violations = judge.judge(
      exchange({
        method: "POST",
        url: "/v1/OAuth/Token",
        requestHeaders: { "content-type": "application/x-www-form-urlencoded" },
        requestBody: "grant_type=refresh_token&refresh_token=r&client_id=c&client_secret=s&redirect_uri=u",
        headers: { "content-type": "application/json", "cache-control": "no-store" },
        body: { access_token: token, token_type: "bearer", expires_in: 7200, scope: "http://A.B.API/Web/WebApi/*" },
      }),
    );
    expect(violations.map((v) => v.requirement)).toEqual(["TOK-REFRESH", "OAUTH-TOKEN-ENTROPY"]);
    expect(JSON.stringify(violations)).not.toContain(token);
  });
});

describe("the client a data call's token was issued to", () => {
  const scope = "http://A.B.API/Web/WebApi/*";
  const tokenAnswer = (access: string) => ({
    headers: { "content-type": "application/json", "cache-control": "no-store", pragma: "no-cache" },
    body: { access_token: access, token_type: "bearer", expires_in: 7200, refresh_token: `r-${access}`, scope },
  });
  const readWith = (token: string) => exchange({ requestHeaders: { authorization: `bearer ${token}` } });

  it("is the token request's client (code flow), or the authorization's (implicit flow); unknown otherwise", () => {
    const judge = new Judge(contract);
    const code = "a-code-of-128-bits-AAAAAAAAAAAAAAAAAAAAAAAA";
    const access = "an-access-token-of-128-bits-BBBBBBBBBBBBBBBBBBBB";
    judge.judge(
      exchange({
        method: "POST",
        url: "/v1/OAuth/Token",
        requestHeaders: { "content-type": "application/x-www-form-urlencoded" },
        requestBody: `grant_type=authorization_code&code=${code}&client_id=code-client&client_secret=s&redirect_uri=http%3A%2F%2Flocalhost%2Fcb`,
        ...tokenAnswer(access),
      }),
    );
    expect(judge.clientOfToken(readWith(access))).toBe("code-client");

    const implicit = "an-implicit-token-of-128-bits-CCCCCCCCCCCCCCCCCC";
    judge.judge(
      exchange({
        url: `/v1/OAuth/Authorize?client_id=implicit-client&redirect_uri=${encodeURIComponent("http://localhost/app")}&response_type=token&scope=${encodeURIComponent(scope)}&state=s1`,
        requestHeaders: {},
        status: 302,
        headers: { location: "/v1/OAuth/Login?returnUrl=x" },
      }),
    );
    judge.judge(
      exchange({
        method: "POST",
        url: "/v1/OAuth/Permission",
        requestHeaders: { "content-type": "application/x-www-form-urlencoded" },
        requestBody: "decision=allow",
        status: 303,
        headers: {
          location: `http://localhost/app#access_token=${implicit}&token_type=bearer&expires_in=7200&scope=${encodeURIComponent(scope)}&state=s1`,
        },
      }),
    );
    expect(judge.clientOfToken(readWith(implicit))).toBe("implicit-client");
    expect(judge.clientOfToken(readWith("a-token-the-judge-never-saw-issued"))).toBeUndefined();
    expect(judge.clientOfToken(exchange({ requestHeaders: { authorization: "Basic Y2xpZW50OnM=" } }))).toBeUndefined();
  });
});

describe("a resource the description does not show", () => {
  // Supplier, copied from Customer: its contract requires Name, as the customer's does.
  const dir = mkdtempSync(join(tmpdir(), "bawa-judge-supplier-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const teamContract = compileContract(writeCopy({ from: "Customer", to: "Supplier", out: join(dir, "openapi.yaml") }));
  const { CustomerId: _, ...fields } = customer;
  const supplier = { ...fields, SupplierId: "1" };
  const write = (method: "POST" | "PUT", requestBody: Record<string, unknown>, status = 200): Exchange =>
    exchange({
      method,
      url: method === "POST" ? "/v1/api/DEMO/Supplier" : "/v1/api/DEMO/Supplier/1",
      requestHeaders: { "content-type": "application/json" },
      requestBody,
      status,
      body: status === 200 ? supplier : { Message: "The request is invalid." },
    });

  it.each([
    ["POST", { ...supplier, SupplierId: "" }, 200, []],
    ["PUT", supplier, 200, []],
    ["POST", without({ ...supplier, SupplierId: "" }, "Name"), 400, []],
    ["POST", without({ ...supplier, SupplierId: "" }, "Name"), 200, ["SVC-REQUIRED body.Name"]],
    ["PUT", without(supplier, "Name"), 200, ["SVC-REQUIRED body.Name"]],
    // Names bind without case, as the service binds a JSON body.
    ["POST", { name: "Groothandel" }, 200, []],
  ] as const)("%s %j answered %i: %j", (method, body, status, want) => {
    const judge = new Judge(teamContract);
    const got = judge.judge(write(method, body, status)).map((v) => `${v.requirement} ${v.where}`);
    expect(got).toEqual(want);
  });
});

describe("what the judge reads and keeps", () => {
  it("leaves the parsed body as it came: the recording and the log read the same value", () => {
    const judge = new Judge(contract);
    // Every name as the table writes it (the view would be the body itself), one date drifted.
    const drifted = exchange({
      url: "/v1/api/DEMO/Customer/1002",
      body: { ...customer, CustomerId: "1002", CocDate: "2011-03-14T00:00:00" },
    });
    const extra = exchange({ url: "/v1/api/DEMO/Customer/1003", body: { ...customer, CustomerId: "1003", extra: 1 } });
    expect(judge.judge(drifted).map((v) => v.requirement)).toEqual(["CUST-DATES"]);
    expect(judge.judge(extra)).toEqual([]);
    // jsonOf hands every reader one parsed value: the judge must change a copy, never it.
    expect(jsonOf(drifted.body)?.value).toEqual({ ...customer, CustomerId: "1002", CocDate: "2011-03-14T00:00:00" });
    // What it remembers is the view as the table reads it: the date converted, a field it does not describe dropped.
    const kept = (id: string) => judge.memory.objects.get(`Customer\u0000DEMO\u0000${id}`)?.json?.value;
    expect(kept("1002")?.CocDate).toBe("03/14/2011");
    expect(kept("1003")).toEqual({ ...customer, CustomerId: "1003" });
  });

  it("keeps a view that is the body as it came as the body's text, any other as it is, and what a create gave", () => {
    const judge = new Judge(contract);
    const created = exchange({
      method: "POST",
      url: "/v1/api/DEMO/Customer",
      requestHeaders: { "content-type": "application/json" },
      requestBody: { ...customer, CustomerId: "" },
      status: 201,
      body: { ...customer, CustomerId: "2001" },
    });
    expect(judge.judge(created)).toEqual([]);
    const seen = judge.memory.objects.get("Customer\u0000DEMO\u00002001");
    // Read again from the text, not the parsed answer the exchange's readers shared (memory.ts).
    expect(seen?.json?.value).toEqual({ ...customer, CustomerId: "2001" });
    expect(seen?.json?.value).not.toBe(jsonOf(created.body)?.value);
    // Of the body it sent, the fields it gave and its decimals with a fraction: a read judges no more.
    const c = contract.resources.collections.find((x) => x.name === "Customer")!;
    expect(seen?.sent?.names).toBe(c.request?.properties);
    expect(seen?.sent?.decimals).toEqual(
      Object.fromEntries(
        c.decimalProperties.flatMap((f) => {
          const x = customer[f];
          return typeof x === "number" && !Number.isInteger(x) ? [[f, x]] : [];
        }),
      ),
    );
    // Parsed once: the second read is the first's value.
    expect(seen?.json?.value).toBe(seen?.json?.value);
    const view = { Name: "a" };
    expect(KeptView.of(view, { value: { name: "a" }, text: '{"name":"a"}' }).value).toBe(view);
  });

  it("keeps objects up to a weight in bytes, the oldest forgotten first, and still judges the recent ones", () => {
    // The largest customer the contract allows: every address it may hold, every text at its
    // maxLength in four-byte characters (a client chooses what it creates).
    const wide = "\u{1F600}".repeat(1000);
    const c = contract.resources.collections.find((x) => x.name === "Customer")!;
    const request = propertiesOf(contract, c.request!.schema);
    const fill = (props: Record<string, PropertySchema>, o: Record<string, unknown>) =>
      Object.fromEntries(
        Object.entries(o).map(([k, v]) => [
          k,
          typeof v === "string" && props[k]?.maxLength ? valueFor(props[k], wide) : v,
        ]),
      );
    const address = fill(propertiesOf(contract, "Address"), (customer.Addresses as Array<Record<string, unknown>>)[0]!);
    const large = fill(request, {
      ...customer,
      Addresses: Array.from({ length: (request.Addresses as { maxItems: number }).maxItems }, (_, i) => ({
        ...address,
        AddressId: i + 1,
      })),
    });
    const limit = 1024 * 1024;
    const judge = new Judge(contract, { objectsBytes: limit });
    const creates = 12;
    for (let i = 0; i < creates; i++) {
      const id = String(3000 + i);
      judge.judge(exchange({ ...createdWith(large), status: 201, body: { ...large, CustomerId: id } }));
      expect(judge.memory.objects.weight).toBeLessThanOrEqual(limit);
    }
    expect(judge.memory.objects.size).toBeGreaterThan(1);
    expect(judge.memory.objects.size).toBeLessThan(creates);
    // A decimal the create sent, rounded on a later read: judged for the newest object; the oldest is forgotten.
    const roundedRead = (id: string) =>
      judge.judge(
        exchange({ url: `/v1/api/DEMO/Customer/${id}`, body: { ...large, CustomerId: id, DiscountPercentage: 3 } }),
      );
    expect(roundedRead(String(3000 + creates - 1)).map((v) => v.requirement)).toEqual(["CUST-DECIMALS"]);
    expect(roundedRead("3000")).toEqual([]);
  });

  it("keeps what clients sent the authorization endpoint up to a weight in bytes, the newest judged", () => {
    // Requests any client may send through the proxy: a state of 64 KB each, twice what 4 MiB holds.
    const judge = new Judge(contract);
    const state = (i: number) => `${i}:${"s".repeat(64 * 1024)}`;
    const redirect = "http://localhost:3000/callback";
    const authorize = (i: number) =>
      exchange({
        url: `/v1/OAuth/Authorize?${new URLSearchParams({ client_id: "demo-client", redirect_uri: redirect, response_type: "code", scope: "x", state: state(i) })}`,
        status: 200,
        headers: { "content-type": "text/html; charset=utf-8", "x-frame-options": "DENY" },
        body: "<html><form method=post><input name=password type=password></form></html>",
      });
    for (let i = 0; i < 64; i++) judge.judge(authorize(i));
    expect(judge.memory.authorizations.weight).toBeLessThanOrEqual(CLIENT_KEYED_BYTES);
    expect(judge.memory.authorizations.size).toBeGreaterThan(10);
    expect(judge.memory.authorizations.size).toBeLessThan(64);
    // The newest is still remembered: its redirect without the state it sent is AUTHZ-STATE's finding.
    const back = (i: number) =>
      judge
        .judge(
          exchange({
            method: "POST",
            url: "/v1/OAuth/Permission",
            status: 302,
            headers: { location: `${redirect}?code=${"c".repeat(40)}&state=${i === 63 ? "other" : state(i)}` },
          }),
        )
        .map((v) => v.requirement);
    expect(back(63)).toContain("AUTHZ-STATE");
  });

  it("parses a body once for all its readers, but keeps no body over 1 MB once read", () => {
    const small = Buffer.from(JSON.stringify(customer));
    expect(jsonOf(small)?.value).toBe(jsonOf(small)?.value);
    const large = Buffer.from(JSON.stringify(Array.from({ length: 600 }, () => customer)));
    expect(large.length).toBeGreaterThan(1024 * 1024);
    expect(jsonOf(large)?.value).not.toBe(jsonOf(large)?.value);
    expect(jsonOf(large)?.value).toEqual(JSON.parse(large.toString()));
  });

  it("a described object is its own view; any other name makes a copy", () => {
    const fields = ["Name", "City"];
    const exact = { Name: "a", City: "b" };
    expect(describedOrSelf(exact, fields)).toBe(exact);
    const other = { name: "a", City: "b", Extra: 1 };
    const view = describedOrSelf(other, fields);
    expect(view).not.toBe(other);
    expect(view).toEqual({ Name: "a", City: "b" });
    expect(describedOrSelf(JSON.parse('{"__proto__": 1, "Name": "a"}'), fields)).toEqual({ Name: "a" });
  });
});

describe("the client's side of an exchange", () => {
  const judge = new Judge(contract);
  const json = { "content-type": "application/json" };
  const form = { "content-type": "application/x-www-form-urlencoded" };
  it.each([
    [
      "a customer body of the wrong type",
      {
        method: "POST",
        url: "/v1/api/DEMO/Customer",
        requestHeaders: json,
        requestBody: { Name: "X", CreditLimit: "veel" },
      },
      "request: body.CreditLimit must be of type number",
    ],
    [
      "a refresh grant without redirect_uri",
      {
        method: "POST",
        url: "/v1/OAuth/Token",
        requestHeaders: form,
        requestBody: "grant_type=refresh_token&refresh_token=r&client_id=c&client_secret=s",
      },
      "request: form.redirect_uri is required",
    ],
    [
      "an authorization without scope",
      { url: "/v1/OAuth/Authorize?client_id=c&redirect_uri=u&response_type=code" },
      "request: query.scope is required",
    ],
    ["a read", { url: "/v1/api/DEMO/Customer/1001" }, undefined],
  ] as Array<[string, Given, string | undefined]>)("%s", (_name, given, want) => {
    expect(judge.requestProblem(exchange(given))).toBe(want);
  });

  // The service binds a JSON body's names without case, as Json.NET does (A-NAMES; the mock's
  // bindProperties): a camelCase body is the body with the table's names, and is judged as it.
  const create = (requestBody: unknown): Exchange =>
    exchange({ method: "POST", url: "/v1/api/DEMO/Customer", requestHeaders: json, requestBody });
  const camelAll = (o: Record<string, unknown>) =>
    camel(
      Object.fromEntries(
        Object.entries(o).map(([k, v]) => [k, Array.isArray(v) ? v.map((i) => (isObject(i) ? camel(i) : i)) : v]),
      ),
    );
  const addresses = customer.Addresses as Array<Record<string, unknown>>;
  it.each([
    ["the seed customer", customer],
    ["a body of the wrong type", { Name: "X", CreditLimit: "veel" }],
    ["a body without its name", { City: "Zeist" }],
    ["an address of the wrong type", { ...customer, Addresses: [{ ...addresses[0], Street1: 1 }] }],
  ] as Array<[string, Record<string, unknown>]>)("%s, camelCase, is judged as with the table's names", (_n, body) => {
    expect(judge.requestProblem(create(camelAll(body)))).toBe(judge.requestProblem(create(body)));
  });
  it("the README's browser snippet is a correct create", () => {
    expect(judge.requestProblem(create({ name: "Browser B.V.", city: "Zeist" }))).toBeUndefined();
  });
  it("a field sent under two spellings is named, as the mock refuses it", () => {
    expect(judge.requestProblem(create({ Name: "X", name: "Y" }))).toBe(
      "request: body.Name is sent twice, as Name and name; send it once",
    );
  });
});

describe("where a request goes", () => {
  const places = new Places(contract);
  it.each([
    ["/v1/api/DEMO/Customer/1001", { version: "v1", endpoint: "data", operationId: "getCustomer", noDatabase: false }],
    [
      "/V221/api/DEMO/customer/1001.xml",
      { version: "V221", endpoint: "data", operationId: "getCustomer", suffix: "xml" },
    ],
    ["/v1/api//CustomerInfoList", { endpoint: "data", operationId: "listCustomerInfo", noDatabase: true }],
    ["/v1/api/CustomerInfoList", { endpoint: "data", operationId: "listCustomerInfo", noDatabase: true }],
    ["/v1/api/AdministrationInfoList", { endpoint: "data", operationId: "listAdministrationInfo", noDatabase: false }],
    ["/v1/oauth/token/", { endpoint: "token", methods: ["POST"], operationId: undefined }],
    [
      "/api/DEMO/CustomerInfoList",
      { version: undefined, endpoint: "data", template: "/api/{database_id}/CustomerInfoList" },
    ],
    ["/v1/OAuth/Authorize?client_id=x", { endpoint: "authorize", operationId: "authorize" }],
    ["/v1/api/DEMO/NoSuchResource/1", { endpoint: "data", template: undefined }],
  ])("%s", (url, want) => {
    expect(places.of("GET", url)).toMatchObject(want);
  });
});

describe("a bawa mock's clock as its answers name it (X-Bawa-Clock)", () => {
  const at = Date.UTC(2026, 10, 30, 9, 0, 0);
  const answered = (judge: Judge, when: number, clock: number | undefined, g: Given = {}) =>
    judge.judge(
      exchange({
        url: "/v1/api/DEMO/CustomerInfoList",
        body: [],
        ...g,
        at: when,
        headers: clock === undefined ? { ...g.headers } : { [CLOCK_HEADER]: clockHeader(clock), ...g.headers },
      }),
    );

  it("judges each exchange at the time its answer names; one that names none on the offset it had", () => {
    const judge = new Judge(contract);
    answered(judge, at + 1_000, at + 1_000 + 55_000);
    expect(judge.memory.targetTime(at + 1_000)).toBe(at + 56_000);
    // Decided before the clock's first move (or by a restarted mock): the real time.
    answered(judge, at + 2_000, undefined);
    expect(judge.memory.targetTime(at + 2_000)).toBe(at + 2_000);
    expect(judge.memory.clockOffset).toBe(0);
  });

  it("leaves nothing to place when a /__mock/clock answer names the moved clock", () => {
    const judge = new Judge(contract);
    judge.memory.access.set("kept", { issuedAt: at - 1_000 } as never);
    answered(judge, at + 10, at + 3_600_000 + 10);
    answered(judge, at + 20, at + 3_600_000, {
      method: "POST",
      url: "/__mock/clock",
      requestBody: { advanceSeconds: 3600 },
      body: { now: new Date(at + 3_600_000).toISOString() },
    });
    expect(judge.memory.access.get("kept")!.issuedAt).toBe(at - 1_000);
    expect(judge.memory.targetTime(at + 20) - judge.memory.access.get("kept")!.issuedAt).toBe(3_601_000);
    expect(judge.memory.clockOffset).toBe(0);
  });

  it("ignores a value it can not read", () => {
    const judge = new Judge(contract);
    judge.judge(exchange({ at, headers: { [CLOCK_HEADER]: "yesterday" } }));
    expect(judge.memory.targetTime(at)).toBe(at);
    expect(readClockHeader(clockHeader(at + 1))).toBe(at + 1);
  });
});
