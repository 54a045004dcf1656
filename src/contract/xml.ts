// The one mapping between a JSON value and its XML form (A-XML-MAPPING),
// driven by the contract's schemas: element names from `xml.name` or the
// property name, child order from `properties`, value types from `type`.
import { createRequire } from "node:module";
import type { X2jOptions, XMLParser } from "fast-xml-parser";
import type { JsonSchema, OpenApiDocument, Problem } from "./contract.ts";
import { lostDigits, readsExactly } from "./numbers.ts";

let fxp: typeof import("fast-xml-parser") | undefined;
/**
 * fast-xml-parser, loaded the first time XML is read: a mock, a worker of the suite or the proxy
 * that never reads an XML body does not load it. Its CommonJS build, one file: the ECMAScript
 * modules' build is some twenty, and importing them cost about 50 ms of every mock's start.
 */
export function fastXml(): typeof import("fast-xml-parser") {
  fxp ??= createRequire(import.meta.url)("fast-xml-parser") as typeof import("fast-xml-parser");
  return fxp;
}

export const XSI_NS = "http://www.w3.org/2001/XMLSchema-instance";

/** An XML body that could not be read; `message` says where and why. */
export class XmlError extends Error {
  override name = "XmlError";
}

type Schema = JsonSchema & {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  additionalProperties?: Schema | boolean;
  xml?: { name?: string; wrapped?: boolean };
};

export class XmlMapping {
  constructor(private readonly doc: OpenApiDocument) {}

  #resolve(schema: Schema): Schema {
    let s = schema;
    for (let depth = 0; s.$ref && depth < 20; depth++) {
      const name = s.$ref.replace("#/components/schemas/", "");
      const target = this.doc.components.schemas[name] as Schema | undefined;
      if (!target) throw new Error(`xml: unresolvable $ref ${s.$ref}`);
      const { $ref: _ignored, ...siblings } = s;
      s = { ...target, ...siblings };
    }
    return s;
  }

  #named(name: string): Schema {
    const s = this.doc.components.schemas[name] as Schema | undefined;
    if (!s) throw new Error(`xml: no schema named ${name}`);
    return s;
  }

  /** The root element name of a named schema. */
  rootName(schemaName: string): string {
    return this.#named(schemaName).xml?.name ?? schemaName;
  }

  /** Writes `value` as an XML document shaped by the named schema. */
  stringify(schemaName: string, value: unknown): string {
    const root = this.rootName(schemaName);
    const body = this.#element(root, this.#named(schemaName), value, true);
    return `<?xml version="1.0" encoding="utf-8"?>\n${body}`;
  }

  #element(name: string, schema: Schema, value: unknown, isRoot = false): string {
    const s = this.#resolve(schema);
    const ns = isRoot ? ` xmlns:i="${XSI_NS}"` : "";
    if (value === null || value === undefined) return `<${name}${ns} i:nil="true"/>`;
    if (Array.isArray(value)) {
      const itemSchema = s.items ?? {};
      const itemName = this.#itemName(itemSchema);
      return `<${name}${ns}>${value.map((v) => this.#element(itemName, itemSchema, v)).join("")}</${name}>`;
    }
    if (typeof value === "object") {
      const obj = value as Record<string, unknown>;
      const props = s.properties ?? {};
      const extra = typeof s.additionalProperties === "object" ? s.additionalProperties : {};
      // Declared properties in contract order first, then any others in their own order.
      const keys = [...Object.keys(props).filter((k) => k in obj), ...Object.keys(obj).filter((k) => !(k in props))];
      const children = keys.map((k) => this.#element(safeName(k), props[k] ?? extra, obj[k])).join("");
      return `<${name}${ns}>${children}</${name}>`;
    }
    return `<${name}${ns}>${escapeText(String(value))}</${name}>`;
  }

  #itemName(itemSchema: Schema): string {
    if (itemSchema.xml?.name) return itemSchema.xml.name;
    if (itemSchema.$ref) return this.#resolve(itemSchema).xml?.name ?? itemSchema.$ref.split("/").pop()!;
    const t = [itemSchema.type].flat()[0];
    return typeof t === "string" ? t : "item";
  }

  /**
   * Reads an XML document into the JSON value the named schema describes.
   * Text is converted to the schema's types where it can be; where it can
   * not, the text is kept so that schema validation names the field.
   * A DTD is refused, so no entity is ever expanded or fetched. A number 64 bits do not keep as
   * written is read all the same, and its problem added to `lost` when given (numbers.ts).
   */
  parse(schemaName: string, xml: string, lost?: Problem[]): unknown {
    if (/<!DOCTYPE|<!ENTITY/i.test(xml)) {
      throw new XmlError("XML with a document type declaration (DTD) is not accepted");
    }
    boundAttributes(xml);
    const valid = fastXml().XMLValidator.validate(xml);
    if (valid !== true) {
      throw new XmlError(`XML is not well-formed: ${valid.err.msg} (line ${valid.err.line}, column ${valid.err.col})`);
    }
    // Made outside the try: a parser that can not be made is our bug, not the client's XML.
    const parser = strictParser();
    let tree: Node[];
    try {
      tree = parser.parse(xml) as Node[];
    } catch (err) {
      // The parser's own limit (MAX_XML_DEPTH) and anything else it refuses: the client's XML, not our bug.
      throw new XmlError(`XML could not be read: ${(err as Error).message}`);
    }
    const elements = tree.filter(isElement);
    const root = elements[0];
    if (!root || elements.length !== 1) throw new XmlError("XML must have exactly one root element");
    const want = this.rootName(schemaName);
    const got = elementName(root);
    if (got !== want) throw new XmlError(`XML root element must be <${want}>, not <${got}>`);
    return this.#value(root, this.#named(schemaName), "", lost);
  }

  #untyped(node: Node): unknown {
    const children = (node[elementName(node)] ?? []) as Node[];
    const elements = children.filter(isElement);
    if (elements.length === 0) {
      return textOf(children);
    }
    return Object.fromEntries(elements.map((c) => [elementName(c), this.#untyped(c)]));
  }

  /** The value of `node`, which sits at `path` (`Addresses.0.City`, as a Problem names a field). */
  #value(node: Node, schema: Schema, path: string, lost: Problem[] | undefined): unknown {
    const s = this.#resolve(schema);
    const attrs = (node[":@"] ?? {}) as Record<string, string>;
    const children = (node[elementName(node)] ?? []) as Node[];
    if (attrs["@_nil"] === "true") {
      // Null and a value at once: either would be a value silently lost (prefixes are not read,
      // so a nil of any namespace is taken as the schema instance's).
      if (children.some((c) => isElement(c) || textOf([c]).trim() !== ""))
        throw new XmlError(`<${elementName(node)}> is nil and holds a value; send one of the two`);
      return null;
    }
    const types = [s.type].flat().filter((t): t is string => typeof t === "string");
    if (types.includes("array") || types.includes("object") || s.properties) {
      // Text where a list's or an object's elements belong is a value no member takes, which reading
      // only the elements would lose: alone, it is kept, so that schema validation names the field
      // (not a list, not an object, as a JSON string there is); beside elements, it is refused.
      const stray = textOf(children.filter((c) => !isElement(c)));
      if (!XML_WHITESPACE.test(stray)) {
        if (!children.some(isElement)) return stray;
        throw new XmlError(
          `<${elementName(node)}> holds the text ${JSON.stringify(stray.trim().slice(0, 40))} beside its elements; send the elements alone`,
        );
      }
    }
    if (types.includes("array")) {
      const items = s.items ?? {};
      return children.filter(isElement).map((c, i) => this.#value(c, items, pathTo(path, String(i)), lost));
    }
    if (types.includes("object") || s.properties) {
      const out: Record<string, unknown> = {};
      const props = s.properties ?? {};
      const extra = typeof s.additionalProperties === "object" ? s.additionalProperties : undefined;
      for (const child of children.filter(isElement)) {
        const key = elementName(child);
        // DataContractSerializer reads each member once; a second would be a value silently lost.
        if (Object.hasOwn(out, key))
          throw new XmlError(`<${key}> is given twice in <${elementName(node)}>; give it once`);
        const propSchema = props[key] ?? extra;
        // A-UNKNOWN-PROPERTIES: elements the contract does not name are read untyped, for
        // whoever binds the value to tell which were ignored.
        out[key] = propSchema ? this.#value(child, propSchema, pathTo(path, key), lost) : this.#untyped(child);
      }
      return out;
    }
    const inner = children.find(isElement);
    if (inner) {
      // Its text around the element would be kept and the element lost: refused, naming both.
      throw new XmlError(`<${elementName(node)}> holds a value, not the element <${elementName(inner)}> inside it`);
    }
    const text = textOf(children);
    // xs:boolean, as XmlConvert reads it: true, false, 1 or 0, white space around it allowed (1 and 0
    // of a property that may also be a number are numbers).
    const bare = text.replace(XML_SPACE_AROUND, "");
    const numeric = types.includes("integer") || types.includes("number");
    const truth = types.includes("boolean") && !(numeric && /^[01]$/.test(bare)) ? XS_BOOLEAN.get(bare) : undefined;
    if (truth !== undefined) return truth;
    const number = text.trim();
    if ((types.includes("integer") || types.includes("number")) && /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(number)) {
      const value = Number(number);
      if (lost && !readsExactly(number, value)) lost.push(lostDigits(path, number, value));
      return value;
    }
    return text;
  }
}

type Node = Record<string, unknown> & { ":@"?: Record<string, string> };

const pathTo = (path: string, name: string) => (path ? `${path}.${name}` : name);

/** Text that is only XML's white space (space, tab, CR, LF; not JavaScript's wider set, U+00A0 among it). */
const XML_WHITESPACE = /^[ \t\r\n]*$/;
const XML_SPACE_AROUND = /^[ \t\r\n]+|[ \t\r\n]+$/g;
const XS_BOOLEAN: ReadonlyMap<string, boolean> = new Map([
  ["true", true],
  ["false", false],
  ["1", true],
  ["0", false],
]);

/** Elements nested deeper than this are refused; JSON bodies have the same limit (A-LIMITS). */
export const MAX_XML_DEPTH = 10;
/** Attributes of one element: DataContract XML writes a few (`xmlns`, `xmlns:i`, `i:nil`, `i:type`). */
export const MAX_XML_ATTRIBUTES = 32;

/**
 * Refuses an element with more than MAX_XML_ATTRIBUTES attributes before anything parses the
 * document: 60,000 of them cost the parsers 0.6 s. One pass: in a tag, each `=` outside a quoted
 * value is an attribute's.
 */
function boundAttributes(xml: string): void {
  for (let i = xml.indexOf("<"); i !== -1; i = xml.indexOf("<", i + 1)) {
    const first = xml[i + 1];
    if (first === "/" || first === "!" || first === "?") continue;
    let attributes = 0;
    let quote = "";
    let j = i + 1;
    for (; j < xml.length; j++) {
      const c = xml[j];
      if (quote) {
        if (c === quote) quote = "";
      } else if (c === '"' || c === "'") quote = c;
      else if (c === ">") break;
      else if (c === "=" && ++attributes > MAX_XML_ATTRIBUTES) {
        const name = /^[^\s/>]{1,100}/.exec(xml.slice(i + 1, i + 101))?.[0] ?? "";
        throw new XmlError(
          `XML element <${name}> has more than ${MAX_XML_ATTRIBUTES} attributes, the most one element may have (A-LIMITS)`,
        );
      }
    }
    i = j;
  }
}

const PREDEFINED: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

/** Whether a code point is a character XML 1.0 can carry (its production Char). */
export const isXmlChar = (cp: number) =>
  cp === 0x9 ||
  cp === 0xa ||
  cp === 0xd ||
  (cp >= 0x20 && cp <= 0xd7ff) ||
  (cp >= 0xe000 && cp <= 0xfffd) ||
  (cp >= 0x10000 && cp <= 0x10ffff);

/**
 * Decodes XML's five predefined entities and character references; an
 * entity the document does not define (there is no DTD, so every other
 * one) and a reference to a character XML 1.0 can not carry are refused.
 */
export function decodeEntities(text: string): string {
  if (!text.includes("&")) return text;
  return text.replace(/&([^;&\s]*);?/g, (whole, name: string) => {
    if (!whole.endsWith(";"))
      throw new XmlError(`XML text has an & that starts no entity: ${JSON.stringify(whole.slice(0, 20))}`);
    const predefined = PREDEFINED[name];
    if (predefined !== undefined) return predefined;
    const ref = /^#(?:x([0-9a-fA-F]{1,6})|([0-9]{1,7}))$/.exec(name);
    if (!ref)
      throw new XmlError(
        `XML refers to the entity &${name.slice(0, 40)}; which is not defined (only &amp; &lt; &gt; &quot; &apos; and character references are)`,
      );
    const cp = ref[1] !== undefined ? Number.parseInt(ref[1], 16) : Number(ref[2]);
    if (!isXmlChar(cp)) throw new XmlError(`XML character reference ${whole} is not a character XML 1.0 allows`);
    return String.fromCodePoint(cp);
  });
}

const CDATA = "#cdata";
let strict: XMLParser | undefined;
const strictParser = (): XMLParser => (strict ??= new (fastXml().XMLParser)(STRICT_OPTIONS));
const STRICT_OPTIONS: X2jOptions = {
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: "@_",
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  // Entities are decoded by decodeEntities(), which knows XML's five and character
  // references and refuses everything else (the parser would keep &foo; as text).
  processEntities: false,
  // CDATA sections apart from text: their content is not entity-decoded (textOf()).
  cdataPropName: CDATA,
  maxNestedTags: MAX_XML_DEPTH,
  ignoreDeclaration: true,
  ignorePiTags: true,
};

const elementName = (n: Node) =>
  Object.keys(n).find((k) => k !== ":@" && k !== "#text" && k !== "#comment" && k !== CDATA)!;

/**
 * The text of an element's children: its text with entities decoded, and its CDATA sections as
 * they are (`<![CDATA[a&amp;b]]>` is the five characters a&amp;b, and `x<y&z` in one is text).
 */
function textOf(children: Node[]): string {
  let text = "";
  for (const c of children) {
    if (typeof c["#text"] === "string") text += decodeEntities(c["#text"]);
    else if (Array.isArray(c[CDATA])) for (const part of c[CDATA] as Node[]) text += String(part["#text"] ?? "");
  }
  return text;
}
const isElement = (n: Node) => elementName(n) !== undefined && !("#text" in n);

// A carriage return is written as a reference: a parser would turn a raw one into a line feed.
const escapeText = (s: string) =>
  s.replace(
    /[&<>"'\r]/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;", "\r": "&#13;" })[c]!,
  );

// Field paths such as "customer.Addresses.0.City" are valid element names; anything
// else is made one by replacing the characters XML does not allow.
const safeName = (k: string) => (/^[A-Za-z_][\w.-]*$/.test(k) ? k : `_${k.replace(/[^\w.-]/g, "_")}`);
