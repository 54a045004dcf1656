// The one redaction of everything bawa writes: the suite's reports, logs and
// traces, the proxy's request log, dashboard, prints and report, the mock's
// request log. Two parts: the values a run knows to be secret, wherever they
// stand (a Redactor: the suite's settings and what its workers learned), and
// whatever stands in a field of a secret kind: a token answer's access_token,
// a redirect's code=, a cookie, an Authorization header, and any parameter,
// JSON member or XML element whose name says secret (`..._token`, `..._secret`,
// `password`, `code`, `..._key`, `session`). Each value is replaced by one fixed mark; the
// name stays. Pure: what a run knows is conformance/lib/secrets.ts's.
import type { Violation } from "./exchange.ts";

/** What stands in every report, log and trace where a secret was. */
export const MARK = "[redacted]";

/** Values shorter than this are too common to replace wherever they stand (a password "demo"). */
export const ANYWHERE_LENGTH = 16;
/** A secret shorter than this is no value to look for (an empty setting, a one-letter placeholder). */
export const MIN_SECRET_LENGTH = 4;
/** A cut-off head of a long value this long or longer is replaced too (a message that quoted 200 characters). */
const HEAD_LENGTH = 12;

/** Whether a character code is one a token is made of: a short value is replaced only where none touches it. */
const isTokenChar = (c: number) =>
  (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 45 || c === 95;

/** The text as a regular expression that matches it literally. */
export const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const htmlEscape = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
const jsonInner = (s: string) => JSON.stringify(s).slice(1, -1);

/** The spellings of a value in the formats reports hold: a URL, a form, JSON (once or twice quoted), HTML. */
export function spellings(value: string): string[] {
  const form = new URLSearchParams({ v: value }).toString().slice(2);
  return [
    ...new Set([
      value,
      encodeURIComponent(value),
      form,
      jsonInner(value),
      jsonInner(jsonInner(value)),
      htmlEscape(value),
      htmlEscape(jsonInner(value)),
    ]),
  ];
}

/**
 * Known secret values, each replaced by MARK in every spelling of spellings(). Text is scanned
 * once, by the first two characters of each value: reports of a traced run are megabytes, and
 * hundreds of learned tokens in one regular expression would take seconds per megabyte.
 */
export class Redactor {
  #values = new Set<string>();
  /** Values by their first two character codes, longest first. */
  #byHead = new Map<number, string[]>();

  /**
   * Adds a secret; one shorter than `minLength` is left to the field patterns alone (an empty
   * setting, a one-letter placeholder). Returns whether it was new.
   */
  add(value: string | undefined, minLength = MIN_SECRET_LENGTH): boolean {
    if (!value || value.length < minLength || value === MARK || this.#values.has(value)) return false;
    for (const s of [value, ...spellings(value)]) {
      if (this.#values.has(s) || s.length < 2) continue;
      this.#values.add(s);
      const key = headOf(s, 0);
      const list = this.#byHead.get(key) ?? [];
      list.push(s);
      list.sort((a, b) => b.length - a.length);
      this.#byHead.set(key, list);
    }
    return true;
  }

  get size(): number {
    return this.#values.size;
  }

  /** Every known value replaced, then every secret field (redact). */
  redact(text: string): string {
    return redact(this.redactKnown(text));
  }

  /**
   * Every known value replaced: a short one only where no token character touches it, a long one
   * anywhere, and also a head of a long one that ends where the text or the token does.
   */
  redactKnown(text: string): string {
    if (this.#values.size === 0 || text.length < 2) return text;
    let out = "";
    let last = 0;
    for (let i = 0; i + 1 < text.length; i++) {
      const candidates = this.#byHead.get(headOf(text, i));
      if (candidates === undefined) continue;
      const length = this.#matchAt(text, i, candidates);
      if (length === 0) continue;
      out += text.slice(last, i) + MARK;
      last = i + length;
      i = last - 1;
    }
    return last === 0 ? text : out + text.slice(last);
  }

  /** The length of the secret that starts at `i`, or 0. */
  #matchAt(text: string, i: number, candidates: string[]): number {
    const before = i > 0 && isTokenChar(text.charCodeAt(i - 1));
    for (const v of candidates) {
      let n = 0;
      while (n < v.length && text.charCodeAt(i + n) === v.charCodeAt(n)) n++;
      const end = i + n;
      const after = end < text.length && isTokenChar(text.charCodeAt(end));
      if (n === v.length && (v.length >= ANYWHERE_LENGTH || (!before && !after))) return n;
      if (v.length >= ANYWHERE_LENGTH && n >= HEAD_LENGTH && !after) return n;
    }
    return 0;
  }
}

const headOf = (s: string, i: number) => (s.charCodeAt(i) << 16) | s.charCodeAt(i + 1);

/** A value that only stands for one, as documentation writes it (`code=..`, `code=<code>`, `code=${code}`). */
const PLACEHOLDER = /^(\.+|<[^>]*>?|&lt;.*|\{[^}]*\}?|\$\{.*)$/;

/** Names of JSON fields and headers whose value is secret. */
const SECRET_KEYS =
  "access_token|refresh_token|id_token|client_secret|password|code_verifier|authorization|proxy-authorization|cookie|set-cookie|x-bawa-control-token";
/** Names of the pairs of a HAR record (headers, query, form: {"name":...,"value":...}) whose value is secret. */
const SECRET_NAMES = `${SECRET_KEYS}|code`;
/** A name of SECRET_NAMES, as one name. */
const SECRET_NAME_LIST = new RegExp(`^(${SECRET_NAMES})$`, "i");
/** Names of URL query, fragment and form parameters whose value is secret. */
const SECRET_PARAMS = "access_token|refresh_token|id_token|code|client_secret|password|code_verifier";
/** A quote as it stands in JSON, in JSON quoted once or twice more, or in HTML. */
const Q = String.raw`(\\*"|&quot;)`;

/** What every one of FIELD_PATTERNS needs in the text to match (an XML element its `<`). */
const MAY_HOLD_A_SECRET = /[=:\s<]/;

const FIELD_PATTERNS: Array<[RegExp, (...m: string[]) => string]> = [
  // "access_token": "...", also quoted inside a quoted string (\"access_token\":\"...\") and in HTML.
  [
    new RegExp(String.raw`${Q}(${SECRET_KEYS})\1(\s*:\s*)\1([^"\\&]*)\1`, "gi"),
    (all, q, key, colon, value) => (value === "" || value === MARK ? all : `${q}${key}${q}${colon}${q}${MARK}${q}`),
  ],
  // The same cut off before its closing quote (a message that quoted the first characters of an answer).
  [
    new RegExp(
      String.raw`${Q}(access_token|refresh_token|id_token|client_secret|password)\1(\s*:\s*)\1([A-Za-z0-9\-._~+/=%]+)(?![A-Za-z0-9\-._~+/=%"\\&])`,
      "gi",
    ),
    (_all, q, key, colon) => `${q}${key}${q}${colon}${q}${MARK}`,
  ],
  // Pairs of name and value ({"name":"set-cookie","value":"..."}), as traces keep headers and forms;
  // also of any other name that says secret ({"name":"X-Api-Key",...}).
  [
    new RegExp(String.raw`${Q}name\1(\s*:\s*)\1([^"\\&]{1,100})\1(\s*,\s*)\1value\1(\s*:\s*)\1([^"\\&]*)\1`, "gi"),
    (all, q, c1, key, comma, c2, value) =>
      value === "" || value === MARK || !(SECRET_NAME_LIST.test(key!) || isSecretName(key!))
        ? all
        : `${q}name${q}${c1}${q}${key}${q}${comma}${q}value${q}${c2}${q}${MARK}${q}`,
  ],
  // Cookies as a list of objects ("cookies":[{"name":"sid","value":"..."}]): every value.
  [
    new RegExp(String.raw`${Q}cookies\1\s*:\s*\[[^\]]*\]`, "gi"),
    (all, q) =>
      all.replace(
        new RegExp(String.raw`(${escapeRegExp(q!)}value${escapeRegExp(q!)}\s*:\s*${escapeRegExp(q!)})([^"\\&]*)`, "g"),
        (_m, head, value) => `${head}${value === "" ? "" : MARK}`,
      ),
  ],
  // code=..., access_token=... in a query, a fragment or a form (also after &amp;).
  [
    new RegExp(String.raw`(^|[?#&;\s"'(,|])(${SECRET_PARAMS})=([^&#\s"'<>\\;,)|]+)`, "gim"),
    (all, before, key, value) => (value === MARK || PLACEHOLDER.test(value!) ? all : `${before}${key}=${MARK}`),
  ],
  // Cookie: and Set-Cookie: as header lines, and a header whose name ends in -key or -token (X-Api-Key:).
  [
    /(?<![\w-])(set-cookie|cookie|[a-z][\w-]*-(?:key|token))(\s*:\s*)([^\r\n"'<>]+)/gi,
    (all, name, colon, value) => (value!.trim() === MARK ? all : `${name}${colon}${MARK}`),
  ],
  // Authorization: as a header line, whatever its scheme (Token, Digest, ...): all after the scheme.
  [
    /(?<![\w-])((?:proxy-)?authorization)(\s*:\s*)([A-Za-z][\w.~+-]*)([ \t]+)([^\r\n"'<>]+)/gi,
    (all, name, colon, scheme, space, value) =>
      value!.trim() === MARK ? all : `${name}${colon}${scheme}${space}${MARK}`,
  ],
  // Authorization schemes: Basic with credentials, Bearer with anything but a plain word of prose.
  [
    /\b(Bearer|Basic)(\s+)([A-Za-z0-9\-._~+/]+=*)(?![A-Za-z0-9\-._~+/="])/gi,
    (all, scheme, space, value) => (secretCredentials(scheme!, value!) ? `${scheme}${space}${MARK}` : all),
  ],
  // https://user:password@host
  [/(\b[a-z][a-z0-9+.-]*:\/\/[^/\s:@"'<>]+:)([^@\s/"'<>]+)@/gi, (_all, head) => `${head}${MARK}@`],
  // Any other parameter whose name says secret (a GET form's pwd=, a cookie's session=, api_key=).
  [
    /(^|[?#&;\s])([^\s=?#&;"'<>]+)=([^\s?#&;"'<>]*)/g,
    (all, before, name, value) =>
      value !== "" && value !== MARK && isSecretName(name!) ? `${before}${name}=${MARK}` : all,
  ],
  // Any other member of a quoted JSON body whose name says secret.
  [
    /"([^"\\]{1,100})"(\s*:\s*)"(?:[^"\\]|\\.)*"/g,
    (all, name, colon) => (isSecretName(name!) && !all.endsWith(`"${MARK}"`) ? `"${name}"${colon}"${MARK}"` : all),
  ],
  // An XML element whose name says secret, as a JSON member's would (<access_token>...</access_token>);
  // not HTML's <code>, which the reports written as HTML quote text in.
  [
    /<([A-Za-z_][\w.-]{0,100})(\s[^<>]*)?>([^<]+)<\/\1\s*>/g,
    (all, name, attributes, value) =>
      value !== MARK && name!.toLowerCase() !== "code" && (SECRET_NAME_LIST.test(name!) || isSecretName(name!))
        ? `<${name}${attributes ?? ""}>${MARK}</${name}>`
        : all,
  ],
];

/**
 * Parameter names whose values are secrets: tokens, secrets, passwords, keys (`api_key`,
 * `x-api-key`, `private_key`, `signingKey`; not a bare `key`), sessions (`session_id`, `JSESSIONID`, `PHPSESSID`),
 * and a code as a word of its own (`code`, `device_code`; not `CountryCode`, `PostalCode` or `__code`).
 */
// `key` only at the end of a longer name (`apiKey`, `private_key`, `x-api-key`): a bare `key` names
// what a map or a report lists by (the coverage report's operations: `"key": "getCustomer"`).
// `__code` is Prism's and the mock's forced status (`?__code=503`), a number the log must show.
const SECRET_NAME =
  /(token|secret|password|passwd|pwd|(^|(?<!_)[_-])code|assertion|credentials?|.key|signature|session|sess(ion)?_?id)$/i;

const isSecretName = (name: string) => {
  try {
    return SECRET_NAME.test(decodeURIComponent(name.replace(/\+/g, " ")));
  } catch {
    return SECRET_NAME.test(name);
  }
};

function secretCredentials(scheme: string, value: string): boolean {
  if (scheme.toLowerCase() === "basic") {
    // Prose ("HTTP Basic authentication") is no base64 of id:secret.
    return /^[A-Za-z0-9+/]+=*$/.test(value) && Buffer.from(value, "base64").toString("latin1").includes(":");
  }
  return !(/^[a-z]+$/i.test(value) && value.length < 20);
}

/** Whatever stands in a field of a secret kind replaced by MARK (the field's name kept). */
export function redact(text: string): string;
export function redact(text: string | undefined): string | undefined;
export function redact(text: string | undefined): string | undefined {
  // Every pattern needs a `=`, a colon, a space (after a scheme's name) or a `<` (an XML element);
  // most texts (a request's path, the proxy logs one per exchange) have none, and are returned
  // without running them.
  if (text === undefined || text.length < 3 || !MAY_HOLD_A_SECRET.test(text)) return text;
  let out = text;
  for (const [pattern, replace] of FIELD_PATTERNS) out = out.replace(pattern, replace as (...m: string[]) => string);
  return out;
}

/** A violation as it may be shown: its texts redacted. */
export function redactViolation(v: Violation): Violation {
  return {
    ...v,
    where: redact(v.where),
    expected: redact(v.expected),
    ...(v.found === undefined ? {} : { found: redact(v.found) }),
  };
}
