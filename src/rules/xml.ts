// The description-level reading of an XML answer: its root and its top-level
// fields' names and values, nothing of our mapping (the description does not
// show the XML's structure). The suite's checks and the rules read XML this way.
import type { XMLParser } from "fast-xml-parser";
import { fastXml } from "../contract/xml.ts";

let loose: XMLParser | undefined;
const looseParser = (): XMLParser =>
  (loose ??= new (fastXml().XMLParser)({
    ignoreAttributes: false,
    attributeNamePrefix: "@_",
    removeNSPrefix: true,
    parseTagValue: false,
    trimValues: false,
    processEntities: true,
  }));

export interface LooseXml {
  root: string;
  /** Top-level child elements: text, null (i:nil or empty), or nested content. */
  fields: Record<string, unknown>;
}

/** Reads an XML answer without any assumption about its mapping. */
export function readXml(text: string): LooseXml {
  const valid = fastXml().XMLValidator.validate(text);
  if (valid !== true) throw new Error(`XML is not well-formed: ${valid.err.msg} (line ${valid.err.line})`);
  const doc = looseParser().parse(text) as Record<string, unknown>;
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
