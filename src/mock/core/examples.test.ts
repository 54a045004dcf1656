// Operations outside the result kinds, declared in a copy of the contract: a command POST and a
// path deeper than Resource/{id} are answered as declared (example, else schema), with the token
// and request-body rules of every request, and Prefer: code= / Prefer: example= work on them.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { CONTRACT_PATH, compileContract } from "../../contract/index.ts";
import { buildMock } from "../index.ts";
import { call, codeFlowTokens } from "../testing.ts";
import { servedFrom } from "./examples.ts";

const dir = mkdtempSync(join(tmpdir(), "bawa-examples-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const doc = parse(readFileSync(CONTRACT_PATH, "utf8"));
const common = {
  "401": { $ref: "#/components/responses/Unauthorized" },
  "500": { $ref: "#/components/responses/ServerError" },
};
doc.components.schemas.SendReminderCommand = {
  type: "object",
  additionalProperties: false,
  required: ["Days"],
  properties: { Days: { type: "integer", minimum: 1 } },
};
doc.components.schemas.CommandResult = {
  type: "object",
  additionalProperties: false,
  properties: { Sent: { type: "integer" }, Note: { type: "string" } },
};
doc.components.schemas.CustomerNote = {
  type: "object",
  additionalProperties: false,
  properties: { NoteId: { type: "integer" }, Text: { type: "string", minLength: 3 } },
};
doc.paths["/api/{database_id}/SendReminderCommand"] = {
  parameters: [{ $ref: "#/components/parameters/DatabaseId" }],
  post: {
    operationId: "sendReminder",
    requestBody: {
      required: true,
      content: { "application/json": { schema: { $ref: "#/components/schemas/SendReminderCommand" } } },
    },
    responses: {
      "200": {
        description: "sent",
        content: {
          "application/json": {
            schema: { $ref: "#/components/schemas/CommandResult" },
            examples: { few: { value: { Sent: 2, Note: "few" } }, many: { value: { Sent: 40, Note: "many" } } },
          },
        },
      },
      "400": { $ref: "#/components/responses/BadRequest" },
      ...common,
    },
  },
};
doc.paths["/api/{database_id}/Customer/{customer_id}/Note/{note_id}"] = {
  parameters: [
    { $ref: "#/components/parameters/DatabaseId" },
    { $ref: "#/components/parameters/CustomerId" },
    { name: "note_id", in: "path", required: true, schema: { type: "string" } },
  ],
  get: {
    operationId: "getCustomerNote",
    responses: {
      "200": {
        description: "one note",
        content: { "application/json": { schema: { $ref: "#/components/schemas/CustomerNote" } } },
      },
      "404": { $ref: "#/components/responses/NotFound" },
      ...common,
    },
  },
};
const path = join(dir, "openapi.yaml");
writeFileSync(path, stringify(doc));
const contract = compileContract(path);

function mock() {
  const m = buildMock({ contract });
  return { m, auth: { authorization: `Bearer ${codeFlowTokens(m).access_token}` } };
}
const json = { "content-type": "application/json" };

describe("operations outside the result kinds", () => {
  it("are in the resource model's stateless list, each with how it is answered", () => {
    const stateless = contract.resources.unsupported.map((u) => `${u.method} ${u.path} ${servedFrom(contract.doc, u)}`);
    expect(stateless.sort()).toEqual([
      "GET /api/{database_id}/Customer/{customer_id}/Note/{note_id} schema",
      "POST /api/{database_id}/SendReminderCommand example",
    ]);
  });

  it("a command POST answers its first example, or the one Prefer: example= names", () => {
    const { m, auth } = mock();
    const url = "/v1/api/DEMO/SendReminderCommand";
    const ok = call(m, "POST", url, { headers: { ...auth, ...json }, body: '{"Days":3}' });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.json()).toEqual({ Sent: 2, Note: "few" });
    const many = call(m, "POST", url, { headers: { ...auth, ...json, prefer: "example=many" }, body: '{"Days":3}' });
    expect(many.json()).toEqual({ Sent: 40, Note: "many" });
    const unknown = call(m, "POST", url, { headers: { ...auth, ...json, prefer: "example=all" }, body: '{"Days":3}' });
    expect(unknown.status).toBe(400);
    expect(unknown.json().Message).toMatch(/example=all is not an example .* its examples: few, many/);
  });

  it("a command's body is validated like every request body: 400 naming the field", () => {
    const { m, auth } = mock();
    const res = call(m, "POST", "/v1/api/DEMO/SendReminderCommand", { headers: { ...auth, ...json }, body: "{}" });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.json().ModelState)).toMatch(/Days/);
    const missing = call(m, "POST", "/v1/api/DEMO/SendReminderCommand", { headers: auth });
    expect(missing.status).toBe(400);
  });

  it("a nested path answers a value made from its schema", () => {
    const { m, auth } = mock();
    const res = call(m, "GET", "/v1/api/DEMO/Customer/1001/Note/7", { headers: auth });
    expect(res.status, res.text).toBe(200);
    expect(res.json()).toEqual({ NoteId: 0, Text: "xxx" });
    expect(contract.answers.check("CustomerNote", res.json())).toEqual([]);
  });

  it("both need a token as every data request does (401 with a challenge)", () => {
    const { m } = mock();
    for (const [method, url] of [
      ["POST", "/v1/api/DEMO/SendReminderCommand"],
      ["GET", "/v1/api/DEMO/Customer/1001/Note/7"],
    ] as const) {
      const res = call(m, method, url, { headers: json, body: method === "POST" ? '{"Days":1}' : undefined });
      expect(res.status, url).toBe(401);
      expect(res.headers["www-authenticate"]).toMatch(/^Bearer realm="bawa"/);
    }
  });

  it("Prefer: code= forces a declared status and refuses one not declared, on both", () => {
    const { m, auth } = mock();
    for (const [method, url, status, undeclared] of [
      ["POST", "/v1/api/DEMO/SendReminderCommand", 400, 404],
      ["GET", "/v1/api/DEMO/Customer/1001/Note/7", 404, 400],
    ] as const) {
      const body = method === "POST" ? '{"Days":1}' : undefined;
      const forced = call(m, method, url, { headers: { ...auth, ...json, prefer: `code=${status}` }, body });
      expect(forced.status, url).toBe(status);
      expect(forced.headers["x-bawa-forced"]).toBe(`Prefer: code=${status}`);
      const forced500 = call(m, method, url, { headers: { ...auth, ...json, prefer: "code=500" }, body });
      expect(forced500.status).toBe(500);
      const refused = call(m, method, url, { headers: { ...auth, ...json, prefer: `code=${undeclared}` }, body });
      expect(refused.status).toBe(400);
      expect(refused.json().Message).toMatch(new RegExp(`code=${undeclared} is not a status`));
    }
  });
});
