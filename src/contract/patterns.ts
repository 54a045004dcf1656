// The contract's `pattern`s, run by a linear-time engine (RE2's, in pure
// JavaScript: re2js, decision 0021) instead of JavaScript's backtracking one,
// on which `^(a+)+$` held the mock for 12 s over a body of 30 characters. A
// pattern means what ECMA-262 says it means (JSON Schema's dialect), so the
// few places where RE2 reads a pattern differently are written out for it;
// what RE2 can not do at all (lookaround, backreferences) is refused when the
// contract is read, naming the pattern (bounds.ts).
import { RE2JS } from "re2js";

/** What Ajv's `code.regExp` needs of a compiled pattern. */
export interface LinearPattern {
  test(text: string): boolean;
  /** RE2's instructions: the matching work per character grows with it. */
  readonly size: number;
}

/** A pattern the linear engine can not run, and why in words. */
export class PatternError extends Error {
  override name = "PatternError";
}

// ECMAScript's \s: its WhiteSpace and LineTerminator code points. RE2's \s is ASCII only.
const SPACE = "\\t\\n\\x0B\\f\\r\\p{Zs}\u2028\u2029\uFEFF";
// ECMAScript's `.` without the s flag: anything but a line terminator. RE2's stops at \n only.
const DOT = "[^\\n\\r\u2028\u2029]";

/**
 * The pattern in RE2's syntax with ECMAScript's meaning: `.`, `\s` and `\S` spelled out, `[]`
 * and `[^]` made what they are in ECMAScript, and re2js's own translation for the rest
 * (`\u` escapes, named groups). Throws PatternError where the meanings can not be made to agree.
 */
export function toRe2(source: string): string {
  let out = "";
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === "\\") {
      const next = source[i + 1];
      i++;
      if (next === "s") out += inClass ? SPACE : `[${SPACE}]`;
      else if (next === "S") {
        if (inClass) throw new PatternError("\\S inside a character class has no linear-time equivalent here");
        out += `[^${SPACE}]`;
      } else out += `\\${next ?? ""}`;
    } else if (inClass) {
      if (c === "]") inClass = false;
      out += c;
    } else if (c === "[") {
      // ECMAScript: `[]` matches nothing and `[^]` anything; RE2 would read the `]` as a member.
      if (source.startsWith("[]", i)) {
        out += "[^\\x{0}-\\x{10FFFF}]";
        i++;
      } else if (source.startsWith("[^]", i)) {
        out += "(?s:.)";
        i += 2;
      } else {
        inClass = true;
        out += c;
        if (source[i + 1] === "^") out += source[++i];
      }
    } else if (c === ".") out += DOT;
    else out += c;
  }
  return RE2JS.translateRegExp(out);
}

const compiled = new Map<string, LinearPattern>();

/**
 * A contract pattern compiled for linear-time matching (cached: every validator of every schema
 * asks again). Throws PatternError for a pattern ECMAScript refuses, or that RE2 can not run.
 */
export function linearPattern(source: string): LinearPattern {
  const known = compiled.get(source);
  if (known) return known;
  try {
    // Compiling is linear; only matching backtracks. ECMAScript's own syntax is the contract's.
    new RegExp(source, "u");
  } catch (err) {
    throw new PatternError(`it is no ECMAScript regular expression (${(err as Error).message})`);
  }
  let re: RE2JS;
  try {
    re = RE2JS.compile(toRe2(source));
  } catch (err) {
    if (err instanceof PatternError) throw err;
    throw new PatternError(
      `a linear-time engine can not run it (${(err as Error).message}); lookaround and backreferences are not supported`,
    );
  }
  const pattern: LinearPattern = {
    test: (text) => re.test(text),
    size: re.programSize(),
    // Ajv keys its compiled patterns by this.
    toString: () => `/${source}/u`,
  } as LinearPattern;
  compiled.set(source, pattern);
  return pattern;
}

/** Ajv's `code.regExp`: every `pattern` and `patternProperties` of a schema, compiled by linearPattern. */
export const linearRegExp = Object.assign((source: string) => linearPattern(source), {
  code: "linearPattern",
});
