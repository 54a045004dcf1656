import { describe, expect, it } from "vitest";
import { MAX_XML_ATTRIBUTES } from "../../contract/xml.ts";
import { call, control, expectContract, freshMock } from "../testing.ts";

const ITEM = "/api/{database_id}/Customer/{customer_id}";
const COLLECTION = "/api/{database_id}/Customer";
const LIST = "/api/{database_id}/CustomerInfoList";
const JSON_BODY = { "content-type": "application/json" };

describe("the customer lifecycle", () => {
  it.each(["v1", "V1"])("POST, GET, PUT, GET, DELETE, GET 404 under /%s, in JSON", (v) => {
    const { mock, auth } = freshMock();
    const created = call(mock, "POST", `/${v}/api/DEMO/Customer`, {
      headers: { ...auth, ...JSON_BODY },
      body: JSON.stringify({
        CustomerId: "",
        OrganizationId: 0,
        Name: "Schildersbedrijf Kleurrijk",
        City: "Delft",
        CocDate: "6/1/2020",
      }),
    });
    expect(created.status, created.text).toBe(200);
    expectContract(mock, COLLECTION, "post", created);
    const c = created.json();
    expect(c.CustomerId).toBe("1007");
    expect(c.OrganizationId).toBeGreaterThan(0);
    expect(c.CocDate).toBe("06/01/2020");

    const read = call(mock, "GET", `/${v}/api/DEMO/Customer/${c.CustomerId}`, { headers: auth });
    expectContract(mock, ITEM, "get", read);
    expect(read.json()).toEqual(c);

    const changed = call(mock, "PUT", `/${v}/api/DEMO/Customer/${c.CustomerId}`, {
      headers: { ...auth, ...JSON_BODY },
      body: JSON.stringify({ ...c, City: "Den Haag", CreditLimit: 2500.75 }),
    });
    expect(changed.status, changed.text).toBe(200);
    expectContract(mock, ITEM, "put", changed);
    const reread = call(mock, "GET", `/${v}/api/DEMO/Customer/${c.CustomerId}`, { headers: auth }).json();
    expect(reread).toMatchObject({ City: "Den Haag", CreditLimit: 2500.75, OrganizationId: c.OrganizationId });

    const deleted = call(mock, "DELETE", `/${v}/api/DEMO/Customer/${c.CustomerId}`, { headers: auth });
    expect(deleted.status).toBe(200);
    expect(deleted.text).toBe("");
    expectContract(mock, ITEM, "delete", deleted);
    const gone = call(mock, "GET", `/${v}/api/DEMO/Customer/${c.CustomerId}`, { headers: auth });
    expect(gone.status).toBe(404);
    expectContract(mock, ITEM, "get", gone);
  });

  it("lists customer info objects of the database, including new ones, in JSON and XML", () => {
    const { mock, auth } = freshMock();
    const list = call(mock, "GET", "/v1/api/DEMO/CustomerInfoList", { headers: auth });
    expectContract(mock, LIST, "get", list);
    expect(list.json().map((c: { CustomerId: string }) => c.CustomerId)).toEqual([
      "1001",
      "1002",
      "1003",
      "1004",
      "1005",
      "1006",
    ]);
    call(mock, "POST", "/v1/api/DEMO/Customer", { headers: { ...auth, ...JSON_BODY }, body: '{"Name":"Nieuw B.V."}' });
    const xml = call(mock, "GET", "/V1/api/DEMO/CustomerInfoList", { headers: { ...auth, accept: "application/xml" } });
    expectContract(mock, LIST, "get", xml);
    expect(xml.headers["content-type"]).toBe("application/xml; charset=utf-8");
    expect(xml.text).toMatch(/^<\?xml version="1.0" encoding="utf-8"\?>\n<ArrayOfCustomerInfo /);
    expect(xml.text.match(/<CustomerInfo>/g)).toHaveLength(7);
    expect(xml.text).toContain("<Name>Nieuw B.V.</Name>");
  });

  it("keeps customers per database", () => {
    const { mock, auth } = freshMock();
    const other = mock.registry.user("other");
    expect(other?.databases).toEqual(["OTHER"]);
    expect(call(mock, "GET", "/v1/api/DEMO/Customer/2001", { headers: auth }).status).toBe(404);
    expect(call(mock, "GET", "/v1/api/DEMO/Customer/1001", { headers: auth }).json().Database).toBe("DEMO");
  });
});

describe("JSON and XML in both directions", () => {
  it.each([
    ["an element given twice", "<Name>a</Name><Name>b</Name>", "<Name> is given twice in <Customer>; give it once"],
    ["an element inside a value", "<Name>x<b>bold</b>y</Name>", "<Name> holds a value, not the element <b> inside it"],
    [
      "a nil that holds a value",
      '<City nil="true">Haarlem</City>',
      "<City> is nil and holds a value; send one of the two",
    ],
    [
      "text beside a list's elements",
      "<Addresses>Hoofdstraat 1<Address><City>Zeist</City></Address></Addresses>",
      '<Addresses> holds the text "Hoofdstraat 1" beside its elements; send the elements alone',
    ],
    [
      "text beside the object's elements",
      "Klant<Name>X</Name>",
      '<Customer> holds the text "Klant" beside its elements',
    ],
    [
      "text where a list belongs",
      "<Name>X</Name><Addresses>Hoofdstraat 1</Addresses>",
      "Addresses must be of type array",
    ],
    // U+00A0 is white space to JavaScript's trim(), not to XML.
    ["a no-break space beside the object's elements", "&#160;<Name>X</Name>", "<Customer> holds the text"],
  ])("XML with %s is 400 naming it, no value lost", (_name, inner, message) => {
    const { mock, auth } = freshMock();
    const res = call(mock, "POST", "/v1/api/DEMO/Customer", {
      headers: { ...auth, "content-type": "application/xml" },
      body: `<Customer>${inner}</Customer>`,
    });
    expect(res.status, res.text).toBe(400);
    const answer = res.json() as { Message: string; ModelState?: Record<string, string[]> };
    expect([answer.Message, ...Object.values(answer.ModelState ?? {}).flat()].join("\n")).toContain(message);
  });

  it("XML's truth values are xs:boolean's: true, false, 1 or 0, white space around them", () => {
    const { mock, auth } = freshMock();
    const made = (value: string) => {
      const res = call(mock, "POST", "/v1/api/DEMO/Customer", {
        headers: { ...auth, "content-type": "application/xml" },
        body: `<Customer><Name>Waar</Name><IsInFactoring>${value}</IsInFactoring></Customer>`,
      });
      return res.status === 200 ? res.json().IsInFactoring : `${res.status} ${res.text}`;
    };
    expect([made("true"), made(" 1 "), made("1"), made("\n\tfalse "), made("0")]).toEqual([
      true,
      true,
      true,
      false,
      false,
    ]);
    for (const refused of ["yes", "TRUE", "2", "constructor"]) expect(made(refused)).toMatch(/^400 /);
  });

  it("XML's CDATA sections are kept as written, never entity-decoded", () => {
    const { mock, auth } = freshMock();
    for (const [inner, name] of [
      ["<![CDATA[a&amp;b]]>", "a&amp;b"],
      ["<![CDATA[a&#65;b]]>", "a&#65;b"],
      ["<![CDATA[x<y&z]]>", "x<y&z"],
      ["Vis &amp; <![CDATA[&amp;]]> Zn.", "Vis & &amp; Zn."],
    ]) {
      const res = call(mock, "POST", "/v1/api/DEMO/Customer", {
        headers: { ...auth, "content-type": "application/xml" },
        body: `<Customer><Name>${inner}</Name></Customer>`,
      });
      expect(res.status, res.text).toBe(200);
      expect(res.json().Name, inner).toBe(name);
    }
  });

  it("JSON with a property given twice is 400 naming it, not the last value kept (body.invalid)", () => {
    const { mock, auth } = freshMock();
    const res = call(mock, "POST", "/v1/api/DEMO/Customer", {
      headers: { ...auth, ...JSON_BODY },
      body: '{"Name":"a","Addresses":[{"City":"Urk"}],"Name":"b"}',
    });
    expect(res.status).toBe(400);
    expect(res.json().Message).toBe("The request body gives the property Name twice; give each property once.");
    expect(res.meta?.code).toBe("body.invalid");
    const nested = call(mock, "POST", "/v1/api/DEMO/Customer", {
      headers: { ...auth, ...JSON_BODY },
      body: '{"Name":"a","Addresses":[{"City":"Urk","City":"Emmeloord"}]}',
    });
    expect(nested.json().Message).toContain("gives the property Addresses.0.City twice");
  });

  it.each(["application/xml", "text/xml"])("creates from %s and answers in the same media type", (type) => {
    const { mock, auth } = freshMock();
    const xml = `<?xml version="1.0"?><Customer xmlns:i="http://www.w3.org/2001/XMLSchema-instance"><CustomerId></CustomerId><Name>Vishandel &amp; Zn.</Name><CreditLimit>1000.5</CreditLimit><IsInFactoring>true</IsInFactoring><Email i:nil="true"/><CustomerGroupId>3</CustomerGroupId><Addresses><Address><City>Urk</City></Address></Addresses></Customer>`;
    const res = call(mock, "POST", "/v1/api/DEMO/Customer", {
      headers: { ...auth, "content-type": type, accept: type },
      body: xml,
    });
    expect(res.status, res.text).toBe(200);
    expect(res.headers["content-type"]).toBe(`${type}; charset=utf-8`);
    expectContract(mock, COLLECTION, "post", res);
    const id = /<CustomerId>(\d+)<\/CustomerId>/.exec(res.text)![1];
    const json = call(mock, "GET", `/v1/api/DEMO/Customer/${id}`, { headers: auth }).json();
    expect(json).toMatchObject({
      Name: "Vishandel & Zn.",
      CreditLimit: 1000.5,
      IsInFactoring: true,
      Email: null,
      CustomerGroupId: 3,
    });
    expect(json.Addresses[0].City).toBe("Urk");
  });

  it("writes the same field names and values in XML as in JSON, null as i:nil", () => {
    const { mock, auth } = freshMock();
    const json = call(mock, "GET", "/v1/api/DEMO/Customer/1003", { headers: auth }).json();
    const xml = call(mock, "GET", "/v1/api/DEMO/Customer/1003", { headers: { ...auth, accept: "text/xml" } });
    expectContract(mock, ITEM, "get", xml);
    expect(mock.ctx.contract.xml.parse("Customer", xml.text)).toEqual(json);
    expect(xml.text).toContain("<Name>Fietsenmakerij Het Wiel</Name>");
    expect(xml.text).toContain('<Street2 i:nil="true"/>'); // the second address has no Street2
  });

  it("answers JSON when Accept is missing, */* or unknown, and prefers the higher q", () => {
    const { mock, auth } = freshMock();
    const type = (accept?: string) =>
      call(mock, "GET", "/v1/api/DEMO/Customer/1001", { headers: { ...auth, ...(accept ? { accept } : {}) } }).headers[
        "content-type"
      ];
    expect(type()).toBe("application/json; charset=utf-8");
    expect(type("*/*")).toBe("application/json; charset=utf-8");
    expect(type("image/png")).toBe("application/json; charset=utf-8");
    expect(type("application/json;q=0.5, application/xml")).toBe("application/xml; charset=utf-8");
  });

  it("answers errors in the requested format", () => {
    const { mock, auth } = freshMock();
    const res = call(mock, "GET", "/v1/api/DEMO/Customer/nope", { headers: { ...auth, accept: "application/xml" } });
    expect(res.status).toBe(404);
    expectContract(mock, ITEM, "get", res);
    expect(res.text).toContain("<Error ");
  });
});

describe("every accepted edge case reads back the same in both formats", () => {
  const forty = "😀".repeat(20) + "é".repeat(20);
  const cases: Array<[string, Record<string, unknown>]> = [
    ["letters beyond ASCII and outside the BMP", { Name: "Ünïcödé – 北京 😀", City: "\ue000\ufffd" }],
    ["XML's special characters and a CDATA end", { Name: `<b>&amp;"'</b>`, Street1: "]]>" }],
    ["spaces around, line breaks and a tab", { Name: "  ruim  ", City: "een\ntwee\r\ndrie\tvier\r" }],
    ["the longest name and short name, in code points", { Name: forty, ShortName: "ÄÖÜäöüß😀" }],
    ["an empty string and a chosen id", { Name: "Leeg", Email: "", CustomerId: "A_b-9" }],
    [
      "awkward numbers",
      { Name: "Getallen", CreditLimit: 0.1 + 0.2, DiscountPercentage: -1.5, CustomerGroupId: 2147483647 },
    ],
    ["a huge and a tiny decimal", { Name: "Groot", CreditLimit: 1e21, DiscountPercentage: 5e-324 }],
    ["a leap day without leading zeros", { Name: "Schrikkel", CocDate: "2/29/2024" }],
    ["no addresses, an empty list, and the most addresses", { Name: "Adressen", Addresses: [] }],
    ["fifty addresses", { Name: "Vijftig", Addresses: Array.from({ length: 50 }, (_, i) => ({ City: `Stad ${i}` })) }],
  ];
  it.each(cases)("%s", (_name, body) => {
    const { mock, auth } = freshMock();
    for (const type of ["application/json", "application/xml"]) {
      const text =
        type === "application/json" ? JSON.stringify(body) : mock.ctx.contract.xml.stringify("CustomerRequest", body);
      const created = call(mock, "POST", "/v1/api/DEMO/Customer", {
        headers: { ...auth, "content-type": type },
        body: text,
      });
      expect(created.status, `${type}: ${created.text}`).toBe(200);
      const id = created.json().CustomerId;
      const json = call(mock, "GET", `/v1/api/DEMO/Customer/${id}`, { headers: auth });
      const xml = call(mock, "GET", `/v1/api/DEMO/Customer/${id}`, { headers: { ...auth, accept: "application/xml" } });
      expectContract(mock, ITEM, "get", json);
      expectContract(mock, ITEM, "get", xml);
      const stored = json.json();
      expect(mock.ctx.contract.xml.parse("Customer", xml.text), type).toEqual(stored);
      for (const [k, v] of Object.entries(body)) {
        if (k === "CustomerId" && type === "application/xml") continue;
        if (k === "CocDate") expect(stored[k]).toBe("02/29/2024");
        else if (k === "Addresses") expect((stored[k] as unknown[]).length).toBe((v as unknown[]).length);
        else expect(stored[k], `${type} ${k}`).toEqual(v);
      }
      call(mock, "DELETE", `/v1/api/DEMO/Customer/${id}`, { headers: auth });
    }
  });
});

describe("the status rules of the service description", () => {
  it("rule 1: a path that does not exist is 404", () => {
    const { mock, auth } = freshMock();
    for (const path of [
      "/v1/api/DEMO/Supplier/1",
      "/v1/api/DEMO",
      "/v1/nothing",
      "/",
      "/api/DEMO/Customer/1001",
      "/v1/api/DEMO/Customer/1001/extra",
    ]) {
      expect(call(mock, "GET", path, { headers: auth }).status, path).toBe(404);
    }
    // A method the path does not have is a call that does not exist too.
    expect(call(mock, "PATCH", "/v1/api/DEMO/Customer/1001", { headers: auth }).status).toBe(404);
    expect(call(mock, "DELETE", "/v1/api/DEMO/CustomerInfoList", { headers: auth }).status).toBe(404);
  });

  it("an unknown version is 404, both spellings of a served one work", () => {
    const { mock, auth } = freshMock();
    expect(call(mock, "GET", "/v2/api/DEMO/Customer/1001", { headers: auth }).json().Message).toMatch(
      /version 2 is not served/,
    );
    expect(call(mock, "GET", "/version1/api/DEMO/Customer/1001", { headers: auth }).status).toBe(404);
    expect(call(mock, "GET", "/V1/api/DEMO/Customer/1001", { headers: auth }).status).toBe(200);
  });

  it("matches literal segments case-insensitively and allows one trailing slash (A-PATH-CASE)", () => {
    const { mock, auth } = freshMock();
    expect(call(mock, "GET", "/v1/API/DEMO/customer/1001/", { headers: auth }).status).toBe(200);
    expect(call(mock, "GET", "/v1/api/demo/Customer/1001", { headers: auth }).status).toBe(401);
  });

  it("rule 2: an id that does not exist is 404 for GET, PUT and DELETE", () => {
    const { mock, auth } = freshMock();
    const body = JSON.stringify({ Name: "X" });
    for (const [method, extra] of [
      ["GET", {}],
      ["PUT", { headers: { ...auth, ...JSON_BODY }, body }],
      ["DELETE", {}],
    ] as const) {
      const res = call(mock, method, "/v1/api/DEMO/Customer/99999", { headers: auth, ...extra });
      expect(res.status, method).toBe(404);
      expect(res.json().Message).toBe("No Customer with id 99999 exists in database DEMO.");
      expectContract(mock, ITEM, method.toLowerCase(), res);
    }
  });

  it("rule 3: a missing required property is 400, naming it", () => {
    const { mock, auth } = freshMock();
    const res = call(mock, "POST", "/v1/api/DEMO/Customer", {
      headers: { ...auth, ...JSON_BODY },
      body: JSON.stringify({ City: "Zwolle" }),
    });
    expect(res.status).toBe(400);
    expectContract(mock, COLLECTION, "post", res);
    expect(res.json()).toEqual({
      Message: "The request is invalid.",
      ModelState: { "customer.Name": ["Name is required"] },
    });
  });

  it.each([
    [
      "an integer a JSON number can not carry exactly",
      '"CustomerGroupId": 9007199254740993',
      "CustomerGroupId must be an integer from -9007199254740991 to 9007199254740991 (a JSON number beyond that loses digits)",
    ],
    [
      "an integer written as 1e20",
      '"CustomerGroupId": 99999999999999999999',
      "CustomerGroupId must be an integer from",
    ],
    [
      "a decimal beyond .NET's decimal",
      '"CreditLimit": 123456789012345678901234567890',
      "CreditLimit must be a decimal from",
    ],
  ])("rule 3: %s is 400 naming the field, never stored changed", (_name, property, message) => {
    const { mock, auth } = freshMock();
    const res = call(mock, "POST", "/v1/api/DEMO/Customer", {
      headers: { ...auth, "content-type": "application/json" },
      body: `{"Name": "Exact", ${property}}`,
    });
    expect(res.status).toBe(400);
    expect(Object.values(res.json().ModelState).flat().join()).toContain(message);
  });

  it.each([
    [
      "more digits than 64 bits keep",
      "application/json",
      '"CreditLimit": 12345678901234567.89',
      "CreditLimit",
      "12345678901234567.89 would be stored as 12345678901234568",
    ],
    [
      "a fraction of 19 digits",
      "application/json",
      '"CreditLimit": 0.1234567890123456789',
      "CreditLimit",
      "0.1234567890123456789 would be stored as 0.12345678901234568",
    ],
    [
      "one past .NET's largest decimal",
      "application/json",
      '"CreditLimit": 79228162514264337593543950336',
      "CreditLimit",
      "79228162514264337593543950336 would be stored as 7.922816251426434e+28",
    ],
    [
      "a number past 64 bits",
      "application/json",
      '"DiscountPercentage": 1E400',
      "DiscountPercentage",
      "can not be kept: 1E400 is beyond the largest number the mock keeps",
    ],
    [
      "a name in camelCase",
      "application/json",
      '"creditLimit": 0.1000000000000000055511151231257827',
      "creditLimit",
      "would be stored as 0.1 ",
    ],
    [
      "XML",
      "application/xml",
      "<CreditLimit>12345678901234567.89</CreditLimit>",
      "CreditLimit",
      "would be stored as 12345678901234568",
    ],
  ])(
    "rule 3: a decimal with %s is 400 naming the field and what it would become, never stored changed",
    (_name, type, property, field, message) => {
      const { mock, auth } = freshMock();
      const json = type === "application/json";
      const res = call(mock, "POST", "/v1/api/DEMO/Customer", {
        headers: { ...auth, "content-type": type },
        body: json ? `{"Name": "Exact", ${property}}` : `<Customer><Name>Exact</Name>${property}</Customer>`,
      });
      expect(res.status, res.text).toBe(400);
      expect(res.meta?.code).toBe("body.invalid");
      const said = res.json().ModelState[`customer.${field}`] as string[];
      expect(said[0]).toContain(`${field} can not be kept`);
      expect(said[0]).toContain(message);
      expect(mock.ctx.store.list("Customer", "DEMO").some((c) => c.Name === "Exact")).toBe(false);
    },
  );

  it("rule 3: a decimal 64 bits keep is stored however it is written, and a long number in a string or an ignored property is no reason to refuse", () => {
    const { mock, auth } = freshMock();
    const res = call(mock, "POST", "/v1/api/DEMO/Customer", {
      headers: { ...auth, ...JSON_BODY },
      body: '{"Name": "1234567890123456789012", "CreditLimit": 1234.5600000000000000, "DiscountPercentage": 0.30000000000000004, "Unknown": 0.1234567890123456789}',
    });
    expect(res.status, res.text).toBe(200);
    expect(res.json()).toMatchObject({
      Name: "1234567890123456789012",
      CreditLimit: 1234.56,
      DiscountPercentage: 0.30000000000000004,
    });
    expect(res.headers["x-bawa-ignored-properties"]).toBe("Unknown");
  });

  it.each([
    ["no Authorization header", {}, 'Bearer realm="bawa"'],
    ["another scheme", { authorization: "Basic ZGVtbzpkZW1v" }, 'Bearer realm="bawa"'],
    ["an unknown token", { authorization: "Bearer not-a-token" }, 'error="invalid_token"'],
  ])("rule 4: %s is 401 with a Bearer challenge", (_name, headers, challenge) => {
    const { mock } = freshMock();
    for (const [method, path, template] of [
      ["GET", "/v1/api/DEMO/CustomerInfoList", LIST],
      ["GET", "/v1/api/DEMO/Customer/1001", ITEM],
      ["DELETE", "/v1/api/DEMO/Customer/1001", ITEM],
    ] as const) {
      const res = call(mock, method, path, { headers });
      expect(res.status).toBe(401);
      expect(res.headers["www-authenticate"]).toContain(challenge);
      expectContract(mock, template, method.toLowerCase(), res);
    }
    expect(call(mock, "GET", "/v1/api/DEMO/Customer/1001", { headers: {} }).headers["www-authenticate"]).not.toContain(
      "error=",
    );
  });

  it("rule 4: no database given is 401", () => {
    const { mock, auth } = freshMock();
    const res = call(mock, "GET", "/v1/api//CustomerInfoList", { headers: auth });
    expect(res.status).toBe(401);
    expect(res.json().Message).toMatch(/No database is given/);
    expect(call(mock, "GET", "/v1/api/%20/Customer/1001", { headers: auth }).status).toBe(401);
  });

  it("a database the token's user may not use is 401 (A-DATABASE-ACCESS)", () => {
    const { mock, auth } = freshMock();
    const res = call(mock, "GET", "/v1/api/OTHER/CustomerInfoList", { headers: auth });
    expect(res.status).toBe(401);
    expect(res.json().Message).toBe("The user of this token may not use database OTHER; it may use DEMO.");
  });

  it("the Bearer scheme name is case-insensitive", () => {
    const { mock, auth } = freshMock();
    const token = auth.authorization.slice("Bearer ".length);
    expect(
      call(mock, "GET", "/v1/api/DEMO/Customer/1001", { headers: { authorization: `bearer ${token}` } }).status,
    ).toBe(200);
    expect(
      call(mock, "GET", "/v1/api/DEMO/Customer/1001", { headers: { authorization: `BEARER ${token}` } }).status,
    ).toBe(200);
  });
});

describe("the default-value rule", () => {
  it("gives every missing property its default on POST", () => {
    const { mock, auth } = freshMock();
    const c = call(mock, "POST", "/v1/api/DEMO/Customer", {
      headers: { ...auth, ...JSON_BODY },
      body: '{"Name":"Minimaal"}',
    }).json();
    expect(Object.keys(c)).toHaveLength(55);
    expect(c).toMatchObject({
      ApplyOrderSurcharge: false,
      ChargeVatTypeId: "J",
      CreditLimit: 0,
      CustomerGroupId: 0,
      Email: null,
      Addresses: null,
      CocDate: null,
    });
  });

  it("gives every missing property its default on PUT too, and takes CustomerId from the path", () => {
    const { mock, auth } = freshMock();
    const res = call(mock, "PUT", "/v1/api/DEMO/Customer/1001", {
      headers: { ...auth, ...JSON_BODY },
      body: '{"Name":"Korenaar"}',
    });
    expect(res.status, res.text).toBe(200);
    expect(res.json()).toMatchObject({
      CustomerId: "1001",
      Name: "Korenaar",
      City: null,
      IsDunForPayment: false,
      OrganizationId: 101,
    });
  });
});

describe("bad bodies get a 400 or 415 that names the problem", () => {
  const send = (body: string, type = "application/json", path = "/v1/api/DEMO/Customer", method = "POST") => {
    const { mock, auth } = freshMock();
    const res = call(mock, method, path, { headers: { ...auth, "content-type": type }, body });
    expectContract(mock, method === "POST" ? COLLECTION : ITEM, method.toLowerCase(), res);
    return res;
  };

  it.each([
    ['{"Name":"X","CreditLimit":"veel"}', "customer.CreditLimit", "CreditLimit must be of type number"],
    ['{"Name":"X","CustomerGroupId":1.5}', "customer.CustomerGroupId", "CustomerGroupId must be of type integer"],
    ['{"Name":"X","IsInFactoring":"ja"}', "customer.IsInFactoring", "IsInFactoring must be of type boolean"],
    ['{"Name":"X","ChargeVatTypeId":null}', "customer.ChargeVatTypeId", "ChargeVatTypeId must be of type string"],
    [
      '{"Name":"X","CocDate":"2024-01-31"}',
      "customer.CocDate",
      "CocDate must be a date written month/day/year (03/31/2024 or 3/31/2024)",
    ],
    [
      '{"Name":"X","VatVerificationDate":"02/30/2024"}',
      "customer.VatVerificationDate",
      "VatVerificationDate is not a date that exists",
    ],
    ['{"Name":"X","Addresses":{"City":"Ede"}}', "customer.Addresses", "Addresses must be of type array or null"],
    ['{"Name":""}', "customer.Name", "Name must NOT have fewer than 1 characters"],
  ])("%s", (body, field, message) => {
    const res = send(body);
    expect(res.status).toBe(400);
    expect(res.json().ModelState[field][0]).toContain(message);
  });

  it("malformed JSON", () => {
    const res = send('{"Name": "X",');
    expect(res.status).toBe(400);
    expect(res.meta?.code).toBe("body.malformed");
    expect(res.json().Message).toMatch(/^The request body is not valid JSON: /);
  });

  it("a JSON array or string instead of one object", () => {
    expect(send("[]").json().Message).toBe("The request body must be one Customer object.");
    expect(send('"x"').status).toBe(400);
  });

  it("malformed XML, a DTD, and a wrong root element", () => {
    expect(send("<Customer><Name>X</Customer>", "application/xml").json().Message).toMatch(
      /^The request body is not valid XML: XML is not well-formed/,
    );
    const bomb =
      '<?xml version="1.0"?><!DOCTYPE l [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;">]><Customer><Name>&b;</Name></Customer>';
    expect(send(bomb, "application/xml").json().Message).toMatch(/document type declaration \(DTD\) is not accepted/);
    const xxe =
      '<?xml version="1.0"?><!DOCTYPE c [<!ENTITY x SYSTEM "file:///etc/passwd">]><Customer><Name>&x;</Name></Customer>';
    expect(send(xxe, "text/xml").status).toBe(400);
    expect(send("<Klant><Name>X</Name></Klant>", "application/xml").json().Message).toMatch(
      /root element must be <Customer>/,
    );
  });

  it("XML with more attributes on an element than MAX_XML_ATTRIBUTES is 400 naming the limit (60,000 cost 0.6 s)", () => {
    const attributes = Array.from({ length: 60_000 }, (_, i) => `a${i}="x"`).join(" ");
    const res = send(`<Customer ${attributes}><Name>X</Name></Customer>`, "application/xml");
    expect(res.status).toBe(400);
    expect(res.json().Message).toBe(
      `The request body is not valid XML: XML element <Customer> has more than ${MAX_XML_ATTRIBUTES} attributes, the most one element may have (A-LIMITS)`,
    );
    // As many as DataContract XML writes, and a ">" or "=" inside a value, are fine.
    const nil =
      '<Customer xmlns:i="http://www.w3.org/2001/XMLSchema-instance" a="x>y" b=\'p=q\'><Name>X</Name><City i:nil="true"/></Customer>';
    expect(send(nil, "application/xml").status).toBe(200);
  });

  it("a wrong type in XML names the field", () => {
    const res = send("<Customer><Name>X</Name><CreditLimit>veel</CreditLimit></Customer>", "application/xml");
    expect(res.json().ModelState["customer.CreditLimit"]).toEqual(["CreditLimit must be of type number"]);
  });

  it("an empty body, and an unsupported Content-Type (415)", () => {
    expect(send("").json().Message).toMatch(/request body is missing/);
    const res = send("Name=X", "application/x-www-form-urlencoded");
    expect(res.status).toBe(415);
    expect(res.json().Message).toMatch(/application\/x-www-form-urlencoded is not supported/);
  });

  it("PUT with another CustomerId than the path", () => {
    const res = send('{"Name":"X","CustomerId":"1002"}', "application/json", "/v1/api/DEMO/Customer/1001", "PUT");
    expect(res.status).toBe(400);
    expect(res.json().ModelState["customer.CustomerId"]).toEqual(['CustomerId must be "1001", the id in the path']);
  });

  it("POST with a CustomerId that is taken", () => {
    const res = send('{"Name":"X","CustomerId":"1001"}');
    expect(res.status).toBe(400);
    expect(res.json().ModelState["customer.CustomerId"]).toEqual(["CustomerId 1001 is already in use"]);
  });

  it("a malformed percent-encoding in the path", () => {
    const { mock, auth } = freshMock();
    expect(call(mock, "GET", "/v1/api/DEMO/Customer/%E0%A4%A", { headers: auth }).status).toBe(400);
  });
});

describe("mock control", () => {
  it("POST /__mock/reset restores the seed", () => {
    const { mock, auth } = freshMock();
    call(mock, "DELETE", "/v1/api/DEMO/Customer/1001", { headers: auth });
    expect(call(mock, "GET", "/v1/api/DEMO/Customer/1001", { headers: auth }).status).toBe(404);
    expect(control(mock, "/__mock/reset").status).toBe(200);
    expect(call(mock, "GET", "/v1/api/DEMO/Customer/1001", { headers: auth }).status).toBe(200);
  });

  it("GET /__mock/clock tells the time; POST moves it and refuses nonsense", () => {
    const { mock } = freshMock();
    const before = Date.parse(call(mock, "GET", "/__mock/clock").json().now);
    const after = Date.parse(control(mock, "/__mock/clock", '{"advanceSeconds": 3600}').json().now);
    expect(after - before).toBeGreaterThanOrEqual(3600_000);
    expect(control(mock, "/__mock/clock", '{"advanceSeconds": -1}').status).toBe(400);
    expect(control(mock, "/__mock/clock", "soon").status).toBe(400);
    expect(call(mock, "GET", "/__mock/nothing").status).toBe(404);
  });
});
