// The generators of invalid bodies: each body they make must be one the contract refuses, for the
// property they name. A generator that made a valid body now and then would let a target that
// accepts invalid ones pass the suite's checks on those cases. Run on the team contract of the
// fault matrix (the customer, Supplier copied from it, Product with enums of its own).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { parseDocument } from "yaml";
import { writeTeamContract } from "../../scripts/team-contract.mjs";
import { compileContract } from "../../src/contract/index.ts";
import { buildMock } from "../../src/mock/index.ts";
import { call, codeFlowTokens } from "../../src/mock/testing.ts";
import { completeBody, requiredOfWrite } from "../../src/rules/bodies.ts";
import { nameOf } from "./created.ts";
import {
  bodiesWithout,
  dateProperties,
  enumProperties,
  limitedTexts,
  malformedDateBodies,
  outsideEnumBodies,
  tooLongBodies,
  unreadableXmlBodies,
  untextualProperties,
  wrongTypeBodies,
} from "./invalid-bodies.ts";

const dir = mkdtempSync(join(tmpdir(), "bawa-invalid-bodies-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const contract = compileContract(writeTeamContract({ out: dir }));
const editable = contract.resources.collections.filter((c) => c.editable && c.request);

/** The properties the contract refuses a body for: a problem's field up to its first dot. */
const refusedFor = (schema: string, body: Record<string, unknown>) =>
  contract.requests.check(schema, structuredClone(body)).map((p) => p.field.split(/[.[]/)[0]);

describe.each(editable.map((c) => [c.name, c] as const))("the invalid bodies of %s", (_, c) => {
  const schema = c.request!.schema;
  const skip = [c.idProperty, ...c.serviceSet.map((s) => s.name)].filter((k): k is string => k !== undefined);
  const valid = completeBody(contract, c, { name: "Valid Name", nameProperty: nameOf(c, contract.doc) });

  it("start from a body the contract takes", () => {
    expect(refusedFor(schema, valid)).toEqual([]);
  });

  it("leave out each required property in turn, each refused for it", () => {
    const required = requiredOfWrite(contract, c);
    expect(required.filter((k) => skip.includes(k))).toEqual([]);
    for (const { field, body } of bodiesWithout(required, valid))
      expect(refusedFor(schema, body), field).toContain(field);
  });

  const kinds = [
    ["of the wrong type", () => wrongTypeBodies(contract, schema, valid), true],
    [
      "over a maxLength",
      () => tooLongBodies(contract, schema, valid, skip),
      limitedTexts(contract, schema, skip).length > 0,
    ],
    [
      "outside an enum",
      () => outsideEnumBodies(contract, schema, valid, skip),
      enumProperties(contract, schema, skip).length > 0,
    ],
    [
      "with a malformed date",
      () => malformedDateBodies(contract, schema, valid),
      dateProperties(contract, schema).length > 0,
    ],
  ] as const;
  it.each(kinds.filter(([, , any]) => any).map(([what, make]) => [what, make] as const))(
    "%s: every body is refused for the property it names",
    (_what, make) => {
      fc.assert(
        fc.property(make(), ({ field, body }) => {
          expect(refusedFor(schema, body), `${field} = ${JSON.stringify(body[field])}`).toContain(field);
        }),
        { seed: 20261130, numRuns: 100 },
      );
    },
  );

  it("of the wrong type in XML: every body, written as XML and read back, is refused for the property it names", () => {
    expect(untextualProperties(contract, schema, skip).length).toBeGreaterThan(0);
    fc.assert(
      fc.property(unreadableXmlBodies(contract, schema, valid, skip), ({ field, text, body }) => {
        const read = contract.xml.parse(schema, contract.xml.stringify(schema, body)) as Record<string, unknown>;
        expect(refusedFor(schema, read), `<${field}>${text}</${field}>`).toContain(field);
      }),
      { seed: 20261130, numRuns: 100 },
    );
  });
});

describe("a required property with a default", () => {
  // A team's contract that requires Product's Unit and VatRate and gives them defaults: the service fills a
  // missing one in, so a body without it is no body without a required property. The suite
  // demanded 400 for it while the judge and the mock took it (the own mock failed its own suite).
  const team = mkdtempSync(join(dir, "defaulted-"));
  const file = writeTeamContract({ out: team });
  const doc = parseDocument(readFileSync(file, "utf8"));
  doc.setIn(
    ["components", "schemas", "ProductRequest", "required"],
    doc.createNode(["Code", "ProductName", "Unit", "VatRate"]),
  );
  writeFileSync(file, doc.toString({ lineWidth: 0 }));
  const defaulted = compileContract(file);
  const product = defaulted.resources.collections.find((c) => c.name === "Product")!;

  it("is not one a write must give: the judge and the suite read one list without it", () => {
    expect(requiredOfWrite(defaulted, product)).toEqual(["Code", "ProductName"]);
  });

  it("left out, is filled in by the contract's check of a request, as the mock runs it", () => {
    const valid = completeBody(defaulted, product, {
      name: "Valid Name",
      nameProperty: nameOf(product, defaulted.doc),
    });
    const { Unit: _, ...withoutUnit } = valid;
    const body = structuredClone(withoutUnit);
    expect(defaulted.requests.check("ProductRequest", body)).toEqual([]);
    expect(body).toMatchObject({ Unit: "pcs" });
  });

  it("left out under the fault required-not-enforced, still takes its default, not a made-up value", () => {
    const mock = buildMock({
      contract: defaulted,
      seedDir: join(team, "mock-data"),
      rules: { enforceRequired: false },
    });
    const auth = { authorization: `Bearer ${codeFlowTokens(mock).access_token}` };
    const headers = { ...auth, "content-type": "application/json", accept: "application/json" };
    const valid = completeBody(defaulted, product, {
      name: "Valid Name",
      nameProperty: nameOf(product, defaulted.doc),
    });
    const { VatRate: _, Code: __, ...body } = valid;
    const created = call(mock, "POST", "/v1/api/DEMO/Product", { headers, body: JSON.stringify(body) });
    expect(created.status, created.text).toBe(200);
    // Code, required without a default, is made up by the fault; VatRate is the contract's default
    // (21), not the first value its enum lists (0).
    expect(created.json()).toMatchObject({ VatRate: 21, Code: expect.any(String) });
  });
});
