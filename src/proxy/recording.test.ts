// The recording on hand-made exchanges: what it writes for the mock from
// answers that drift (camelCase, ISO dates, XML), from a list that shows a few
// fields, and what it leaves out, saying why.
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { contractInUse } from "../contract/index.ts";
import { PROJECT_ROOT } from "../paths.ts";
import type { Exchange } from "../rules/exchange.ts";
import { Places } from "../rules/places.ts";
import { Recording, RecordingWriter } from "./record.ts";

const contract = contractInUse();
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

  it("names the resources of the whole service no answer showed, which a mock on it serves empty", () => {
    const r = recording();
    const wholeService = [
      ...new Set(
        contract.resources.operations.filter((o) => o.action === "list" && !o.databaseParam).map((o) => o.resource),
      ),
    ];
    expect(wholeService).toContain("AdministrationInfoList");
    r.apply(answer("/v1/api/DEMO/Customer/1001", customer));
    expect(r.readme("http://t.example")).toContain(
      `No answer showed ${wholeService.join(", ")}: a mock on this folder answers`,
    );
    const administrations = (
      JSON.parse(readFileSync(resolve(PROJECT_ROOT, "mock-data/AdministrationInfo.json"), "utf8")) as unknown[]
    ).slice(0, 1);
    for (const resource of wholeService) r.apply(answer(`/v1/api/${resource}`, administrations));
    expect(r.readme("http://t.example")).toContain("Every resource of the whole service was seen.");
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

  it("holds no more than its bound, and names the objects past it in its README", () => {
    const size = JSON.stringify(customer).length;
    const r = new Recording(contract, new Places(contract), { limitBytes: size * 3 + 10 });
    const ids = Array.from({ length: 8 }, (_, i) => String(2001 + i));
    for (const id of ids) r.apply(answer(`/v1/api/DEMO/Customer/${id}`, { ...customer, CustomerId: id }));
    expect(r.objects("Customer", "DEMO").map((c) => c.CustomerId)).toEqual(ids.slice(0, 3));
    // A kept object still takes its changes; a new one past the bound is named, never dropped silently.
    r.apply(answer("/v1/api/DEMO/Customer/2001", { ...customer, CustomerId: "2001", City: "Utrecht" }));
    expect(r.objects("Customer", "DEMO")[0]).toMatchObject({ CustomerId: "2001", City: "Utrecht" });
    expect(r.pastBoundCount).toBe(5);
    expect(r.readme("http://t.example")).toContain(
      `A recording holds at most ${size * 3 + 10} bytes of objects (as JSON). 5 answers showed objects it had no room for, not recorded; record into a new folder to keep them:\n\n- Customer in DEMO: 2004, 2005, 2006, 2007, 2008`,
    );
    // A deletion makes room again.
    r.apply({ ...answer("/v1/api/DEMO/Customer/2002", ""), method: "DELETE" });
    r.apply(answer("/v1/api/DEMO/Customer/2004", { ...customer, CustomerId: "2004" }));
    expect(r.objects("Customer", "DEMO").map((c) => c.CustomerId)).toEqual(["2001", "2003", "2004"]);
  });

  it("is written file by file as it changes, no more often than the bytes it writes allow", () => {
    vi.useFakeTimers();
    const dir = mkdtempSync(join(tmpdir(), "bawa-recording-"));
    try {
      const r = recording();
      for (let i = 0; i < 500; i++) {
        const id = String(3000 + i);
        r.apply(answer(`/v1/api/DEMO/Customer/${id}`, { ...customer, CustomerId: id }));
      }
      r.apply(answer("/v1/api/OTHER/Customer/1001", { ...customer, Database: "OTHER" }));
      const bytesPerSecond = 100_000;
      const writer = new RecordingWriter(r, dir, { target: "http://t.example", minDelayMs: 200, bytesPerSecond });
      const file = (db: string) => join(dir, "Customer", `${db}.json`);
      const count = (db: string) => (JSON.parse(readFileSync(file(db), "utf8")) as unknown[]).length;
      writer.changed();
      vi.advanceTimersByTime(200);
      expect(count("DEMO")).toBe(500);
      const written =
        statSync(file("DEMO")).size + statSync(file("OTHER")).size + statSync(join(dir, "README.md")).size;
      const other = statSync(file("OTHER")).ino;
      // A new object: not written 200 ms later, since the last write took its bytes' time.
      r.apply(answer("/v1/api/DEMO/Customer/9999", { ...customer, CustomerId: "9999" }));
      writer.changed();
      vi.advanceTimersByTime(200);
      expect(count("DEMO")).toBe(500);
      vi.advanceTimersByTime(Math.ceil((written / bytesPerSecond) * 1000) - 200);
      expect(count("DEMO")).toBe(501);
      // Only the file that changed was written again.
      expect(statSync(file("OTHER")).ino).toBe(other);
      writer.close();
    } finally {
      vi.useRealTimers();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
