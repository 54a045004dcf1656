// The recording on hand-made exchanges: what it writes for the mock from
// answers that drift (camelCase, ISO dates, XML), from a list that shows a few
// fields, and what it leaves out, saying why.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { compileContract } from "../contract/index.ts";
import { PROJECT_ROOT } from "../paths.ts";
import type { Exchange } from "../rules/exchange.ts";
import { Places } from "../rules/places.ts";
import { Recording } from "./record.ts";

const contract = compileContract();
const seed = (await import("../../mock-data/Customer/DEMO.json", { with: { type: "json" } })).default as Array<
  Record<string, unknown>
>;
const customer = seed[0]!;

const answer = (url: string, body: unknown, more: Partial<Exchange> = {}): Exchange => ({
  method: "GET",
  url,
  requestHeaders: {},
  requestBody: undefined,
  status: 200,
  headers: { "content-type": "application/json" },
  body: Buffer.from(typeof body === "string" ? body : JSON.stringify(body)),
  at: 0,
  ...more,
});
const recording = () => new Recording(contract, new Places(contract));

describe("a recording", () => {
  it("writes an object as the table names it and dates it, whatever the answer's case and date format", () => {
    const r = recording();
    const camel = Object.fromEntries(Object.entries(customer).map(([k, v]) => [k[0]!.toLowerCase() + k.slice(1), v]));
    r.apply(answer("/v1/api/DEMO/Customer/1001", { ...camel, cocDate: "2011-03-14T00:00:00" }));
    expect(r.objects("Customer", "DEMO")).toEqual([customer]);
  });

  it("reads XML answers through the contract's mapping", () => {
    const r = recording();
    const xml = contract.xml.stringify("Customer", customer);
    r.apply(answer("/v1/api/DEMO/Customer/1001", xml, { headers: { "content-type": "application/xml" } }));
    expect(r.objects("Customer", "DEMO")).toEqual([customer]);
  });

  it("fills an object seen only in a list with the contract's defaults, and a later read replaces it", () => {
    const r = recording();
    const info = {
      CustomerId: "1001",
      Name: "Lijst B.V.",
      ShortName: null,
      City: "Ede",
      CountryId: "NL",
      CustomerStateId: null,
      Email: null,
      Telephone: null,
    };
    r.apply(answer("/v1/api/DEMO/CustomerInfoList", [info]));
    const [filled] = r.objects("Customer", "DEMO");
    expect(filled).toMatchObject({ ...info, Database: "DEMO", ChargeVatTypeId: "J", CreditLimit: 0, Addresses: null });
    expect(Object.keys(filled!)).toEqual(Object.keys(customer));
    expect(r.readme("http://t.example")).toMatch(/- Customer in DEMO: 1001/);
    r.apply(answer("/v1/api/DEMO/Customer/1001", customer));
    r.apply(answer("/v1/api/DEMO/CustomerInfoList", [{ ...info, City: "Ede" }]));
    // The list's newer info fields replace those of the whole object; the rest stays.
    expect(r.objects("Customer", "DEMO")).toEqual([
      {
        ...customer,
        Name: "Lijst B.V.",
        City: "Ede",
        ShortName: null,
        Email: null,
        Telephone: null,
        CustomerStateId: null,
      },
    ]);
    expect(r.readme("http://t.example")).not.toMatch(/- Customer in DEMO: 1001/);
  });

  it("removes an object on DELETE and on a 404 for its address, never because a list left it out", () => {
    const r = recording();
    for (const c of seed.slice(0, 3)) r.apply(answer(`/v1/api/DEMO/Customer/${c.CustomerId}`, c));
    r.apply(answer("/v1/api/DEMO/CustomerInfoList?$top=1", [{ CustomerId: "1001", Name: customer.Name }]));
    r.apply({ ...answer("/v1/api/DEMO/Customer/1002", ""), method: "DELETE" });
    r.apply({ ...answer("/v1/api/DEMO/Customer/1003", { Message: "not found" }), status: 404 });
    expect(r.objects("Customer", "DEMO").map((c) => c.CustomerId)).toEqual(["1001"]);
  });

  it("leaves out what the mock could not serve, and says why", () => {
    const r = recording();
    r.apply(answer("/v1/api/DEMO/Customer/1009", { ...customer, CustomerId: "1009", Name: "N".repeat(41) }));
    r.apply(answer("/v1/api/..%2Fetc/Customer/1001", customer));
    expect(r.objects("Customer", "DEMO")).toEqual([]);
    expect(r.leftOut.map((l) => l.reason)).toEqual([
      "it does not fit the contract's Customer: Name must NOT have more than 40 characters",
      "its database id can not be a file name of the seed",
    ]);
    expect(r.readme("http://t.example")).toContain("2 answers:");
  });

  it("goes on from a recording written before, and refuses a folder that is not one", () => {
    const dir = mkdtempSync(join(tmpdir(), "bawa-recording-"));
    try {
      const first = recording();
      first.apply(answer("/v1/api/DEMO/Customer/1001", customer));
      first.write(dir, { target: "http://t.example" });
      const again = recording();
      again.load(dir);
      expect(again.objects("Customer", "DEMO")).toEqual([customer]);
      expect(() => recording().load(resolve(PROJECT_ROOT, "mock-data"))).toThrow(
        /mock-data holds files that are not a recording of bawa proxy; record into a new folder/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("reads nothing but the bodies of data answers", () => {
    const r = recording();
    r.apply({ ...answer("/v1/OAuth/Token", { access_token: "secret-token-value" }), method: "POST" });
    r.apply(answer("/v1/OAuth/Login?request=x", "<form>"));
    expect(r.dirty).toBe(false);
  });
});
