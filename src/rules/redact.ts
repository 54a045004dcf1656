// The one redaction everything bawa writes of an exchange passes through: request-log
// entries (their paths and problems), violations as they leave the judge, the
// report's files and what the command prints. A secret can sit in a query
// (`?access_token=`, a GET form's password), in a fragment (the token flow's
// `#access_token=`, quoted by a violation that shows where a redirect went) or
// in a quoted JSON body: the parameter's name stays, its value becomes a mark.
import type { Violation } from "./exchange.ts";

/** What a secret value is replaced by. */
export const HIDDEN = "(hidden)";

/** Parameter names whose values are secrets: tokens, codes, secrets, passwords, keys, sessions. */
const SECRET_NAME = /(token|secret|password|passwd|pwd|code|assertion|credentials?|api_?key|signature|session(id)?)$/i;

const isSecretName = (name: string) => {
  try {
    return SECRET_NAME.test(decodeURIComponent(name.replace(/\+/g, " ")));
  } catch {
    return SECRET_NAME.test(name);
  }
};

/** `name=value` after the start, a space, or the separators of a query, fragment, form or cookie. */
const PARAM = /(^|[?#&;\s])([^\s=?#&;"'<>]+)=([^\s?#&;"'<>]*)/g;
/** `"name": "value"` of a JSON body quoted in a message. */
const JSON_PAIR = /"([^"\\]{1,100})"(\s*:\s*)"(?:[^"\\]|\\.)*"/g;

/** The text with every secret parameter's value replaced by {@link HIDDEN}. */
export function redact(text: string): string;
export function redact(text: string | undefined): string | undefined;
export function redact(text: string | undefined): string | undefined {
  if (text === undefined || (!text.includes("=") && !text.includes('"'))) return text;
  return text
    .replace(PARAM, (whole, before: string, name: string, value: string) =>
      value !== "" && value !== HIDDEN && isSecretName(name) ? `${before}${name}=${HIDDEN}` : whole,
    )
    .replace(JSON_PAIR, (whole, name: string, colon: string) =>
      isSecretName(name) ? `"${name}"${colon}"${HIDDEN}"` : whole,
    );
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
