// The one place field names are compared, by the suite's checks and by the
// rules: a resource's fields as the contract lists them, and whether names are
// compared without case. Fields an implementation adds beyond the description
// never fail a check: every view below drops them.

// A resource's fields are one array for its life: their lower-case names are made once per array.
interface Names {
  exact: ReadonlySet<string>;
  byLower: ReadonlyMap<string, string>;
}
const lowered = new WeakMap<readonly string[], Names>();
function namesOf(fields: readonly string[]): Names {
  let names = lowered.get(fields);
  if (!names) {
    names = { exact: new Set(fields), byLower: new Map(fields.map((f) => [f.toLowerCase(), f])) };
    lowered.set(fields, names);
  }
  return names;
}

/** How a reader compares names: exactly, or without case (CONFORMANCE_CASE_INSENSITIVE_NAMES). */
export interface NameReading {
  caseInsensitiveNames: boolean;
}

/** The fields of an object that match one of `fields` only when case is ignored: `customerId` for CustomerId. */
export function otherCase(
  value: Record<string, unknown>,
  fields: readonly string[],
): Array<[found: string, field: string]> {
  const { exact, byLower } = namesOf(fields);
  const out: Array<[found: string, field: string]> = [];
  // No array of the keys: the judge asks this of every answer's body, where nothing is found.
  for (const k in value) {
    if (!Object.hasOwn(value, k) || exact.has(k)) continue;
    const field = byLower.get(k.toLowerCase());
    if (field !== undefined) out.push([k, field]);
  }
  return out;
}

/** Whether an object carries at least one of `fields`, whatever its case. */
export function sharesAName(value: Record<string, unknown>, fields: readonly string[]): boolean {
  const { exact, byLower } = namesOf(fields);
  const keys = Object.keys(value);
  for (const k of keys) if (exact.has(k)) return true;
  for (const k of keys) if (byLower.has(k.toLowerCase())) return true;
  return false;
}

/**
 * The described fields of an object under their table names, every other
 * field dropped. Names are matched exactly, or case-insensitively when the run
 * allows it (CONFORMANCE_CASE_INSENSITIVE_NAMES) or `always` is set (checks of
 * values, not of names, read a value whatever its case).
 */
export function described(
  value: unknown,
  fields: readonly string[],
  t: NameReading,
  always = false,
): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return {};
  const loose = t.caseInsensitiveNames || always;
  const names = namesOf(fields);
  const out: Record<string, unknown> = {};
  // Keys, not entries: the proxy's judge views every answer's body, and an entry per field was a
  // fifth of what judging a read allocated.
  const from = value as Record<string, unknown>;
  for (const k of Object.keys(from)) {
    const exact = names.exact.has(k);
    const field = exact ? k : loose ? names.byLower.get(k.toLowerCase()) : undefined;
    // The exact spelling wins over another case of the same name.
    if (field !== undefined && (exact || !(field in out))) out[field] = from[k];
  }
  return out;
}

/**
 * {@link described} without case, but the object itself when it has nothing to drop or rename
 * (every name a described field as the table writes it: a conforming answer), so the judge reading
 * every answer's body makes no copy of it. The object is shared: a caller changes a copy.
 */
export function describedOrSelf(value: unknown, fields: readonly string[]): Readonly<Record<string, unknown>> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return {};
  const { exact } = namesOf(fields);
  // Object.keys, not for-in: half the time on a parsed customer (55 names), and own names only.
  if (Object.keys(value).every((k) => exact.has(k))) return value as Record<string, unknown>;
  return described(value, fields, { caseInsensitiveNames: true });
}

/** One described field's value, whatever the case of its name (checks of values, not names). */
export const valueNamed = (value: unknown, field: string): unknown =>
  typeof value === "object" && value !== null
    ? Object.entries(value).find(([k]) => k.toLowerCase() === field.toLowerCase())?.[1]
    : undefined;
