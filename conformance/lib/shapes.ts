// Shape checks against the contract's schemas; the description-level reading
// of XML is the rules' (src/rules/xml.ts).
import type { Problem, SchemaSet } from "../../src/contract/index.ts";
import type { Target } from "./config.ts";

/** Renames keys that differ from the contract's only in case, when the run compares names case-insensitively. */
export function normalizeNames(value: unknown, names: readonly string[]): unknown {
  if (Array.isArray(value)) return value.map((v) => normalizeNames(v, names));
  if (typeof value !== "object" || value === null) return value;
  const byLower = new Map(names.map((n) => [n.toLowerCase(), n]));
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [byLower.get(k.toLowerCase()) ?? k, normalizeNames(v, names)]),
  );
}

export function problemsOf(
  set: SchemaSet,
  schema: string,
  value: unknown,
  t: Target,
  names: readonly string[],
): Problem[] {
  return set.check(schema, t.caseInsensitiveNames ? normalizeNames(value, names) : value);
}

export const describeProblems = (ps: Problem[]) => ps.map((p) => `${p.field || "(body)"} ${p.message}`).join("; ");
