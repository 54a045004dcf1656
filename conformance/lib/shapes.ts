// Shape checks against the contract's schemas, and the description-level
// reading of XML (field names and values, nothing of our mapping).
import { XMLParser, XMLValidator } from "fast-xml-parser";
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

const loose = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@_",
  removeNSPrefix: true,
  parseTagValue: false,
  trimValues: false,
  processEntities: true,
});

export interface LooseXml {
  root: string;
  /** Top-level child elements: text, null (i:nil or empty), or nested content. */
  fields: Record<string, unknown>;
}

/** Reads an XML answer without any assumption about its mapping. */
export function readXml(text: string): LooseXml {
  const valid = XMLValidator.validate(text);
  if (valid !== true) throw new Error(`XML is not well-formed: ${valid.err.msg} (line ${valid.err.line})`);
  const doc = loose.parse(text) as Record<string, unknown>;
  const root = Object.keys(doc).find((k) => !k.startsWith("?"));
  if (!root) throw new Error("XML has no root element");
  const content = doc[root];
  const fields: Record<string, unknown> = {};
  if (typeof content === "object" && content !== null) {
    for (const [k, v] of Object.entries(content)) {
      if (k.startsWith("@_") || k === "#text") continue;
      const nil = typeof v === "object" && v !== null && (v as Record<string, unknown>)["@_nil"] === "true";
      fields[k] = nil || v === "" ? null : v;
    }
  }
  return { root, fields };
}

/** The text an XML element would carry for a JSON scalar. */
export const xmlText = (v: unknown) =>
  v === null || v === undefined ? null : typeof v === "number" ? String(v) : typeof v === "boolean" ? String(v) : v;
