// One request and its answer, in plain data, as bawa proxy saw them or the
// suite sent them: what the rules read. Violations name the requirement they
// break by its generated id, so a typo is a type error.
import crypto, { createHash } from "node:crypto";
import { Recent } from "../recent.ts";
import type { RequirementId } from "./generated/requirements.ts";
import { basicCredentials as readBasic } from "./oauth.ts";

export interface Exchange {
  method: string;
  /** Path and query as the client sent them. */
  url: string;
  /** Request header names in lower case. */
  requestHeaders: Readonly<Record<string, string | undefined>>;
  requestBody: Buffer | undefined;
  status: number;
  /** Answer header names in lower case; a repeated header (Set-Cookie) keeps every value. */
  headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  /** The answer's body, decoded from its Content-Encoding; undefined when it was too large to keep. */
  body: Buffer | undefined;
  /** When the answer arrived, on the proxy's clock (ms). */
  at: number;
}

/** One rule of the description (or of OAuth) that an exchange broke, as the suite names it. */
export interface Violation {
  /** The requirement's id in conformance/requirements.yaml (`TOKEN-RESPONSE`). */
  requirement: RequirementId;
  /** Where the value is: `status`, `header Cache-Control`, `body.expires_in`, `Location fragment token_type`. */
  where: string;
  expected: string;
  /** What was there instead; never a token, code, secret or password. */
  found?: string | undefined;
}

/** A header's single value (the first of a repeated one). */
export function header(ex: Pick<Exchange, "headers">, name: string): string | undefined {
  const v = ex.headers[name];
  return typeof v === "string" ? v : v?.[0];
}

export const mediaType = (contentType: string | undefined) => contentType?.split(";")[0]?.trim().toLowerCase() ?? "";

export const text = (body: Buffer | undefined) => body?.toString("utf8") ?? "";

/** A body read as JSON: its value, and the text it was read from (without a byte order mark). */
export interface ParsedJson {
  value: unknown;
  text: string;
}

/** The body as JSON, or undefined when it is not JSON. */
export function jsonOf(body: Buffer | undefined): ParsedJson | undefined {
  // Several steps (the judge's, the request's problem, the recording) read one body: it is parsed
  // once. Its value is shared, so no reader may change it.
  return body ? parsedBodies.of(body, parseJson) : undefined;
}
/**
 * A larger body is parsed for each reader, not kept: a slot holds its body and value until four
 * other bodies take it, however long a quiet proxy waits for them.
 */
const KEPT_BODY_BYTES = 1024 * 1024;
const keptBody = (body: Buffer) => body.length <= KEPT_BODY_BYTES;
const parsedBodies = new Recent<Buffer, ParsedJson | undefined>({ keeps: keptBody });

function parseJson(body: Buffer): ParsedJson | undefined {
  const read = body.toString("utf8");
  // A byte order mark is not JSON's; a body may start with one.
  const text = read.charCodeAt(0) === 0xfeff ? read.slice(1) : read;
  try {
    return { value: JSON.parse(text), text };
  } catch {
    return undefined;
  }
}

/** The query of a request target. */
export function queryOf(url: string): URLSearchParams {
  const q = url.indexOf("?");
  return new URLSearchParams(q < 0 ? "" : url.slice(q + 1));
}

/** A form body (`application/x-www-form-urlencoded`), single values; repeated names keep the first. */
export function formOf(ex: Pick<Exchange, "requestHeaders" | "requestBody">): Record<string, string> | undefined {
  if (mediaType(ex.requestHeaders["content-type"]) !== "application/x-www-form-urlencoded") return undefined;
  return forms.of(ex.requestBody ?? EMPTY, parseForm);
}
// A form is read once however many steps read it; its value is shared, so no reader may change it.
const forms = new Recent<Buffer, Record<string, string>>({ keeps: keptBody });
const EMPTY = Buffer.alloc(0);

function parseForm(body: Buffer): Record<string, string> {
  // No prototype: a parameter named __proto__ or constructor is a parameter like any other.
  const form = Object.create(null) as Record<string, string>;
  for (const [k, v] of new URLSearchParams(text(body))) if (!Object.hasOwn(form, k)) form[k] = v;
  return form;
}

/** Client credentials of an HTTP Basic header (RFC 6749 2.3.1), read as the mock reads them. */
export function basicCredentials(authorization: string | undefined): { id: string; secret: string } | undefined {
  const read = readBasic(authorization);
  return read === "malformed" ? undefined : read;
}

/** A fingerprint of a secret value (token, code, client secret): the proxy keeps these, never the values. */
export const fingerprint = (value: string) => fingerprints.of(value, sha256);
// A token request's steps ask for the fingerprints of its refresh token, its client secret and the
// tokens it issued, most of them more than once (seven hashes a refresh, 3.3 µs). The last eight
// values stay in these slots until others take them, as the bodies that carried them stay in
// jsonOf's; what the judge remembers between exchanges keeps fingerprints only (decision 0035).
const fingerprints = new Recent<string, string>({ size: 8 });
const sha256 = (value: string) =>
  // crypto.hash (Node 20.12+) is the one-shot form: no Hash object per token.
  (hash ? hash("sha256", value, "base64url") : createHash("sha256").update(value).digest("base64url")).slice(0, 22);
const hash = (crypto as { hash?: (algorithm: string, data: string, encoding: "base64url") => string }).hash;

/** The parameters of a redirect's query and fragment. */
export function redirectParams(
  location: string,
  base = "http://proxy.invalid/",
): { url: URL; query: URLSearchParams; fragment: URLSearchParams } | undefined {
  try {
    const url = new URL(location, base);
    return { url, query: url.searchParams, fragment: new URLSearchParams(url.hash.slice(1)) };
  } catch {
    return undefined;
  }
}

/** What a contract problem's message asks for, said as the expected value (`must be 7200` → `7200`). */
export function expectation(message: string): string {
  if (message === "is required") return "present";
  return message.replace(/^must be (of type )?/, (_, type) => (type ? "of type " : "")).replace(/^must /, "");
}
