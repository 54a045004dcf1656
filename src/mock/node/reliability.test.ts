// Under concurrent writes the store holds exactly what the successful answers
// said; bad input of every kind gets a 4xx and the mock keeps serving.
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildMock } from "../index.ts";
import { codeFlowTokens } from "../testing.ts";
import { type Listening, listen } from "./listen.ts";

let server: Listening;
const auth: Record<string, Record<string, string>> = {};

beforeAll(async () => {
  const mock = buildMock();
  auth.DEMO = { authorization: `Bearer ${codeFlowTokens(mock, "demo").access_token}` };
  auth.OTHER = { authorization: `Bearer ${codeFlowTokens(mock, "other").access_token}` };
  server = await listen(mock, { host: "127.0.0.1", port: 0 });
});
afterAll(() => server.close());

const call = async (method: string, path: string, db: string, body?: unknown, headers: Record<string, string> = {}) => {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { ...auth[db], "content-type": "application/json", ...headers },
    ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
  });
  return { status: res.status, text: await res.text() };
};

describe("concurrent writers", () => {
  it("leave the store holding exactly what the successful answers say", async () => {
    // expected[db][id] = the customer's last acknowledged City, or null once deleted
    const expected: Record<string, Map<string, string | null>> = { DEMO: new Map(), OTHER: new Map() };
    const serverErrors: string[] = [];
    const worker = async (w: number) => {
      const db = w % 2 === 0 ? "DEMO" : "OTHER";
      for (let i = 0; i < 15; i++) {
        const created = await call("POST", `/v1/api/${db}/Customer`, db, {
          Name: `Worker ${w} klant ${i}`,
          City: "Start",
        });
        if (created.status >= 500) serverErrors.push(`POST ${created.status}`);
        if (created.status !== 200) continue;
        const id = (JSON.parse(created.text) as { CustomerId: string }).CustomerId;
        expected[db]!.set(id, "Start");
        const city = `Stad ${w}-${i}`;
        const put = await call("PUT", `/v1/api/${db}/Customer/${id}`, db, {
          CustomerId: id,
          Name: `Worker ${w} klant ${i}`,
          City: city,
        });
        if (put.status >= 500) serverErrors.push(`PUT ${put.status}`);
        if (put.status === 200) expected[db]!.set(id, city);
        if (i % 3 === 0) {
          const del = await call("DELETE", `/v1/api/${db}/Customer/${id}`, db);
          if (del.status >= 500) serverErrors.push(`DELETE ${del.status}`);
          if (del.status === 200) expected[db]!.set(id, null);
        }
      }
    };
    await Promise.all(Array.from({ length: 24 }, (_, w) => worker(w)));
    expect(serverErrors).toEqual([]);

    for (const db of ["DEMO", "OTHER"]) {
      const list = JSON.parse((await call("GET", `/v1/api/${db}/CustomerInfoList`, db)).text) as Array<{
        CustomerId: string;
        City: string | null;
      }>;
      const listed = new Map(list.map((c) => [c.CustomerId, c.City]));
      for (const [id, city] of expected[db]!) {
        if (city === null) expect(listed.has(id), `${db}/${id} was deleted`).toBe(false);
        else expect(listed.get(id), `${db}/${id}`).toBe(city);
      }
      expect(expected[db]!.size).toBe(12 * 15);
    }
  }, 60_000);
});

/** Raw bytes in, raw answer out (for requests fetch would refuse to send). */
function raw(request: string | Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(new URL(server.url).port), "127.0.0.1", () => socket.end(request));
    let data = "";
    socket.on("data", (d) => (data += d));
    socket.on("end", () => resolve(data));
    socket.on("error", reject);
  });
}

const bomb = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;"><!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">]><Customer><Name>&lol2;</Name></Customer>`;

describe("bad input", () => {
  it.each([
    ["truncated JSON", "application/json", '{"Name": "Half'],
    ["JSON with a stray brace", "application/json", '{"Name": "X"}}'],
    ["JSON that is a number", "application/json", "42"],
    ["JSON nested deeply", "application/json", `${"[".repeat(5000)}${"]".repeat(5000)}`],
    ["truncated XML", "application/xml", "<Customer><Name>Half</Na"],
    [
      "XML with an external entity",
      "application/xml",
      '<?xml version="1.0"?><!DOCTYPE c [<!ENTITY x SYSTEM "file:///etc/passwd">]><Customer><Name>&x;</Name></Customer>',
    ],
    ["XML with an entity-expansion bomb", "text/xml", bomb],
    ["XML of another root", "application/xml", "<Supplier><Name>X</Name></Supplier>"],
    ["invalid UTF-8", "application/json", Buffer.from([0x7b, 0x22, 0x4e, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d])],
    ["a form body", "application/x-www-form-urlencoded", "Name=X"],
    ["plain text", "text/plain", "Name: X"],
    ["no content type", "", '{"Name":"X"}'],
  ])("%s gets a 4xx that says what is wrong, and the mock keeps serving", async (_name, type, body) => {
    const res = await fetch(`${server.url}/v1/api/DEMO/Customer`, {
      method: "POST",
      headers: { ...auth.DEMO, ...(type ? { "content-type": type } : {}) },
      body,
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(((await res.json()) as { Message: string }).Message.length).toBeGreaterThan(10);
    expect((await call("GET", "/v1/api/DEMO/Customer/1001", "DEMO")).status).toBe(200);
  });

  it.each([
    ["a huge path segment", `/v1/api/DEMO/Customer/${"x".repeat(60_000)}`],
    ["a NUL byte", "/v1/api/DEMO/Customer/%00"],
    ["dot segments", "/v1/api/DEMO/../../__mock/reset"],
    ["broken percent-encoding", "/v1/api/DEMO/Customer/%zz"],
    ["unicode", "/v1/api/DEMO/Customer/%F0%9F%92%A5"],
    ["dot segments above the root", "/v1/../../__mock/reset"],
  ])("%s gets a 4xx", async (_name, path) => {
    const answer = await raw(
      `GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth.DEMO!.authorization}\r\nConnection: close\r\n\r\n`,
    );
    expect(answer).toMatch(/^HTTP\/1.1 4\d\d /);
    expect((await call("GET", "/v1/api/DEMO/Customer/1001", "DEMO")).status).toBe(200);
  });

  it("a body over the limit, long headers and garbage get 4xx", async () => {
    const big = await fetch(`${server.url}/v1/api/DEMO/Customer`, {
      method: "POST",
      headers: { ...auth.DEMO, "content-type": "application/json" },
      body: `{"Name":"${"x".repeat(2 * 1024 * 1024)}"}`,
    });
    expect(big.status).toBe(413);
    const longHeaders = Array.from({ length: 20 }, (_, i) => `X-Long-${i}: ${"v".repeat(1000)}\r\n`).join("");
    expect(await raw(`GET / HTTP/1.1\r\nHost: x\r\n${longHeaders}\r\n`)).toMatch(/^HTTP\/1.1 431/);
    expect(await raw(Buffer.from([0x16, 0x03, 0x01, 0x00, 0xa5, 0x01]))).toMatch(/^HTTP\/1.1 400/);
    expect((await call("GET", "/v1/api/DEMO/Customer/1001", "DEMO")).status).toBe(200);
  });
});
