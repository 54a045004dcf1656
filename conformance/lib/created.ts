// The objects the suite creates, and how cleanup finds them again when a run
// died between creating and deleting: each is named `<prefix> <8 hex digits>`
// in its resource's name property, and read back from the list that shows
// that resource. Both sides read this file, so they can not drift apart; it
// loads no test runner, since `bawa conformance cleanup` runs without one.
import { randomBytes } from "node:crypto";
import type { Collection, OpenApiDocument, Operation, ResourceModel } from "../../src/contract/index.ts";
import { type PropertySchema, resolved } from "../../src/rules/bodies.ts";
import { escapeRegExp } from "../../src/rules/redact.ts";

/**
 * A name no other run uses; the prefix (the target's CONFORMANCE_NAME_PREFIX, which may be its own
 * in a run of several) lets cleanup find what a run left.
 */
export const uniqueName = (prefix: string) => `${prefix} ${randomBytes(4).toString("hex")}`;

/** The names uniqueName gives with `prefix`, and nothing else. */
export const leftBehind = (prefix: string): RegExp => new RegExp(`^${escapeRegExp(prefix)} [0-9a-f]{8}$`);

/** The longest name uniqueName gives with the default prefix: a property shorter than this can not carry it. */
const NAME_LENGTH = uniqueName("Conformance").length;

/**
 * The property that carries a created object's unique name: a required text property long enough
 * to hold it, one called a name first (`Name`, `ProductName`), else the first such; a short code
 * (`Code`, maxLength 4) never carries it, or two runs' objects could not be told apart.
 */
export function nameOf(c: Collection, doc: OpenApiDocument): string | undefined {
  const schema = doc.components.schemas[c.request?.schema ?? ""] as PropertySchema | undefined;
  // A request schema, or a property of it, may be a $ref (followed as bodies.ts follows one).
  const request = resolved({ doc }, schema);
  const texts = (request.required ?? []).filter((k) => k !== c.idProperty && [c.types[k]].flat().includes("string"));
  const long = texts.filter(
    (k) => (resolved({ doc }, request.properties?.[k]).maxLength ?? Number.POSITIVE_INFINITY) >= NAME_LENGTH,
  );
  return long.find((k) => /name/i.test(k)) ?? long[0];
}

/** Where cleanup looks for an editable resource's objects, or why it can not. */
export interface Findable {
  collection: Collection;
  /** The list that shows the objects' ids and names, and the call that deletes one. */
  list?: Operation;
  remove?: Operation;
  nameProperty?: string;
  /** Set when the contract gives no way to find or delete the objects. */
  why?: string;
}

/** Every editable resource of the contract (the suite creates objects of each), in contract order. */
export function findable(model: ResourceModel, doc: OpenApiDocument): Findable[] {
  return model.collections
    .filter((c) => c.editable)
    .map((collection) => {
      const name = nameOf(collection, doc);
      const ops = model.operations.filter((o) => o.collection === collection);
      const list = ops.find(
        (o) =>
          o.action === "list" &&
          collection.idProperty !== undefined &&
          o.view.properties.includes(collection.idProperty) &&
          name !== undefined &&
          o.view.properties.includes(name),
      );
      const remove = ops.find((o) => o.action === "delete");
      const why = !name
        ? `its request schema has no required text property to carry the run's name`
        : !list
          ? `no list of the contract shows its ${collection.idProperty ?? "id"} and ${name}`
          : !remove
            ? "the contract has no DELETE for it"
            : undefined;
      return {
        collection,
        ...(list ? { list } : {}),
        ...(remove ? { remove } : {}),
        ...(name ? { nameProperty: name } : {}),
        ...(why ? { why } : {}),
      };
    });
}
