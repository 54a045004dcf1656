// Invalid request bodies, generated from the contract's request schema with
// fast-check. The seed is fixed in CI (and by CONFORMANCE_SEED), so a failing
// case can be replayed exactly.
import fc from "fast-check";
import { XMLValidator } from "fast-xml-parser";
import { type CompiledContract, MONTH_DAY_YEAR } from "../../src/contract/index.ts";
import { propertiesOf, typesOf } from "../../src/rules/bodies.ts";

export const SEED = Number(process.env.CONFORMANCE_SEED ?? (process.env.CI ? 20261121 : Date.now() % 2 ** 31));
export const RUNS = Number(process.env.CONFORMANCE_RUNS ?? 40);

/** A request schema's properties with their allowed JSON types and patterns, read from the contract. */
export function requestProperties(
  contract: CompiledContract,
  schema: string,
): Array<{ name: string; types: string[]; pattern?: RegExp; date: boolean }> {
  return Object.entries(propertiesOf(contract, schema)).map(([name, s]) => ({
    name,
    types: typesOf(s),
    ...(s.pattern ? { pattern: new RegExp(s.pattern) } : {}),
    date: s.format === MONTH_DAY_YEAR,
  }));
}

const fits = (v: unknown, types: string[]) =>
  (v === null && types.includes("null")) ||
  (typeof v === "boolean" && types.includes("boolean")) ||
  (typeof v === "string" && types.includes("string")) ||
  (typeof v === "number" && (types.includes("number") || (types.includes("integer") && Number.isInteger(v)))) ||
  (Array.isArray(v) && types.includes("array")) ||
  (typeof v === "object" && v !== null && !Array.isArray(v) && types.includes("object"));

const anyValue = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 4 }), fc.integer(), { maxKeys: 2 }),
);

/** A valid body of `schema` with one property replaced by a value of a type the contract does not allow there. */
export function wrongTypeBodies(contract: CompiledContract, schema: string, valid: Record<string, unknown>) {
  const props = requestProperties(contract, schema);
  return fc
    .constantFrom(...props)
    .chain((p) =>
      anyValue.filter((v) => !fits(v, p.types)).map((v) => ({ field: p.name, body: { ...valid, [p.name]: v } })),
    );
}

/**
 * Texts no reader of a type takes. In XML every value is text, so only a property that is not a
 * text can be given one of the wrong type. Not 1 or 0 for a truth value (xs:boolean reads them),
 * and "1,5" for a number on purpose: a reader of Dutch or of thousands separators makes 1.5 or 15
 * of it, a value the client did not write.
 */
const UNREADABLE: Record<string, readonly string[]> = {
  number: ["twelve", "12 euro", "1,5"],
  integer: ["twelve", "7 stuks", "1.5"],
  boolean: ["yes", "ja", "2"],
  array: ["Hoofdstraat 1"],
  object: ["Hoofdstraat 1"],
};

/** The properties of `schema` whose type is not text, which unreadableXmlBodies spoils. */
export const untextualProperties = (contract: CompiledContract, schema: string, skip: readonly string[]) =>
  requestProperties(contract, schema).filter(
    (p) => !skip.includes(p.name) && !p.types.includes("string") && p.types.some((t) => t in UNREADABLE),
  );

/**
 * A valid body of `schema` with one property not a text given a text its type can not read
 * (`CreditLimit: "twelve"`), to be written as XML: `<CreditLimit>twelve</CreditLimit>`.
 */
export function unreadableXmlBodies(
  contract: CompiledContract,
  schema: string,
  valid: Record<string, unknown>,
  skip: readonly string[],
) {
  return fc
    .constantFrom(...untextualProperties(contract, schema, skip))
    .chain((p) =>
      fc
        .constantFrom(...new Set(p.types.flatMap((t) => UNREADABLE[t] ?? [])))
        .map((text) => ({ field: p.name, text, body: { ...valid, [p.name]: text } })),
    );
}

/** The date properties of `schema` (month/day/year), which malformedDateBodies spoils. */
export const dateProperties = (contract: CompiledContract, schema: string) =>
  requestProperties(contract, schema).filter((p) => p.date && p.pattern);

/** A valid body of `schema` with a date field that is not month/day/year. */
export function malformedDateBodies(contract: CompiledContract, schema: string, valid: Record<string, unknown>) {
  const dates = dateProperties(contract, schema);
  const bad = fc.oneof(
    fc
      .date({ min: new Date("1900-01-01"), max: new Date("2100-01-01"), noInvalidDate: true })
      .map((d) => d.toISOString().slice(0, 10)),
    fc
      .tuple(fc.integer({ min: 13, max: 99 }), fc.integer({ min: 1, max: 28 }), fc.integer({ min: 1900, max: 2100 }))
      .map(([m, d, y]) => `${m}/${d}/${y}`),
    fc
      .tuple(fc.integer({ min: 1, max: 28 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1900, max: 2100 }))
      .map(([d, m, y]) => `${d}-${m}-${y}`),
    fc.string({ minLength: 1, maxLength: 12 }),
  );
  return fc
    .constantFrom(...dates)
    .chain((p) =>
      bad.filter((v) => !p.pattern!.test(v)).map((v) => ({ field: p.name, body: { ...valid, [p.name]: v } })),
    );
}

/** A valid body of `schema` with each of `required` left out in turn: the property and the body without it. */
export function bodiesWithout(required: readonly string[], valid: Record<string, unknown>) {
  return required.map((field) => ({
    field,
    body: Object.fromEntries(Object.entries(valid).filter(([k]) => k !== field)),
  }));
}

/**
 * The free text properties of `schema` with a `bound` (maxLength, or a minLength above 0), but for
 * those in `skip` (the id, what the service sets itself) and enums and dates, whose values are
 * refused for another reason.
 */
function textsBounded(
  contract: CompiledContract,
  schema: string,
  skip: readonly string[],
  bound: "maxLength" | "minLength",
): Array<{ name: string; length: number }> {
  return Object.entries(propertiesOf(contract, schema)).flatMap(([name, p]) => {
    const length = p[bound];
    return !skip.includes(name) &&
      length !== undefined &&
      (bound === "maxLength" || length > 0) &&
      typesOf(p).includes("string") &&
      p.enum === undefined &&
      p.format !== MONTH_DAY_YEAR
      ? [{ name, length }]
      : [];
  });
}

/** The text properties of `schema` with a maxLength (see textsBounded). */
export const limitedTexts = (contract: CompiledContract, schema: string, skip: readonly string[]) =>
  textsBounded(contract, schema, skip, "maxLength").map(({ name, length }) => ({ name, maxLength: length }));

/**
 * A valid body of `schema` with one text property 1 to 8 characters longer than its maxLength:
 * letters and digits only, so a pattern of word characters is not what refuses it.
 */
export function tooLongBodies(
  contract: CompiledContract,
  schema: string,
  valid: Record<string, unknown>,
  skip: readonly string[],
) {
  const texts = limitedTexts(contract, schema, skip);
  return fc
    .constantFrom(...texts)
    .chain((p) =>
      fc
        .tuple(fc.integer({ min: 1, max: 8 }), fc.constantFrom("x", "L", "7"))
        .map(([over, c]) => ({ field: p.name, body: { ...valid, [p.name]: c.repeat(p.maxLength + over) } })),
    );
}

/** The text properties of `schema` with a minLength above 0 (see textsBounded). */
export const shortenedTexts = (contract: CompiledContract, schema: string, skip: readonly string[]) =>
  textsBounded(contract, schema, skip, "minLength").map(({ name, length }) => ({ name, minLength: length }));

/** A valid body of `schema` with one text property shorter than its minLength (the empty text included). */
export function tooShortBodies(
  contract: CompiledContract,
  schema: string,
  valid: Record<string, unknown>,
  skip: readonly string[],
) {
  return fc
    .constantFrom(...shortenedTexts(contract, schema, skip))
    .chain((p) =>
      fc
        .tuple(fc.integer({ min: 0, max: p.minLength - 1 }), fc.constantFrom("x", "L", "7"))
        .map(([length, c]) => ({ field: p.name, body: { ...valid, [p.name]: c.repeat(length) } })),
    );
}

/**
 * The number properties of `schema` with a minimum or maximum (exclusive or not), but for those in
 * `skip` and enums, each with values just and far outside them: for a whole number one past the
 * bound, for a decimal a cent past it, and a thousand past it for both.
 */
export const boundedNumbers = (contract: CompiledContract, schema: string, skip: readonly string[]) =>
  Object.entries(propertiesOf(contract, schema)).flatMap(([name, p]) => {
    const types = typesOf(p);
    if (skip.includes(name) || p.enum !== undefined || !types.some((t) => t === "number" || t === "integer")) return [];
    const step = types.includes("number") ? 0.01 : 1;
    const outside = [
      ...(p.minimum !== undefined ? [p.minimum - step, p.minimum - 1000] : []),
      ...(p.exclusiveMinimum !== undefined ? [p.exclusiveMinimum, p.exclusiveMinimum - 1000] : []),
      ...(p.maximum !== undefined ? [p.maximum + step, p.maximum + 1000] : []),
      ...(p.exclusiveMaximum !== undefined ? [p.exclusiveMaximum, p.exclusiveMaximum + 1000] : []),
    ].map((v) => Number(v.toFixed(2)));
    return outside.length > 0 ? [{ name, outside }] : [];
  });

/** A valid body of `schema` with one number property outside its minimum or maximum. */
export function outOfRangeBodies(
  contract: CompiledContract,
  schema: string,
  valid: Record<string, unknown>,
  skip: readonly string[],
) {
  return fc
    .constantFrom(...boundedNumbers(contract, schema, skip))
    .chain((p) => fc.constantFrom(...p.outside).map((v) => ({ field: p.name, body: { ...valid, [p.name]: v } })));
}

/** The properties of `schema` that allow only the values their enum lists. */
export const enumProperties = (contract: CompiledContract, schema: string, skip: readonly string[]) =>
  Object.entries(propertiesOf(contract, schema))
    .filter(([k, p]) => !skip.includes(k) && Array.isArray(p.enum) && p.enum.some((v) => v !== null))
    .map(([name, p]) => ({ name, schema: p }));

/**
 * A valid body of `schema` with one enum property given a value its enum does not list, of the
 * property's own type (a text within its maxLength, a whole number within its bounds), so the
 * enum is what refuses it.
 */
export function outsideEnumBodies(
  contract: CompiledContract,
  schema: string,
  valid: Record<string, unknown>,
  skip: readonly string[],
) {
  const props = enumProperties(contract, schema, skip);
  return fc.constantFrom(...props).chain(({ name, schema: p }) => {
    // Not a listed value in other letter case either: a binder may read enums without case.
    const listed = (v: unknown) =>
      p.enum!.some(
        (e) => e === v || (typeof e === "string" && typeof v === "string" && e.toLowerCase() === v.toLowerCase()),
      );
    const types = typesOf(p);
    const value: fc.Arbitrary<unknown> = types.includes("string")
      ? fc
          .string({ minLength: Math.max(1, p.minLength ?? 1), maxLength: Math.min(p.maxLength ?? 12, 12) })
          .filter((v) => v.trim() === v && v.length >= Math.max(1, p.minLength ?? 1))
      : fc.integer({
          min: p.minimum ?? (p.exclusiveMinimum !== undefined ? p.exclusiveMinimum + 1 : -1000),
          max: p.maximum ?? 1000,
        });
    return value.filter((v) => !listed(v)).map((v) => ({ field: name, body: { ...valid, [name]: v } }));
  });
}

/** JSON text of a valid body, cut short or with a stray character, that no longer parses. */
export function malformedJson(valid: Record<string, unknown>) {
  const text = JSON.stringify(valid);
  return fc
    .oneof(
      fc.integer({ min: 1, max: text.length - 1 }).map((n) => text.slice(0, n)),
      fc
        .tuple(fc.integer({ min: 0, max: text.length }), fc.constantFrom("{", "}", '"', ",", ":", "]", "\\"))
        .map(([i, c]) => text.slice(0, i) + c + text.slice(i)),
    )
    .filter((t) => {
      try {
        JSON.parse(t);
        return false;
      } catch {
        return true;
      }
    });
}

/** XML of a valid body, cut short or with an unbalanced tag, that is no longer well-formed. */
export function malformedXml(validXml: string) {
  return fc
    .oneof(
      fc.integer({ min: 1, max: validXml.length - 1 }).map((n) => validXml.slice(0, n)),
      fc.integer({ min: 0, max: validXml.length }).map((i) => `${validXml.slice(0, i)}<Broken>${validXml.slice(i)}`),
    )
    .filter((t) => XMLValidator.validate(t) !== true);
}

/** Runs a property; on failure says how to replay the case. */
export async function assertProperty<T>(arb: fc.Arbitrary<T>, predicate: (v: T) => Promise<void>): Promise<void> {
  try {
    await fc.assert(fc.asyncProperty(arb, predicate), { seed: SEED, numRuns: RUNS, endOnFailure: false });
  } catch (err) {
    const message = (err as Error).message
      .split("\n")
      .filter((l) => !/^(Hint|\s*$)/.test(l))
      .slice(0, 8)
      .join("\n");
    // fast-check keeps the failing assertion itself as the cause.
    const cause = (err as Error & { cause?: Error }).cause?.message?.split("\n")[0];
    throw new Error(
      `${cause ? `${cause}\n` : ""}${message}\nReplay: CONFORMANCE_SEED=${SEED} npm run conformance -- --grep A-INVALID-BODIES --assumptions`,
    );
  }
}
