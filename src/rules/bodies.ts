// Bodies and values made from a resource's own schema: what a check writes to
// an object of any resource, so a rule is tried on every resource with values
// that fit it (its lengths, formats, enums, bounds and required properties),
// never with a value written for the customer.
import { type Collection, type CompiledContract, MONTH_DAY_YEAR } from "../contract/index.ts";

/** A property's schema, as far as making a value for it needs. */
export interface PropertySchema {
  $ref?: string;
  type?: string | string[];
  default?: unknown;
  format?: string;
  enum?: unknown[];
  const?: unknown;
  pattern?: string;
  maxLength?: number;
  minLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  properties?: Record<string, PropertySchema>;
  required?: string[];
  "x-bawa-sequence"?: unknown;
  "x-bawa-database"?: unknown;
}

/** A schema with its `$ref`s followed (siblings of a `$ref` win, as OpenAPI 3.1 reads them). */
export function resolved(contract: Pick<CompiledContract, "doc">, schema: PropertySchema | undefined): PropertySchema {
  const schemas = contract.doc.components.schemas as Record<string, PropertySchema>;
  let out = schema ?? {};
  for (let i = 0; out.$ref && i < 20; i++) {
    const { $ref, ...rest } = out;
    out = { ...schemas[$ref.split("/").pop()!], ...rest };
  }
  return out;
}

/** The properties of a named schema of the contract, resolved, in contract order. */
export function propertiesOf(contract: CompiledContract, schema: string): Record<string, PropertySchema> {
  const s = resolved(contract, (contract.doc.components.schemas as Record<string, PropertySchema>)[schema]);
  return Object.fromEntries(Object.entries(s.properties ?? {}).map(([k, p]) => [k, resolved(contract, p)]));
}

export const typesOf = (p: PropertySchema) => [p.type ?? []].flat();

const requiredOfWrites = new WeakMap<Collection, readonly string[]>();

/**
 * What a write must give of an editable resource: its request schema's required properties but
 * the id and what the service sets itself (the path and the service give those), and but one with
 * a default: the service fills a missing property in with its default (A-DEFAULTS, the customer's;
 * a team's contract says so by writing the default), so leaving it out is no missing property. The
 * one list the judge's SVC-REQUIRED, the suite's checks of a body without a required property and
 * of what a body may leave out read (the mock's validation fills defaults in before it checks
 * `required`, which comes to the same). In the schema's order; read once per collection.
 */
export function requiredOfWrite(contract: CompiledContract, c: Collection): readonly string[] {
  let out = requiredOfWrites.get(c);
  if (out) return out;
  const name = c.request?.schema;
  const props = name ? propertiesOf(contract, name) : {};
  const schema = name
    ? resolved(contract, (contract.doc.components.schemas as Record<string, PropertySchema>)[name])
    : {};
  const own = new Set([c.idProperty, ...c.serviceSet.map((s) => s.name)]);
  out = (schema.required ?? []).filter((k) => !own.has(k) && props[k]?.default === undefined);
  requiredOfWrites.set(c, out);
  return out;
}

/**
 * A value a property's schema accepts, not null: its const or first enum value, a
 * month/day/year date, a text of the length it allows, a number within its bounds, a boolean.
 * `text` is used for a text property where it fits (cut to the property's maxLength).
 */
export function valueFor(p: PropertySchema, text = "x"): unknown {
  if (p.const !== undefined) return p.const;
  const choices = p.enum?.filter((v) => v !== null);
  if (choices?.length) return choices[0];
  const types = typesOf(p);
  if (p.format === MONTH_DAY_YEAR) return "03/14/2011";
  if (types.includes("string")) {
    const min = p.minLength ?? 0;
    const max = p.maxLength ?? Math.max(text.length, min);
    const fitted = text.slice(0, max);
    return fitted.length >= min ? fitted : fitted.padEnd(min, "x");
  }
  if (types.includes("integer") || types.includes("number")) {
    const low = p.minimum ?? (p.exclusiveMinimum !== undefined ? p.exclusiveMinimum + 1 : 0);
    return Math.min(Math.max(0, low), p.maximum ?? Number.MAX_SAFE_INTEGER);
  }
  if (types.includes("boolean")) return false;
  if (types.includes("array")) return [];
  if (types.includes("object")) return {};
  return null;
}

export interface BodyOptions {
  /** The unique name a created object carries, in its name property (cut to that property's maxLength). */
  name?: string | undefined;
  /** The property that carries `name`. */
  nameProperty?: string | undefined;
  /** Values known to be valid for this resource (a seed object): used for required properties without a default. */
  example?: Record<string, unknown> | undefined;
}

/**
 * A body of an editable resource with every property of its request schema (the description:
 * a body holds all properties): the id a create sends ("" or 0), the contract's default where
 * a property that is not required has one, else the example's value (a seed object's, known to
 * be taken), else null where null is allowed, else a value its schema accepts (valueFor).
 */
export function completeBody(
  contract: CompiledContract,
  c: Collection,
  options: BodyOptions = {},
): Record<string, unknown> {
  const request = resolved(
    contract,
    (contract.doc.components.schemas as Record<string, PropertySchema>)[c.request!.schema],
  );
  const required = new Set(request.required ?? []);
  const example = options.example ?? {};
  const body: Record<string, unknown> = {};
  for (const [k, raw] of Object.entries(request.properties ?? {})) {
    const p = resolved(contract, raw);
    if (k === options.nameProperty && options.name !== undefined) body[k] = valueFor(p, options.name);
    else if (k === c.idProperty) body[k] = c.idIsNumber ? 0 : "";
    else if (p.default !== undefined && !required.has(k)) body[k] = p.default;
    else if (Object.hasOwn(example, k)) body[k] = example[k];
    else if (typesOf(p).includes("null")) body[k] = null;
    else body[k] = valueFor(p);
  }
  return body;
}
