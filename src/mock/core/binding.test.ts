// Bodies as clients of the real family send them: camelCase, mixed case, $type,
// typos. Every value is kept or named; nothing is silently lost.
import { describe, expect, it } from "vitest";
import { call, expectContract, freshMock } from "../testing.ts";

const ITEM = "/api/{database_id}/Customer/{customer_id}";
const post = (mock: ReturnType<typeof freshMock>["mock"], auth: Record<string, string>, body: unknown) =>
  call(mock, "POST", "/v1/api/DEMO/Customer", {
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify(body),
  });

describe("property names bound as ASP.NET binds them", () => {
  it.each([
    [
      "camelCase, as the PHP clients' examples send",
      { name: "Camel B.V.", shortName: "CAMEL", city: "Gouda", creditLimit: 12.5, cocDate: "3/4/2020" },
    ],
    ["mixed case", { Name: "Mixed BV", shortName: "MIX", city: "Gouda", CREDITLIMIT: 7, isInFactoring: true }],
    [
      "camelCase addresses",
      { name: "Adres B.V.", addresses: [{ street1: "Markt 1", city: "Gouda", zipCode: "2801 JE" }] },
    ],
  ])("%s round-trips with every value kept", (_name, body) => {
    const { mock, auth } = freshMock();
    const created = post(mock, auth, body);
    expect(created.status, created.text).toBe(200);
    expect(created.headers["x-bawa-ignored-properties"]).toBeUndefined();
    const read = call(mock, "GET", `/v1/api/DEMO/Customer/${created.json().CustomerId}`, { headers: auth });
    expectContract(mock, ITEM, "get", read);
    const stored = read.json();
    for (const [key, value] of Object.entries(body)) {
      const field = Object.keys(stored).find((k) => k.toLowerCase() === key.toLowerCase())!;
      if (key.toLowerCase() === "cocdate") expect(stored[field]).toBe("03/04/2020");
      else if (key === "addresses")
        expect(stored.Addresses[0]).toMatchObject({ Street1: "Markt 1", City: "Gouda", ZipCode: "2801 JE" });
      else expect(stored[field], key).toEqual(value);
    }
  });

  it("two properties that bind to one field are 400 naming both", () => {
    const { mock, auth } = freshMock();
    const res = post(mock, auth, { Name: "Eén", name: "Twee" });
    expect(res.status).toBe(400);
    expect(res.json().ModelState).toEqual({ "customer.Name": ["Name is sent twice, as Name and name; send it once"] });
    const nested = post(mock, auth, { Name: "Adres", Addresses: [{ City: "A", city: "B" }] });
    expect(Object.keys(nested.json().ModelState)).toEqual(["customer.Addresses.0.City"]);
  });

  it("properties that bind to no field are ignored and named, in the answer and the request log", () => {
    const { mock, auth } = freshMock();
    const res = post(mock, auth, {
      $type: "Customer, Vendor.Api",
      name: "Typo B.V.",
      shortname2: "TYPO",
      Addresses: [{ Regio: "Noord" }],
    });
    expect(res.status).toBe(200);
    expect(res.headers["x-bawa-ignored-properties"]).toBe(
      "%24type, shortname2, Addresses.0.Regio".replace("%24type", "$type"),
    );
    const [entry] = call(mock, "GET", "/__mock/requests").json().entries.slice(-1);
    expect(entry.ignored).toEqual(["$type", "shortname2", "Addresses.0.Regio"]);
  });

  it("values the service replaces with its own (OrganizationId, Database) are named, unless they leave it to the service", () => {
    const { mock, auth } = freshMock();
    const created = post(mock, auth, { Name: "Own B.V.", OrganizationId: 5, Database: "OTHER" });
    expect(created.status).toBe(200);
    expect(created.json()).toMatchObject({ Database: "DEMO" });
    expect(created.json().OrganizationId).not.toBe(5);
    expect(created.headers["x-bawa-ignored-properties"]).toBe("OrganizationId, Database");
    // The description's create body: OrganizationId 0 and no database leave both to the service.
    const plain = post(mock, auth, { Name: "Plain B.V.", OrganizationId: 0, Database: null });
    expect(plain.headers["x-bawa-ignored-properties"]).toBeUndefined();
    // A read object sent back unchanged replaces nothing.
    const id = plain.json().CustomerId;
    const back = call(mock, "PUT", `/v1/api/DEMO/Customer/${id}`, {
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ ...plain.json(), Name: "Plain Changed" }),
    });
    expect(back.status).toBe(200);
    expect(back.headers["x-bawa-ignored-properties"]).toBeUndefined();
    const moved = call(mock, "PUT", `/v1/api/DEMO/Customer/${id}`, {
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ ...plain.json(), OrganizationId: 77, Database: "OTHER" }),
    });
    expect(moved.headers["x-bawa-ignored-properties"]).toBe("OrganizationId, Database");
  });

  it("XML element names bind exactly, as DataContract does, and unknown ones are named", () => {
    const { mock, auth } = freshMock();
    const res = call(mock, "POST", "/v1/api/DEMO/Customer", {
      headers: { ...auth, "content-type": "application/xml" },
      body: "<Customer><Name>Xml B.V.</Name><city>Gouda</city></Customer>",
    });
    expect(res.status).toBe(200);
    expect(res.headers["x-bawa-ignored-properties"]).toBe("city");
    expect(res.json().City).toBeNull();
  });
});

describe("--json-names camel", () => {
  it("writes JSON answers camelCase, which read back to the contract's names, and keeps XML's element names", () => {
    const { mock, auth } = freshMock();
    mock.scenarios.setRules({ jsonNames: "camel" });
    const json = call(mock, "GET", "/v1/api/DEMO/Customer/1001", { headers: auth });
    expect(Object.keys(json.json())[0]).toBe("applyOrderSurcharge");
    const pascal = (v: unknown): unknown =>
      Array.isArray(v)
        ? v.map(pascal)
        : typeof v === "object" && v !== null
          ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k[0]!.toUpperCase() + k.slice(1), pascal(x)]))
          : v;
    expectContract(mock, ITEM, "get", { ...json, text: JSON.stringify(pascal(json.json())) });
    const list = call(mock, "GET", "/v1/api/DEMO/CustomerInfoList", { headers: auth }).json();
    expect(Object.keys(list[0])).toContain("customerId");
    const error = call(mock, "GET", "/v1/api/DEMO/Customer/nope", { headers: auth }).json();
    expect(error).toHaveProperty("message");
    const xml = call(mock, "GET", "/v1/api/DEMO/Customer/1001", { headers: { ...auth, accept: "application/xml" } });
    expect(xml.text).toContain("<ApplyOrderSurcharge>");
    expectContract(mock, ITEM, "get", xml);
  });
});
