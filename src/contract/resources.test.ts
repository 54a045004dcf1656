import { describe, expect, it } from "vitest";
import { bindProperties } from "../rules/binding.ts";
import type { OpenApiDocument } from "./contract.ts";
import { compileContract, PROJECT_CONTRACT_PATH } from "./index.ts";
import { buildResourceModel, propertyOfParameter, ResourceModelError } from "./resources.ts";

/** A contract of a few paths and schemas, as small as a test needs. */
function contract(paths: Record<string, Record<string, unknown>>, schemas: Record<string, unknown>): OpenApiDocument {
  return { openapi: "3.1.0", info: { title: "t", version: "1" }, paths, components: { schemas } } as OpenApiDocument;
}
const json = (schema: string) => ({
  "200": { description: "ok", content: { "application/json": { schema: { $ref: `#/components/schemas/${schema}` } } } },
});
const body = (schema: string) => ({
  content: { "application/json": { schema: { $ref: `#/components/schemas/${schema}` } } },
});
const op = (id: string, extra: Record<string, unknown> = {}) => ({ operationId: id, responses: {}, ...extra });

const THING = {
  type: "object",
  properties: {
    ThingId: { type: "string", maxLength: 6 },
    Name: { type: "string" },
    Made: { type: ["string", "null"], format: "month-day-year" },
    Serial: { type: "integer", "x-bawa-sequence": true },
    Database: { type: ["string", "null"], "x-bawa-database": true },
    Parts: { type: "array", items: { $ref: "#/components/schemas/Part" } },
  },
};
const SCHEMAS = {
  Thing: THING,
  ThingRequest: THING,
  Part: { type: "object", properties: { PartId: { type: "integer" }, Label: { type: "string" } } },
  ThingInfo: { type: "object", properties: { ThingId: { type: "string" }, Name: { type: "string" } } },
  ThingInfoList: { type: "array", items: { $ref: "#/components/schemas/ThingInfo" } },
  Pair: { type: "object", properties: { name: { type: "string" }, value: { type: "string" } } },
  PairList: { type: "array", items: { $ref: "#/components/schemas/Pair" } },
  Office: { type: "object", properties: { OfficeId: { type: "string" }, City: { type: "string" } } },
  OfficeList: { type: "array", items: { $ref: "#/components/schemas/Office" } },
};
const THINGS = {
  "/api/{database_id}/Thing": {
    post: op("createThing", { requestBody: body("ThingRequest"), responses: json("Thing") }),
  },
  "/api/{database_id}/Thing/{thing_id}": {
    get: op("getThing", { responses: json("Thing") }),
    put: op("updateThing", { requestBody: body("ThingRequest"), responses: json("Thing") }),
    delete: op("deleteThing"),
  },
  "/api/{database_id}/ThingInfoList": { get: op("listThingInfo", { responses: json("ThingInfoList") }) },
};

describe("the resource model of a contract", () => {
  it("binds a body whose field is named like a member of every object (toString)", () => {
    const odd = {
      ...THING,
      properties: { ...THING.properties, toString: { type: ["array", "null"], items: { type: "integer" } } },
    };
    const model = buildResourceModel(contract(THINGS, { ...SCHEMAS, Thing: odd, ThingRequest: odd }));
    const c = model.collection("Thing")!;
    for (const body of [{ toString: [] }, { toString: [1, null] }, { Name: "x", constructor: [] }]) {
      expect(() => bindProperties(body, c.request!.properties, c.nested, true), JSON.stringify(body)).not.toThrow();
    }
    expect(bindProperties({ toString: [1] }, c.request!.properties, c.nested, true).value).toEqual({ toString: [1] });
  });

  it.each([
    ["customer_id", ["Name", "CustomerId"], "CustomerId"],
    ["customerId", ["CustomerId"], "CustomerId"],
    ["supplier_id", ["SupplierID"], "SupplierID"],
    ["thing_id", ["Name"], undefined],
  ])("names the id property of the path parameter {%s}", (param, props, want) => {
    expect(propertyOfParameter(param, props)).toBe(want);
  });

  it("reads an editable resource: its id, database scope, request, dates, sequences, nested items", () => {
    const model = buildResourceModel(contract(THINGS, SCHEMAS));
    const thing = model.collection("Thing")!;
    expect(thing).toMatchObject({
      editable: true,
      databaseScoped: true,
      idProperty: "ThingId",
      idMaxLength: 6,
      idIsNumber: false,
      request: { schema: "ThingRequest" },
      dateProperties: ["Made"],
      sequences: ["Serial"],
      databaseProperty: "Database",
      nested: { Parts: ["PartId", "Label"] },
      modelName: "thing",
      resources: ["Thing", "ThingInfoList"],
    });
    expect(model.operations.map((o) => [o.operationId, o.kind, o.action])).toEqual([
      ["createThing", "editable", "create"],
      ["getThing", "editable", "read"],
      ["updateThing", "editable", "update"],
      ["deleteThing", "editable", "delete"],
      ["listThingInfo", "list", "list"],
    ]);
    expect(model.unsupported).toEqual([]);
  });

  it("shows an info list as a projection of the editable resource whose id and fields it holds", () => {
    const model = buildResourceModel(contract(THINGS, SCHEMAS));
    const list = model.operations.find((o) => o.operationId === "listThingInfo")!;
    expect(list.collection.name).toBe("Thing");
    expect(list.view).toEqual({ schema: "ThingInfo", properties: ["ThingId", "Name"] });
    expect(list.answers).toBe("ThingInfoList");
    expect(model.collections).toHaveLength(1);
  });

  it("says when an info list meant to show an editable resource can not, naming the property", () => {
    const withColour = {
      ...SCHEMAS,
      ThingInfo: {
        type: "object",
        properties: { ThingId: { type: "string" }, Name: { type: "string" }, Colour: { type: "string" } },
      },
    };
    const model = buildResourceModel(contract(THINGS, withColour));
    expect(model.detached).toEqual([
      {
        resource: "ThingInfoList",
        itemSchema: "ThingInfo",
        editable: "Thing",
        missing: ["Colour"],
        why: "Colour is not a property of Thing",
      },
    ]);
    // It is read-only data of its own: created things never appear in it.
    expect(model.operations.find((o) => o.operationId === "listThingInfo")!.collection.name).toBe("ThingInfo");
    // A projection, and data of its own that names no editable resource, are nothing to say.
    expect(buildResourceModel(contract(THINGS, SCHEMAS)).detached).toEqual([]);
  });

  it("gives a list that projects nothing read-only data of its own; pairs of name and value are a name value list", () => {
    const model = buildResourceModel(
      contract(
        {
          ...THINGS,
          "/api/OfficeList": { get: op("listOffices", { responses: json("OfficeList") }) },
          "/api/Office/{office_id}": { get: op("getOffice", { responses: json("Office") }) },
          "/api/{database_id}/ColourNVL": { get: op("listColours", { responses: json("PairList") }) },
        },
        SCHEMAS,
      ),
    );
    const offices = model.collection("Office")!;
    expect(offices).toMatchObject({ editable: false, databaseScoped: false, idProperty: "OfficeId" });
    expect(model.resources.get("OfficeList")?.kind).toBe("list");
    expect(model.resources.get("Office")?.kind).toBe("info");
    expect(model.resources.get("Office")?.collection).toBe(offices);
    expect(model.resources.get("ColourNVL")?.kind).toBe("name-value-list");
    expect(model.collection("Pair")).toMatchObject({ editable: false, databaseScoped: true });
  });

  it("names what it can not serve, and why, instead of guessing", () => {
    const model = buildResourceModel(
      contract(
        {
          ...THINGS,
          "/api/{database_id}/Thing/{thing_id}/Parts": { get: op("listParts", { responses: json("ThingInfoList") }) },
          "/api/{database_id}/Report": { post: op("makeReport", { responses: json("Thing") }) },
          "/api/{database_id}/Thing/{thing_id}/": { patch: op("patchThing") },
        },
        SCHEMAS,
      ),
    );
    const why = Object.fromEntries(model.unsupported.map((u) => [`${u.method} ${u.path}`, u.reason]));
    expect(why).toEqual({
      "GET /api/{database_id}/Thing/{thing_id}/Parts": expect.stringMatching(
        /is not \/api\/\[\{database\}\/\]<Resource>/,
      ),
      "POST /api/{database_id}/Report": expect.stringMatching(/POST without the collection POST and item GET/),
      "PATCH /api/{database_id}/Thing/{thing_id}/": "the result kinds have no PATCH",
    });
  });

  it("refuses an item path whose parameter names no property", () => {
    const paths = {
      ...THINGS,
      "/api/{database_id}/Thing/{id}": THINGS["/api/{database_id}/Thing/{thing_id}"],
    };
    delete (paths as Record<string, unknown>)["/api/{database_id}/Thing/{thing_id}"];
    expect(() => buildResourceModel(contract(paths, SCHEMAS))).toThrow(ResourceModelError);
    expect(() => buildResourceModel(contract(paths, SCHEMAS))).toThrow(
      /\{id\} names no property of Thing \(expected Id\)/,
    );
  });

  it.each(["..", ".", "Thing.json", "Thing s", "Th%69ng", "Thing!"])(
    "refuses a resource named %j, which requests can not reach as written, naming the path",
    (name) => {
      const paths = { [`/api/{database_id}/${name}`]: THINGS["/api/{database_id}/Thing"] };
      expect(() => buildResourceModel(contract({ ...THINGS, ...paths }, SCHEMAS))).toThrow(
        `/api/{database_id}/${name}: the resource name ${JSON.stringify(name)} is not one requests can reach as written`,
      );
    },
  );

  it("refuses data of its own named by a schema a folder can not be called, naming the schema", () => {
    const paths = { "/api/Offices": { get: op("listOffices", { responses: json("DotList") }) } };
    const schemas = {
      ...SCHEMAS,
      "..": SCHEMAS.Office,
      DotList: { type: "array", items: { $ref: "#/components/schemas/.." } },
    };
    expect(() => buildResourceModel(contract(paths, schemas))).toThrow(
      "#/components/schemas/..: /api/Offices shows its objects, so its name names their seed folder",
    );
  });

  it("reads the project's contract: Customer, its info list, the administrations", () => {
    // The project's own contract by name (a team's contract in use, BAWA_CONTRACT, has more).
    const { resources } = compileContract(PROJECT_CONTRACT_PATH);
    expect([...resources.resources].map(([name, r]) => `${name}: ${r.kind} of ${r.collection.name}`)).toEqual([
      "Customer: editable of Customer",
      "AdministrationInfoList: list of AdministrationInfo",
      "CustomerInfoList: list of Customer",
    ]);
    expect(resources.collection("Customer")).toMatchObject({
      idProperty: "CustomerId",
      idMaxLength: 8,
      sequences: ["OrganizationId"],
      databaseProperty: "Database",
      dateProperties: ["CocDate", "VatVerificationDate"],
      nested: { Addresses: expect.arrayContaining(["AddressId", "Street1"]) },
    });
    expect(resources.collection("AdministrationInfo")).toMatchObject({
      databaseScoped: false,
      idProperty: "AdministrationId",
      databaseProperty: "AdministrationId",
    });
    expect(resources.unsupported).toEqual([]);
  });
});
