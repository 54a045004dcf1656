// OData list parameters on CustomerInfoList (A-LIST-PARAMETERS): $filter,
// $orderby, $skip and $top, as real clients of the family send them. $filter
// is parsed by odata-v4-parser (decision 0011) and evaluated here for the
// subset the mock supports; anything else is 400 naming the parameter and
// the position, never silently ignored.
import { createRequire } from "node:module";
import type { Params } from "./http.ts";

let odata: typeof import("odata-v4-parser") | undefined;
/** The parser, loaded at the first $filter: ten modules, 10-20 ms of a start that most lists never need. */
function parseFilter(text: string) {
  odata ??= createRequire(import.meta.url)("odata-v4-parser") as typeof import("odata-v4-parser");
  return odata.filter(text);
}

/** What a list query asks for; absent parts leave the list as it is. */
export interface ListQuery {
  filter?: (item: Record<string, unknown>) => boolean;
  orderBy?: Array<{ field: string; descending: boolean }>;
  skip?: number;
  top?: number;
}

export type ParsedQuery = { ok: true; query: ListQuery } | { ok: false; parameter: string; message: string };

const SUPPORTED = ["$filter", "$orderby", "$skip", "$top"];
const MAX_TOP = 1_000_000;

/**
 * Bounds of a $filter (A-LIMITS), checked in one pass before it is parsed: the parser's time grows
 * faster than the text (3,000 nested parentheses held the one thread for seconds), and within these
 * a filter parses in a few milliseconds at most. Real clients send a condition or two.
 */
export const FILTER_LIMITS = { characters: 1_000, depth: 16, conditions: 32 } as const;
const MAX_ORDERBY_CHARACTERS = 500;

/** Why a $filter text is beyond FILTER_LIMITS, or undefined; reads it once, skipping quoted strings. */
export function filterBeyondLimits(text: string): string | undefined {
  if (text.length > FILTER_LIMITS.characters) {
    return `$filter is ${text.length} characters long, more than the ${FILTER_LIMITS.characters} this service reads (A-LIMITS).`;
  }
  let depth = 0;
  let conditions = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === "'") {
        if (text[i + 1] === "'") i++;
        else quoted = false;
      }
      continue;
    }
    if (c === "'") quoted = true;
    else if (c === "(") {
      // A function call is a condition too: startswith(...), contains(...).
      if (i > 0 && /[A-Za-z0-9_]/.test(text[i - 1]!)) conditions++;
      if (++depth > FILTER_LIMITS.depth) {
        return `$filter nests parentheses ${depth} deep at character ${i + 1}, more than the ${FILTER_LIMITS.depth} this service reads (A-LIMITS).`;
      }
    } else if (c === ")") depth = Math.max(0, depth - 1);
    else if (c === " " && /^ (eq|ne|gt|ge|lt|le) /i.test(text.slice(i, i + 4))) conditions++;
    if (conditions > FILTER_LIMITS.conditions) {
      return `$filter holds more than ${FILTER_LIMITS.conditions} conditions (comparisons and function calls; the one at character ${i + 1} is over), the most this service reads (A-LIMITS).`;
    }
  }
  return undefined;
}

/** Reads the list parameters of a query string; the fields are the info object's. */
export function parseListQuery(query: Params, fields: readonly string[]): ParsedQuery {
  const fail = (parameter: string, message: string): ParsedQuery => ({ ok: false, parameter, message });
  const out: ListQuery = {};
  for (const [name, values] of query) {
    if (!name.startsWith("$")) continue; // other parameters are not list options (A-LIST-PARAMETERS)
    if (!SUPPORTED.includes(name)) {
      return fail(name, `${name} is not supported by this mock; the list parameters are ${SUPPORTED.join(", ")}.`);
    }
    if (values.length > 1) return fail(name, `${name} is given ${values.length} times; give it once.`);
  }
  const field = (name: string) => fields.find((f) => f.toLowerCase() === name.toLowerCase());
  for (const name of ["$skip", "$top"] as const) {
    const v = query.get(name)?.[0];
    if (v === undefined) continue;
    if (!/^\d{1,7}$/.test(v) || Number(v) > MAX_TOP) {
      return fail(name, `${name}=${v.slice(0, 40)} is not a whole number from 0 to ${MAX_TOP}.`);
    }
    out[name === "$skip" ? "skip" : "top"] = Number(v);
  }
  const orderby = query.get("$orderby")?.[0];
  if (orderby !== undefined && orderby.length > MAX_ORDERBY_CHARACTERS) {
    return fail(
      "$orderby",
      `$orderby is ${orderby.length} characters long, more than the ${MAX_ORDERBY_CHARACTERS} this service reads (A-LIMITS).`,
    );
  }
  if (orderby !== undefined) {
    out.orderBy = [];
    let offset = 0;
    for (const part of orderby.split(",")) {
      const m = /^\s*([A-Za-z_][A-Za-z0-9_]*)(?:\s+(asc|desc))?\s*$/i.exec(part);
      const f = m && field(m[1]!);
      if (!m || !f) {
        return fail(
          "$orderby",
          `$orderby is not "<field> [asc|desc], ..." of the info fields at character ${offset + 1} (${JSON.stringify(part.trim().slice(0, 40))}); the fields are ${fields.join(", ")}.`,
        );
      }
      out.orderBy.push({ field: f, descending: m[2]?.toLowerCase() === "desc" });
      offset += part.length + 1;
    }
  }
  const filter = query.get("$filter")?.[0];
  const beyond = filter === undefined ? undefined : filterBeyondLimits(filter);
  if (beyond) return fail("$filter", beyond);
  if (filter !== undefined) {
    const encoded = encodeLiterals(filter);
    if (typeof encoded === "number") {
      return fail("$filter", `$filter has a string that begins at character ${encoded + 1} and is not closed with '.`);
    }
    let tree: Node;
    try {
      tree = parseFilter(encoded.text) as unknown as Node;
    } catch (err) {
      const at = /at (\d+)/.exec((err as Error).message)?.[1];
      return fail(
        "$filter",
        `$filter is not valid OData${at ? ` at character ${encoded.at(Number(at)) + 1}` : ""}: ${filter.slice(0, 100)}`,
      );
    }
    const compiled = compile(tree, field);
    if (!compiled.ok) {
      return fail(
        "$filter",
        `$filter uses ${compiled.what} at character ${encoded.at(compiled.at) + 1}, which this mock does not support; it supports eq, ne, and, or, not, parentheses, startswith and contains, on the info fields (${fields.join(", ")}) with strings or null.`,
      );
    }
    out.filter = compiled.test;
  }
  return { ok: true, query: out };
}

/**
 * The filter as the parser reads it: odata-v4-parser takes the text of a URL, still
 * percent-encoded, and refuses a "/", "%", "#" or "?" inside a string literal, which the query's
 * decoding has already made plain ('Jansen/De Vries', '100% Zeker'). Each ASCII character of a
 * literal but letters, digits and spaces is encoded again (literalValue() decodes it), and so is a
 * "%" outside one (the parser would read %27 as a quote), with a map from the encoded text's
 * positions back to the filter's. A string that is not closed answers the position of its quote.
 */
function encodeLiterals(text: string): { text: string; at: (i: number) => number } | number {
  let out = "";
  const origin: number[] = [];
  let opened = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "'") {
      if (opened >= 0 && text[i + 1] === "'") {
        out += "''";
        origin.push(i, i + 1);
        i++;
        continue;
      }
      opened = opened < 0 ? i : -1;
    } else if (opened >= 0 ? c.charCodeAt(0) < 128 && !/[A-Za-z0-9 ]/.test(c) : c === "%") {
      out += `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`;
      origin.push(i, i, i);
      continue;
    }
    out += c;
    origin.push(i);
  }
  if (opened >= 0) return opened;
  return { text: out, at: (i) => origin[i] ?? text.length };
}

/** A string literal's value, as encodeLiterals() handed it to the parser. */
const literalValue = (raw: string): string => {
  const inner = raw.slice(1, -1);
  try {
    return decodeURIComponent(inner).replaceAll("''", "'");
  } catch {
    // Only text encodeLiterals() did not write reaches here; it is taken as it is, never a 500.
    return inner.replaceAll("''", "'");
  }
};

/**
 * Applies a query: filter, then order, then skip and top (OData's order), to the items as `view`
 * shows them. Without a filter or an order only the page is viewed, so a page costs what it holds.
 */
export function applyListQuery<S, T extends Record<string, unknown>>(
  source: readonly S[],
  q: ListQuery,
  view: (item: S) => T,
): T[] {
  if (!q.filter && !q.orderBy?.length) return page(source, q).map(view);
  let out = source.map(view);
  if (q.filter) out = out.filter(q.filter);
  if (q.orderBy?.length) {
    const keys = q.orderBy;
    out = [...out].sort((a, b) => {
      for (const { field, descending } of keys) {
        const c = compareValues(a[field], b[field]);
        if (c !== 0) return descending ? -c : c;
      }
      return 0;
    });
  }
  return page(out, q);
}

function page<T>(items: readonly T[], q: ListQuery): T[] {
  const start = q.skip ?? 0;
  return items.slice(start, q.top === undefined ? undefined : start + q.top);
}

/** null sorts first, as in SQL Server's ascending order; strings by code unit. */
function compareValues(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === null || a === undefined) return -1;
  if (b === null || b === undefined) return 1;
  return String(a) < String(b) ? -1 : 1;
}

interface Node {
  type: string;
  position: number;
  raw: string;
  value: unknown;
}

type Test = (item: Record<string, unknown>) => boolean;
type Compiled = { ok: true; test: Test } | { ok: false; what: string; at: number };
type Operand = { kind: "field"; name: string } | { kind: "literal"; value: string | null };

/** Turns the parser's tree into a predicate, for the supported subset only. */
function compile(node: Node, field: (name: string) => string | undefined): Compiled {
  const unsupported = (n: Node, what = n.raw.length > 40 ? n.type : `"${n.raw}"`): Compiled => ({
    ok: false,
    what,
    at: n.position,
  });
  const v = node.value as Record<string, Node> & { method?: string; parameters?: Node[] };
  switch (node.type) {
    case "BoolParenExpression":
    case "ParenExpression":
    case "CommonExpression":
      return compile(node.value as Node, field);
    case "AndExpression":
    case "OrExpression": {
      const left = compile(v.left!, field);
      if (!left.ok) return left;
      const right = compile(v.right!, field);
      if (!right.ok) return right;
      return node.type === "AndExpression"
        ? { ok: true, test: (i) => left.test(i) && right.test(i) }
        : { ok: true, test: (i) => left.test(i) || right.test(i) };
    }
    case "NotExpression": {
      const inner = compile(node.value as Node, field);
      return inner.ok ? { ok: true, test: (i) => !inner.test(i) } : inner;
    }
    case "EqualsExpression":
    case "NotEqualsExpression": {
      const l = operand(v.left!, field);
      const r = operand(v.right!, field);
      if ("bad" in l) return unsupported(l.bad);
      if ("bad" in r) return unsupported(r.bad);
      const read = (o: Operand, i: Record<string, unknown>) => (o.kind === "field" ? (i[o.name] ?? null) : o.value);
      const eq = (i: Record<string, unknown>) => read(l, i) === read(r, i);
      return { ok: true, test: node.type === "EqualsExpression" ? eq : (i) => !eq(i) };
    }
    case "MethodCallExpression": {
      const [first, second] = v.parameters ?? [];
      if ((v.method !== "startswith" && v.method !== "contains") || !first || !second || v.parameters!.length !== 2) {
        return unsupported(node, `the function ${v.method}`);
      }
      const subject = operand(first, field);
      const needle = operand(second, field);
      if ("bad" in subject) return unsupported(subject.bad);
      if ("bad" in needle) return unsupported(needle.bad);
      if (subject.kind !== "field" || needle.kind !== "literal" || needle.value === null) {
        return unsupported(node, `${v.method} other than ${v.method}(<field>, '<text>')`);
      }
      const name = subject.name;
      const text = needle.value;
      return v.method === "startswith"
        ? { ok: true, test: (i) => typeof i[name] === "string" && (i[name] as string).startsWith(text) }
        : { ok: true, test: (i) => typeof i[name] === "string" && (i[name] as string).includes(text) };
    }
    default:
      return unsupported(node);
  }
}

/** A field of the info object or a string or null literal; anything else is unsupported. */
function operand(n: Node, field: (name: string) => string | undefined): Operand | { bad: Node } {
  if (n.type === "Literal") {
    if (n.value === "null") return { kind: "literal", value: null };
    if (n.value === "Edm.String") return { kind: "literal", value: literalValue(n.raw) };
    return { bad: n };
  }
  if (n.type === "FirstMemberExpression" || n.type === "MemberExpression" || n.type === "PropertyPathExpression") {
    const name = /^[A-Za-z_][A-Za-z0-9_]*$/.test(n.raw) ? field(n.raw) : undefined;
    return name ? { kind: "field", name } : { bad: n };
  }
  return { bad: n };
}
