// The generators of invalid bodies: each body they make must be one the contract refuses, for the
// property they name. A generator that made a valid body now and then would let a target that
// accepts invalid ones pass the suite's checks on those cases. Run on the team contract of the
// fault matrix (the customer, Supplier copied from it, Product with enums of its own).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { writeTeamContract } from "../../scripts/team-contract.mjs";
import { compileContract } from "../../src/contract/index.ts";
import { completeBody } from "../../src/rules/bodies.ts";
import { nameOf } from "./created.ts";
import {
  bodiesWithout,
  dateProperties,
  enumProperties,
  limitedTexts,
  malformedDateBodies,
  outsideEnumBodies,
  requiredProperties,
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
    const required = requiredProperties(contract, schema).filter((k) => !skip.includes(k));
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
