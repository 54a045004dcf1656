// Content negotiation (A-MEDIA-TYPES) and the encoding of answers and errors.

import { isAscii, isUtf8 } from "node:buffer";
import {
  type CompiledContract,
  isNumberPart,
  jsonMayLoseDigits,
  lostDigits,
  type Operation,
  type Problem,
  readsExactly,
  XmlError,
} from "../../contract/index.ts";
import { propertiesOf, typesOf } from "../../rules/bodies.ts";
import type { AnswerCode } from "./answer-codes.ts";
import { type AnswerMeta, type Encoded, encodedOf, type MockResponse, mediaTypeOf } from "./http.ts";
import { MAX_BODY_DEPTH } from "./limits.ts";
import type { Rules } from "./rules.ts";

export interface Format {
  kind: "json" | "xml";
  mediaType: "application/json" | "application/xml" | "text/xml";
  /** The Content-Type header of an answer in this format, made once. */
  contentType: string;
}

const format = (kind: Format["kind"], mediaType: Format["mediaType"]): Format => ({
  kind,
  mediaType,
  contentType: `${mediaType}; charset=utf-8`,
});
export const JSON_FORMAT: Format = format("json", "application/json");
export const XML_FORMAT: Format = format("xml", "application/xml");
// A map, not an object literal: a media type named __proto__ or constructor is no format.
const KNOWN = new Map<string, Format>([
  ["application/json", JSON_FORMAT],
  ["application/xml", XML_FORMAT],
  ["text/xml", format("xml", "text/xml")],
]);

// Clients send the same few Accept headers again and again: each is read once.
const negotiated = new Map<string, Format>();

/** The format of the answer: the best-rated of JSON and XML in `Accept`, else JSON. */
export function answerFormat(accept: string | undefined): Format {
  if (!accept) return JSON_FORMAT;
  const known = negotiated.get(accept);
  if (known) return known;
  const f = negotiate(accept);
  // Bounded: a client that sends a new Accept every time makes us read it every time, nothing more.
  if (negotiated.size >= 100) negotiated.clear();
  negotiated.set(accept, f);
  return f;
}

function negotiate(accept: string): Format {
  let best: Format | undefined;
  let bestQ = 0;
  for (const part of accept.split(",")) {
    const [range = "", ...params] = part.split(";").map((s) => s.trim().toLowerCase());
    const qParam = params.find((p) => p.startsWith("q="));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    if (!(q > 0)) continue;
    const format =
      KNOWN.get(range) ??
      (range === "*/*" || range === "application/*"
        ? JSON_FORMAT
        : range === "text/*"
          ? KNOWN.get("text/xml")
          : undefined);
    if (format && q > bestQ) {
      best = format;
      bestQ = q;
    }
  }
  return best ?? JSON_FORMAT;
}

/** The format of a request body, or undefined when its Content-Type is neither JSON nor XML. */
export function bodyFormat(contentType: string | undefined): Format | undefined {
  const type = mediaTypeOf(contentType);
  return type ? KNOWN.get(type) : undefined;
}

/**
 * What encoding an answer needs: the contract, the rules (JSON names) and the negotiated
 * format; for errors, the operation whose ModelState names its fields.
 */
export interface Answering {
  ctx: {
    contract: CompiledContract;
    rules: Pick<Rules, "jsonNames" | "xmlReadsBooleans" | "xmlRefusesUnreadableText">;
  };
  format: Format;
  operation?: Pick<Operation, "collection" | "idParam"> | undefined;
}

// Stored objects are never changed in place (PUT stores a new object), so
// their encoded forms can be kept with them.
const encoded = new WeakMap<object, Map<string, Encoded>>();

export function encode(
  contract: CompiledContract,
  format: Format,
  schemaName: string,
  value: unknown,
  names: Rules["jsonNames"] = "pascal",
): string {
  return format.kind === "xml"
    ? contract.xml.stringify(schemaName, value)
    : JSON.stringify(names === "camel" ? camelCase(value) : value);
}

/**
 * A stored object's encoding, text and bytes, kept with it: each read of it sends the bytes as
 * they are. A text is joined to the headers and encoded again for every answer (node:http does so
 * with a string body): GET Customer/{id} as npm start runs it, 21.5–23.5 → 20.0–21.0 µs CPU an
 * answer (alternating rounds of the builds before and after, two runs). What is kept of an object
 * read doubles: a customer's text and bytes are about 2 KB each.
 */
export function encodeKept(
  contract: CompiledContract,
  format: Format,
  schemaName: string,
  value: object,
  names: Rules["jsonNames"] = "pascal",
): Encoded {
  const key = `${format.kind}:${schemaName}:${names}`;
  const cached = encoded.get(value);
  const hit = cached?.get(key);
  if (hit !== undefined) return hit;
  const kept = encodedOf(encode(contract, format, schemaName, value, names));
  if (cached) cached.set(key, kept);
  else encoded.set(value, new Map([[key, kept]]));
  return kept;
}

/**
 * Property names as Json.NET's camelCase resolver writes them (`CustomerId` →
 * `customerId`); the keys of ModelState are field paths, not properties, and stay.
 */
export function camelCase(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(camelCase);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      `${k.charAt(0).toLowerCase()}${k.slice(1)}`,
      k === "ModelState" ? v : camelCase(v),
    ]),
  );
}

export function answer(
  a: Answering,
  status: number,
  schemaName: string,
  value: unknown,
  headers?: Record<string, string>,
  meta: AnswerMeta = {},
  options: { keep?: boolean } = {},
): MockResponse {
  const h = headers ? { "content-type": a.format.contentType, ...headers } : { "content-type": a.format.contentType };
  // The meta the caller made is this answer's own: filled in, not copied.
  meta.value = value;
  meta.schema = schemaName;
  meta.format = a.format;
  if (options.keep && typeof value === "object" && value !== null) {
    const kept = encodeKept(a.ctx.contract, a.format, schemaName, value, a.ctx.rules.jsonNames);
    return { status, headers: h, body: kept.text, encoded: kept, meta };
  }
  return {
    status,
    headers: h,
    body: encode(a.ctx.contract, a.format, schemaName, value, a.ctx.rules.jsonNames),
    meta,
  };
}

/** An error answer in the ASP.NET shape (A-ERROR-BODY), naming each refused field. */
export function problem(
  a: Answering,
  status: number,
  message: string,
  problems: Problem[] = [],
  headers: Record<string, string> = {},
  meta: AnswerMeta = {},
): MockResponse {
  const body: { Message: string; ModelState?: Record<string, string[]> } = { Message: message };
  if (problems.length > 0) {
    body.ModelState = {};
    // ASP.NET names the action's parameter: `customer.Name` for a customer's body.
    const model = a.operation?.collection.modelName ?? "request";
    for (const p of problems) {
      const key = p.field ? `${model}.${p.field}` : model;
      const messages = body.ModelState[key] ?? [];
      messages.push(p.field ? `${p.field} ${p.message}` : p.message);
      body.ModelState[key] = messages;
    }
  }
  const detail = problems.map((p) => `${p.field} ${p.message}`.trim()).join("; ");
  meta.problem = detail ? `${message} ${detail}` : message;
  return answer(a, status, "Error", body, headers, meta);
}

/**
 * A decoded body, or the error answer. `plain`: the JSON text holds no character XML 1.0 can not
 * carry, written or escaped, so no string in the value does (the check of each is then skipped).
 */
export type Decoded =
  | {
      ok: true;
      value: unknown;
      plain: boolean;
      /** Numbers the body gave that 64 bits do not keep as written, each naming its path (numbers.ts). */
      lost: readonly Problem[];
    }
  | { ok: false; response: MockResponse };

const NONE_LOST: readonly Problem[] = Object.freeze([]);

/** Characters XML 1.0 certainly carries (BMP, no surrogate, no control character but tab and newlines). */
export const PLAIN_XML_TEXT = /^[\t\n\r\u0020-\uD7FF\uE000-\uFFFD]*$/;
/** PLAIN_XML_TEXT without the backslash: JSON text whose every string is plain XML text. */
const PLAIN_JSON_TEXT = /^[\t\n\r\u0020-\u005B\u005D-\uD7FF\uE000-\uFFFD]*$/;

/** Reads a JSON or XML request body into the value of the named schema, or an error answer. */
export function decodeBody(
  a: Answering,
  contentType: string | undefined,
  body: Buffer | undefined,
  schemaName: string,
): Decoded {
  const { contract } = a.ctx;
  const fail = (status: number, message: string, code: AnswerCode = "body.invalid"): Decoded => ({
    ok: false,
    response: problem(a, status, message, [], {}, { code }),
  });
  if (!body || body.length === 0) {
    return fail(400, "The request body is missing: send the object with all of its properties.", "body.missing");
  }
  const format = bodyFormat(contentType);
  if (!format) {
    const got = mediaTypeOf(contentType) ?? "none";
    return fail(
      415,
      `The Content-Type ${got} is not supported: send application/json, application/xml or text/xml.`,
      "body.unsupported-media-type",
    );
  }
  const text = bodyText(contentType, body);
  if (!text.ok)
    return fail(text.status, text.message, text.status === 415 ? "body.unsupported-charset" : "body.invalid");
  const kind = format.kind === "json" ? "JSON" : "XML";
  let value: unknown;
  let plain = false;
  let escaped = false;
  let lost = NONE_LOST;
  try {
    if (format.kind === "json") {
      value = JSON.parse(text.text);
      if (jsonMayLoseDigits(text.text)) lost = numbersLost(text.text);
      // Escapes (\u0001, \b, \f) write characters the text itself does not show: a text with a
      // backslash is checked string by string. JSON.parse refuses a raw control character in a
      // string, so ASCII text with no backslash holds only characters XML carries.
      escaped = text.text.includes("\\");
      plain = text.ascii ? !escaped : PLAIN_JSON_TEXT.test(text.text);
    } else {
      const declared = otherEncoding(text.text);
      if (declared !== undefined) return fail(415, declared, "body.unsupported-charset");
      const found: Problem[] = [];
      value = contract.xml.parse(schemaName, text.text, found);
      if (found.length > 0) lost = found;
      if (!a.ctx.rules.xmlReadsBooleans && typeof value === "object" && value !== null) {
        // The fault xml-booleans-ignored: an XML body's true/false elements are dropped, as if absent.
        value = Object.fromEntries(Object.entries(value).filter(([, v]) => typeof v !== "boolean"));
      }
      if (!a.ctx.rules.xmlRefusesUnreadableText && typeof value === "object" && value !== null) {
        // The fault xml-unreadable-text-dropped: text the reader kept because its property's type can
        // not read it (a number, a truth value, a list) is dropped, as if absent.
        const props = propertiesOf(contract, schemaName);
        value = Object.fromEntries(
          Object.entries(value).filter(
            ([k, v]) => typeof v !== "string" || props[k] === undefined || typesOf(props[k]).includes("string"),
          ),
        );
      }
    }
  } catch (err) {
    const reason = err instanceof XmlError || err instanceof SyntaxError ? err.message : String(err);
    return fail(400, `The request body is not valid ${kind}: ${reason}`, "body.malformed");
  }
  walked = 0;
  const depth = depthOf(value, MAX_BODY_DEPTH);
  if (depth > MAX_BODY_DEPTH) {
    return fail(
      400,
      `The request body is nested more than ${MAX_BODY_DEPTH} levels deep, the most this service reads (A-LIMITS).`,
    );
  }
  if (format.kind === "json") {
    // JSON.parse keeps the last of a name given twice in one object: the first value would be lost.
    const twice = givenTwice(text.text, value, escaped);
    if (twice !== undefined) {
      return fail(400, `The request body gives the property ${twice} twice; give each property once.`);
    }
  }
  return { ok: true, value, plain, lost };
}

/**
 * The first property a JSON text gives twice in one object, as a path (`Addresses.0.City`), or
 * undefined. Every body is asked, so first a count: outside its strings a JSON text has one colon
 * per property it gives; inside them, as many as their values hold when no escape writes one
 * (`escaped`: the text has a backslash). The parsed value has one property fewer, and its strings
 * no more colons, for each name given twice: depthOf() counts them on its way (`walked`; colons in
 * names are not counted, so such a rare text is read as below). Only when the counts
 * differ, or could hide a difference behind an escape, is the text read property by property.
 */
function givenTwice(text: string, value: unknown, escaped: boolean): string | undefined {
  const colons = typeof value === "string" ? colonsIn(value) : walked;
  if (!escaped && colonsIn(text) === colons) return undefined;
  return firstRepeated(text);
}

/** The property a JSON text JSON.parse read as `value` gives twice, as decodeBody() finds it. */
export function propertyGivenTwice(text: string, value: unknown): string | undefined {
  walked = 0;
  depthOf(value, Number.POSITIVE_INFINITY);
  return givenTwice(text, value, text.includes("\\"));
}

function colonsIn(s: string): number {
  let n = 0;
  for (let i = s.indexOf(":"); i !== -1; i = s.indexOf(":", i + 1)) n++;
  return n;
}

/** The first name given twice in one object of a JSON text JSON.parse read, as a path. */
function firstRepeated(text: string): string | undefined {
  return walkJson(text, { name: (repeated) => repeated });
}

/** The numbers of a JSON text JSON.parse read that 64 bits do not keep as written, each a problem naming its path. */
function numbersLost(text: string): Problem[] {
  const lost: Problem[] = [];
  walkJson(text, {
    number: (path, token) => {
      const value = Number(token);
      if (!readsExactly(token, value)) lost.push(lostDigits(path, token, value));
    },
  });
  return lost;
}

/**
 * Walks a JSON text JSON.parse read: `on.name` is called with each property name (whether its
 * object gave it before), `on.number` with each number and its path (`Addresses.0.City`, as a
 * Problem names a field). The walk stops at the first name `on.name` returns true for, and returns
 * that name's path.
 */
function walkJson(
  text: string,
  on: { name?: (repeated: boolean) => boolean; number?: (path: string, token: string) => void },
): string | undefined {
  // One frame per open object or array: an object's names so far and the one being read, an
  // array's index; each frame's path is where it sits.
  const frames: Array<{ names: Set<string> | undefined; name: string; index: number; path: string }> = [];
  const inner = (name: string) => {
    const top = frames.at(-1);
    return top?.path ? `${top.path}.${name}` : name;
  };
  const here = () => {
    const top = frames.at(-1);
    return top === undefined ? "" : inner(top.names ? top.name : String(top.index));
  };
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      let end = i + 1;
      while (text.charCodeAt(end) !== 0x22) end += text.charCodeAt(end) === 0x5c ? 2 : 1;
      const top = frames.at(-1);
      let next = end + 1;
      while (next < text.length && " \t\n\r".includes(text[next]!)) next++;
      if (top?.names && text.charCodeAt(next) === 0x3a) {
        const name = JSON.parse(text.slice(i, end + 1)) as string;
        if (on.name?.(top.names.has(name))) return inner(name);
        top.names.add(name);
        top.name = name;
      }
      i = end;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      // A number: digits, sign, dot and exponent up to what ends it (JSON.parse read it as valid).
      let end = i + 1;
      while (end < text.length && isNumberPart(text.charCodeAt(end))) end++;
      on.number?.(here(), text.slice(i, end));
      i = end - 1;
    } else if (c === 0x7b || c === 0x5b) {
      frames.push({ names: c === 0x7b ? new Set() : undefined, name: "", index: 0, path: here() });
    } else if (c === 0x7d || c === 0x5d) {
      frames.pop();
    } else if (c === 0x2c) {
      const top = frames.at(-1);
      if (top && !top.names) top.index++;
    }
  }
  return undefined;
}

/**
 * The text of a body: UTF-8 only (A-MEDIA-TYPES). A UTF-8 byte order mark is
 * dropped in JSON and XML alike; another charset or UTF-16 is 415, bytes that
 * are not UTF-8 are 400 naming where.
 */
function bodyText(
  contentType: string | undefined,
  body: Buffer,
): { ok: true; text: string; ascii: boolean } | { ok: false; status: number; message: string } {
  const charset = /;\s*charset\s*=\s*"?([^";\s]*)/i.exec(contentType ?? "")?.[1];
  if (charset !== undefined && !/^utf-?8$/i.test(charset)) {
    return {
      ok: false,
      status: 415,
      message: `The charset ${charset.slice(0, 40)} is not supported: send UTF-8 (charset=utf-8).`,
    };
  }
  // Most bodies are ASCII, checked at memory speed: valid UTF-8 with no byte order mark, read as Latin-1.
  if (isAscii(body)) return { ok: true, text: body.toString("latin1"), ascii: true };
  if ((body[0] === 0xfe && body[1] === 0xff) || (body[0] === 0xff && body[1] === 0xfe)) {
    return {
      ok: false,
      status: 415,
      message: "The body is UTF-16 (it starts with a UTF-16 byte order mark): send UTF-8.",
    };
  }
  if (!isUtf8(body)) {
    // An XML document in another encoding (ISO-8859-1, windows-1252) says so in its declaration,
    // which is ASCII in every one of them: that, not the first byte UTF-8 can not read, is the problem.
    const declared = otherEncoding(body.toString("latin1", 0, 256));
    if (declared !== undefined) return { ok: false, status: 415, message: declared };
    return { ok: false, status: 400, message: `The request body is not valid UTF-8 (byte ${firstInvalidUtf8(body)}).` };
  }
  const bom = body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? 3 : 0;
  return { ok: true, text: body.toString("utf8", bom), ascii: false };
}

/** The message for an XML declaration that names an encoding other than UTF-8, else undefined. */
function otherEncoding(text: string): string | undefined {
  const declared = /^<\?xml[^>]*\sencoding\s*=\s*["']([^"']*)["']/.exec(text)?.[1];
  if (declared === undefined || /^utf-?8$/i.test(declared)) return undefined;
  return `The XML declaration names the encoding ${declared.slice(0, 40)}: send UTF-8 (encoding="utf-8").`;
}

/** Offset of the first byte that breaks UTF-8, for the error message. */
function firstInvalidUtf8(b: Buffer): number {
  for (let i = 0; i < b.length; ) {
    const c = b[i]!;
    const n = c < 0x80 ? 0 : c >= 0xc2 && c <= 0xdf ? 1 : c >= 0xe0 && c <= 0xef ? 2 : c >= 0xf0 && c <= 0xf4 ? 3 : -1;
    if (n < 0) return i;
    for (let k = 1; k <= n; k++) if (((b[i + k] ?? 0) & 0xc0) !== 0x80) return i;
    i += n + 1;
  }
  return b.length;
}

/**
 * Properties and colons in strings seen by the last depthOf() walk: what the value's JSON text
 * has of colons, names aside (see givenTwice()). A count kept beside the walk, so the walk that
 * every body takes makes it without a return value to allocate.
 */
let walked = 0;

/**
 * How deeply arrays and objects nest in a value; stops past `limit`, so the recursion is never
 * deeper than the limit however deep the value is (JSON.parse builds any depth). Counts into
 * `walked` on its way.
 */
function depthOf(value: unknown, limit: number, depth = 1): number {
  if (typeof value !== "object" || value === null) return 0;
  if (depth > limit) return depth;
  let deepest = depth;
  if (Array.isArray(value)) {
    for (const v of value) {
      if (typeof v === "string") {
        if (v.includes(":")) walked += colonsIn(v);
      } else if (typeof v === "object" && v !== null) {
        deepest = Math.max(deepest, depthOf(v, limit, depth + 1));
        if (deepest > limit) return deepest;
      }
    }
  } else {
    for (const k in value) {
      walked++;
      const v = (value as Record<string, unknown>)[k];
      if (typeof v === "string") {
        if (v.includes(":")) walked += colonsIn(v);
      } else if (typeof v === "object" && v !== null) {
        deepest = Math.max(deepest, depthOf(v, limit, depth + 1));
        if (deepest > limit) return deepest;
      }
    }
  }
  return deepest;
}
