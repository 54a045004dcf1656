// Content negotiation (A-MEDIA-TYPES) and the encoding of answers and errors.
import { type CompiledContract, type Problem, XmlError } from "../../contract/index.ts";
import { type MockResponse, mediaTypeOf } from "./http.ts";

export interface Format {
  kind: "json" | "xml";
  mediaType: "application/json" | "application/xml" | "text/xml";
}

export const JSON_FORMAT: Format = { kind: "json", mediaType: "application/json" };
const KNOWN: Record<string, Format> = {
  "application/json": JSON_FORMAT,
  "application/xml": { kind: "xml", mediaType: "application/xml" },
  "text/xml": { kind: "xml", mediaType: "text/xml" },
};

/** The format of the answer: the best-rated of JSON and XML in `Accept`, else JSON. */
export function answerFormat(accept: string | undefined): Format {
  if (!accept) return JSON_FORMAT;
  let best: Format | undefined;
  let bestQ = 0;
  for (const part of accept.split(",")) {
    const [range = "", ...params] = part.split(";").map((s) => s.trim().toLowerCase());
    const qParam = params.find((p) => p.startsWith("q="));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    if (!(q > 0)) continue;
    const format =
      KNOWN[range] ??
      (range === "*/*" || range === "application/*" ? JSON_FORMAT : range === "text/*" ? KNOWN["text/xml"] : undefined);
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
  return type ? KNOWN[type] : undefined;
}

// Stored customers are never changed in place (PUT stores a new object), so
// their encoded forms can be kept with them.
const encoded = new WeakMap<object, Map<string, string>>();

export function encode(contract: CompiledContract, format: Format, schemaName: string, value: unknown): string {
  const key = `${format.kind}:${schemaName}`;
  const cached = typeof value === "object" && value !== null ? encoded.get(value) : undefined;
  const hit = cached?.get(key);
  if (hit !== undefined) return hit;
  const text = format.kind === "json" ? JSON.stringify(value) : contract.xml.stringify(schemaName, value);
  if (typeof value === "object" && value !== null && schemaName === "Customer") {
    if (cached) cached.set(key, text);
    else encoded.set(value, new Map([[key, text]]));
  }
  return text;
}

export function answer(
  contract: CompiledContract,
  format: Format,
  status: number,
  schemaName: string,
  value: unknown,
  headers: Record<string, string> = {},
): MockResponse {
  return {
    status,
    headers: { "content-type": `${format.mediaType}; charset=utf-8`, ...headers },
    body: encode(contract, format, schemaName, value),
  };
}

/** An error answer in the ASP.NET shape (A-ERROR-BODY), naming each refused field. */
export function problem(
  contract: CompiledContract,
  format: Format,
  status: number,
  message: string,
  problems: Problem[] = [],
  headers: Record<string, string> = {},
): MockResponse {
  const body: { Message: string; ModelState?: Record<string, string[]> } = { Message: message };
  if (problems.length > 0) {
    body.ModelState = {};
    for (const p of problems) {
      const key = p.field ? `customer.${p.field}` : "customer";
      const messages = body.ModelState[key] ?? [];
      messages.push(p.field ? `${p.field} ${p.message}` : p.message);
      body.ModelState[key] = messages;
    }
  }
  return answer(contract, format, status, "Error", body, headers);
}

export type Decoded = { ok: true; value: unknown } | { ok: false; response: MockResponse };

/** Reads a JSON or XML request body into the value of the named schema, or an error answer. */
export function decodeBody(
  contract: CompiledContract,
  reply: Format,
  contentType: string | undefined,
  body: Buffer | undefined,
  schemaName: string,
): Decoded {
  if (!body || body.length === 0) {
    return {
      ok: false,
      response: problem(
        contract,
        reply,
        400,
        "The request body is missing: send the object with all of its properties.",
      ),
    };
  }
  const format = bodyFormat(contentType);
  if (!format) {
    const got = mediaTypeOf(contentType) ?? "none";
    return {
      ok: false,
      response: problem(
        contract,
        reply,
        415,
        `The Content-Type ${got} is not supported: send application/json, application/xml or text/xml.`,
      ),
    };
  }
  const text = body.toString("utf8");
  try {
    return { ok: true, value: format.kind === "json" ? JSON.parse(text) : contract.xml.parse(schemaName, text) };
  } catch (err) {
    const reason = err instanceof XmlError || err instanceof SyntaxError ? err.message : String(err);
    const kind = format.kind === "json" ? "JSON" : "XML";
    return { ok: false, response: problem(contract, reply, 400, `The request body is not valid ${kind}: ${reason}`) };
  }
}
