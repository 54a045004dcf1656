// The mock's view of HTTP: plain data in, plain data out. The core never
// sees a socket; src/mock/node/ turns these into node:http calls.

export interface MockRequest {
  method: string;
  /** Path and query as sent, for example `/v1/api/DEMO/Customer/1001?x=1`. */
  url: string;
  /** Header names in lower case. */
  headers: Readonly<Record<string, string | undefined>>;
  body?: Buffer | undefined;
}

export interface MockResponse {
  status: number;
  headers: Record<string, string>;
  body?: string | undefined;
}

/** A parsed form body or query string; a repeated name keeps all its values. */
export type Params = Map<string, string[]>;

export function parseParams(text: string): Params {
  const out: Params = new Map();
  for (const [k, v] of new URLSearchParams(text)) out.set(k, [...(out.get(k) ?? []), v]);
  return out;
}

/** The single value of a parameter; `undefined` when absent, `null` when repeated. */
export function single(params: Params, name: string): string | undefined | null {
  const v = params.get(name);
  if (!v) return undefined;
  return v.length === 1 ? v[0] : null;
}

export function mediaTypeOf(contentType: string | undefined): string | undefined {
  return contentType?.split(";")[0]?.trim().toLowerCase() || undefined;
}
