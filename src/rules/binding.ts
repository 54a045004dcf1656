// Property names bound as ASP.NET binds them (A-NAMES, A-UNKNOWN-PROPERTIES):
// a JSON property that matches a field only case-insensitively binds to it,
// as Json.NET does, so camelCase clients of the real family work unchanged;
// two properties that bind to one field are refused, naming both; properties
// that bind to no field are ignored and named, never silently dropped.
import type { Problem } from "../contract/index.ts";

export interface Bound {
  /** The body with the contract's property names: the body itself when it already had them. */
  value: Record<string, unknown>;
  /** Paths of the properties that bound to no field (`shortname2`, `Addresses.0.Region`). */
  ignored: string[];
  /** Fields sent twice under different spellings. */
  problems: Problem[];
}

/**
 * Renames the properties of `body` to the contract's `fields`; `nested` gives
 * the fields of array properties whose items are objects (Addresses). XML is
 * bound exactly (DataContract matches element names by case).
 */
export function bindProperties(
  body: Record<string, unknown>,
  fields: readonly string[],
  nested: Readonly<Record<string, readonly string[]>>,
  caseInsensitive: boolean,
  path = "",
): Bound {
  const { exact } = lookupOf(fields);
  // Most bodies name every property exactly (PascalCase): then the body is bound as it is, with
  // no copy; a JSON object can not hold one name twice, so nothing is sent twice either.
  // No closure reads the loop's key: one would make V8 allocate a context for every property.
  let plain = true;
  for (const key in body) {
    const inner = nested[key];
    if (!exact.has(key) || (inner !== undefined && !itemsExact(body[key], inner))) {
      plain = false;
      break;
    }
  }
  if (plain) return { value: body, ignored: NONE, problems: NO_PROBLEMS };
  return bindSlowly(body, fields, nested, caseInsensitive, path);
}

/** Whether every object item of an array property names only its fields exactly (a non-array is bound as it is). */
function itemsExact(items: unknown, fields: readonly string[]): boolean {
  if (!Array.isArray(items)) return true;
  const { exact } = lookupOf(fields);
  for (const item of items) if (isObject(item) && !allExact(item, exact)) return false;
  return true;
}

const NONE = Object.freeze([]) as unknown as string[];
const NO_PROBLEMS = Object.freeze([]) as unknown as Problem[];
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
function allExact(o: Record<string, unknown>, exact: Set<string>): boolean {
  for (const k in o) if (!exact.has(k)) return false;
  return true;
}

/** Binding with renames, ignored properties and names sent twice: a copy of the body under the contract's names. */
function bindSlowly(
  body: Record<string, unknown>,
  fields: readonly string[],
  nested: Readonly<Record<string, readonly string[]>>,
  caseInsensitive: boolean,
  path: string,
): Bound {
  const { exact, byLower } = lookupOf(fields);
  const value: Record<string, unknown> = {};
  const sentAs = new Map<string, string>();
  const ignored: string[] = [];
  const problems: Problem[] = [];
  const at = (k: string) => (path ? `${path}.${k}` : k);
  for (const [key, v] of Object.entries(body)) {
    const field = exact.has(key) ? key : caseInsensitive ? byLower.get(key.toLowerCase()) : undefined;
    if (field === undefined) {
      ignored.push(at(key));
      continue;
    }
    const earlier = sentAs.get(field);
    if (earlier !== undefined) {
      problems.push({ field: at(field), message: `is sent twice, as ${earlier} and ${key}; send it once` });
      continue;
    }
    sentAs.set(field, key);
    const inner = nested[field];
    if (inner && Array.isArray(v)) {
      value[field] = v.map((item, i) => {
        if (typeof item !== "object" || item === null || Array.isArray(item)) return item;
        const b = bindProperties(item as Record<string, unknown>, inner, {}, caseInsensitive, at(`${field}.${i}`));
        ignored.push(...b.ignored);
        problems.push(...b.problems);
        return b.value;
      });
    } else {
      value[field] = v;
    }
  }
  return { value, ignored, problems };
}

// The field lists are the contract's, made once: their lookups are made once too, not per body.
const lookups = new WeakMap<readonly string[], { exact: Set<string>; byLower: Map<string, string> }>();
function lookupOf(fields: readonly string[]) {
  let l = lookups.get(fields);
  if (!l) {
    l = { exact: new Set(fields), byLower: new Map(fields.map((f) => [f.toLowerCase(), f])) };
    lookups.set(fields, l);
  }
  return l;
}
