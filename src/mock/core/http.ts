// The mock's view of HTTP: plain data in, plain data out. The core never
// sees a socket; src/mock/node/ turns these into node:http calls.
import { Recent } from "../../recent.ts";
import type { AnswerCode } from "./answer-codes.ts";
import type { Format } from "./format.ts";

export interface MockRequest {
  method: string;
  /** Path and query as sent, for example `/v1/api/DEMO/Customer/1001?x=1`. */
  url: string;
  /** Header names in lower case. */
  headers: Readonly<Record<string, string | undefined>>;
  body?: Buffer | undefined;
  /**
   * The client's address as the socket saw it (the node adapter fills it in), for the caps and
   * the login throttle that count per source. Calls in process leave it out: they are one source.
   */
  remoteAddress?: string | undefined;
}

/** A body's text and its bytes as sent. */
export interface Encoded {
  text: string;
  bytes: Buffer;
}

/** A text with its bytes, made once for answers that send it again and again. */
export const encodedOf = (text: string): Encoded => ({ text, bytes: Buffer.from(text) });

export interface MockResponse {
  status: number;
  headers: Record<string, string>;
  body?: string | undefined;
  /**
   * The body already encoded as bytes (a cached list answer), so each send does not copy it
   * again. Sent only while `body` is still the very text it was made from: a scenario that
   * rewrites the body makes it stale, and then the body is sent.
   */
  encoded?: Encoded;
  /** What the core knows of the answer; never sent. */
  meta?: AnswerMeta;
}

/** The body of an answer before it was encoded, kept or made again. */
export const bodyValue = (meta: AnswerMeta | undefined): unknown =>
  meta?.value !== undefined ? meta.value : meta?.makeValue?.();

/** The bytes to send for an answer's body. */
export function bodyBytes(res: MockResponse): Buffer | string | undefined {
  return res.encoded && res.encoded.text === res.body ? res.encoded.bytes : res.body;
}

/**
 * What the core knows of an answer, for the scenarios that reshape answers and
 * for the request log, so neither has to re-derive routes or read error texts.
 */
export interface AnswerMeta {
  /** A stable code of what happened, for example `resource.not-found`, `route.unknown`, `token.issued`. */
  code?: AnswerCode;
  /** The operation answered: the contract's operationId (`getCustomer`), else `METHOD /path`. */
  route?: string;
  /** The body before it was encoded, with its schema and format. */
  value?: unknown;
  /** Makes `value` on demand, when the answer does not keep it (the cached whole list); see bodyValue(). */
  makeValue?: () => unknown;
  schema?: string;
  format?: Format;
  /** The message of an error answer. */
  problem?: string;
  /** A failure a scenario forced on a write before it ran: the switches leave it as it is. */
  forcedFailure?: boolean;
  client?: string;
  user?: string;
  database?: string;
  /** The resource of the contract a data call reached (`Customer`, `CustomerInfoList`). */
  resource?: string;
  /** Properties of a body that bound to no field (A-UNKNOWN-PROPERTIES). */
  ignored?: readonly string[];
  /** grant_type of a token request; response_type of an authorization. */
  grantType?: string;
  responseType?: string;
  /** The redirect_uri an authorization error page refused to use. */
  redirectUri?: string;
  /** The methods a path has, when the one asked for is not among them. */
  allow?: readonly string[];
  /** Hold the answer back this long (Prefer: delay, a scenario's latency). */
  delayMs?: number;
  /** The mock's own page or control call (dashboard, portal, /__mock/): no scenario reshapes it. */
  local?: boolean;
}

/** A parsed form body or query string; a repeated name keeps all its values. */
export type Params = Map<string, string[]>;

export function parseParams(text: string): Params {
  const out: Params = new Map();
  for (const [k, v] of new URLSearchParams(text)) out.set(k, [...(out.get(k) ?? []), v]);
  return out;
}

// A form is read once per request, however many steps ask for it (the last few requests': not a
// WeakMap, see src/recent.ts).
const forms = new Recent<object, Params>();
const readForm = (req: Pick<MockRequest, "body">) => parseParams(req.body?.toString("utf8") ?? "");

/** The parameters of a body posted as a form; `undefined` when it is posted as something else. */
export function formOf(req: Pick<MockRequest, "headers" | "body">): Params | undefined {
  if (mediaTypeOf(req.headers["content-type"]) !== "application/x-www-form-urlencoded") return undefined;
  return forms.of(req, readForm);
}

/** The single value of a parameter; `undefined` when absent, `null` when repeated. */
export function single(params: Params, name: string): string | undefined | null {
  const v = params.get(name);
  if (!v) return undefined;
  return v.length === 1 ? v[0] : null;
}

/**
 * A request target in the absolute form (RFC 9112 3.2.2: a server MUST accept it; a proxy, or a
 * client with HTTP_PROXY set, sends it), split into its authority and its path and query;
 * undefined for a target of any other form.
 */
export function absoluteForm(target: string): { authority: string; path: string } | undefined {
  if (target.startsWith("/")) return undefined;
  const m = /^https?:\/\/([^/?#]*)([^#]*)$/i.exec(target);
  if (!m) return undefined;
  return { authority: m[1]!.toLowerCase(), path: m[2]!.startsWith("/") ? m[2]! : `/${m[2]}` };
}

export function mediaTypeOf(contentType: string | undefined): string | undefined {
  return contentType?.split(";")[0]?.trim().toLowerCase() || undefined;
}
