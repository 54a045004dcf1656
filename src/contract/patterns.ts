// The contract's `pattern`s, run by a linear-time engine (RE2's, in pure
// JavaScript: re2js, decision 0021) instead of JavaScript's backtracking one,
// on which `^(a+)+$` held the mock for 12 s over a body of 30 characters. A
// pattern means what ECMA-262 says it means (JSON Schema's dialect), so the
// few places where RE2 reads a pattern differently are written out for it;
// what RE2 can not do at all (lookaround, backreferences) is refused when the
// contract is read, naming the pattern (bounds.ts).
import { RE2JS } from "re2js";
import { Recent } from "../recent.ts";

/** What Ajv's `code.regExp` needs of a compiled pattern. */
export interface LinearPattern {
  test(text: string): boolean;
  /** RE2's instructions: the matching work per character grows with it. */
  readonly size: number;
  /** `size` is a count of terms, fewer than RE2's instructions: the pattern was too large to be worth compiling. */
  readonly sizeAtLeast?: true;
  /** Which engine runs it: JavaScript's when its backtracking is bounded (backtrackingSteps), else re2js. */
  readonly engine: "native" | "re2";
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

/**
 * Backtracking steps a pattern may take on any text before JavaScript's own engine runs it instead
 * of re2js. A step costs 2–3 ns on an ASCII class, about 9 on `.` over astral text, 10–14 on
 * `\p{L}` and up to 37 on `\P{Cn}` over astral text (measured): a worst case of 2–3 µs a check
 * on ASCII and up to about 40 µs on the slowest classes, where re2js takes 3–6. At 10,000 a
 * pattern within the 100 instructions took 188 µs.
 */
export const NATIVE_STEPS = 1_000;

/**
 * What a piece of a pattern can do: how many ways it can be matched, and at most how many terms
 * one way of it passes (a repeat's body once per count: `(?:ab){3}` passes 6).
 */
interface Reach {
  ways: number;
  terms: number;
}

// Sums and products past this are "too many" alike; it keeps the arithmetic exact and finite.
const MANY = 1e12;
const cap = (n: number) => Math.min(n, MANY);
const ONE: Reach = { ways: 1, terms: 1 };

/**
 * The most backtracking steps a pattern takes on any text, when that has a bound; undefined when
 * it has none (an unbounded repeat, a start not anchored, lookaround, a backreference).
 *
 * Anchored at its start (every alternative begins with `^`, no m flag), a pattern is tried at the
 * text's first position only (at any other, `^` fails at once), and a backtracking engine
 * follows each way of matching it at most once: one choice per alternation, one count per
 * repeat, each repeated piece matched its own way each time. Without `*`, `+` or `{n,}` those
 * ways are finitely many. Every step the engine takes lies on the way to one of them, and one
 * way passes at most `terms` terms (an atom or assertion, a group's entry; a repeat's body once
 * per count), each a step: the steps are bounded by ways × terms, whatever the text.
 * `^(0?[1-9]|1[0-2])/(0?[1-9]|[12][0-9]|3[01])/[0-9]{4}$` has 12 ways of at most 14 terms;
 * `^(a+)+$` and `^(a|a){1,30}$` have no bound or too many, and so does a repeat of 1,000 over a
 * body of 600 empty groups (a review's try at a bound that counted each term once: 5 ms a match).
 */
export function backtrackingSteps(source: string): number | undefined {
  const reach = reachOf(source, false);
  if (reach === undefined) return undefined;
  const steps = reach.ways * reach.terms;
  return steps < MANY ? steps : undefined;
}

/**
 * At least how many terms one way of matching a pattern passes, a repeat without an end counted
 * twice and any start allowed; undefined for what RE2 refuses anyway (lookaround, a
 * backreference) or can not read. Every term is at least one instruction of RE2's program, so a
 * pattern far over MAX_PATTERN_SIZE by this count need not be compiled to be refused: re2js took
 * 5 to 23 s to compile a review's repeat of 1,000 over 600 empty groups.
 */
export function termsAtLeast(source: string): number | undefined {
  return reachOf(source, true)?.terms;
}

/**
 * The reach of a pattern: its ways of matching and the terms one way passes, as a backtracking
 * engine meets them (backtrackingSteps); `loose`, its terms only, whatever bounds its repeats and
 * its start (termsAtLeast).
 */
function reachOf(source: string, loose: boolean): Reach | undefined {
  let i = 0;
  const fail = (): never => {
    throw new Unbounded();
  };
  // One atom: a character, an escape, a class or `.`; i is past it.
  const atom = (): Reach => {
    const c = source[i]!;
    if (c === "\\") {
      const e = source[i + 1] ?? fail();
      if (/[1-9k]/.test(e)) fail(); // a backreference
      i += 2;
      if (e === "c") i++;
      else if (e === "x") i += 2;
      else if (e === "u") i = source[i] === "{" ? source.indexOf("}", i) + 1 : i + 4;
      else if (e === "p" || e === "P") i = source.indexOf("}", i) + 1;
      if (i <= 0) fail();
      return ONE;
    }
    if (c === "[") {
      for (i++; i < source.length && source[i] !== "]"; i++) if (source[i] === "\\") i++;
      if (i >= source.length) fail();
      i++;
      return ONE;
    }
    i++;
    return ONE;
  };
  const quantified = (piece: Reach): Reach => {
    const q = source[i];
    let min: number;
    let max: number;
    if (q === "?") [min, max] = [0, 1];
    else if (q === "*" || q === "+") {
      if (!loose) return fail();
      [min, max] = [q === "+" ? 1 : 0, 2];
    } else if (q === "{") {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(i));
      if (!m) return fail();
      if (m[2] !== undefined && m[3] === "" && !loose) return fail();
      min = Number(m[1]);
      max = m[3] === undefined ? min : m[3] === "" ? min + 1 : Number(m[3]);
      i += m[0].length - 1;
    } else return piece;
    i++;
    if (source[i] === "?") i++; // lazy: the same ways, tried in another order
    // One way of the piece: a count of it each (`[0-9]{1,4}`: 4 ways); else its ways for each count.
    let ways = piece.ways === 1 ? cap(max - min + 1) : 0;
    for (let k = min; piece.ways > 1 && k <= max && ways < MANY; k++) ways = cap(ways + piece.ways ** k);
    return { ways, terms: cap(piece.terms * max) };
  };
  const alternative = (): Reach => {
    let reach: Reach = { ways: 1, terms: 0 };
    while (i < source.length && source[i] !== "|" && source[i] !== ")") {
      const c = source[i]!;
      let piece: Reach;
      // An assertion: a step of its own, never quantified here (ECMAScript refuses `^?` under u).
      if (c === "^" || c === "$" || (c === "\\" && (source[i + 1] === "b" || source[i + 1] === "B"))) {
        i += c === "\\" ? 2 : 1;
        reach = { ways: reach.ways, terms: cap(reach.terms + 1) };
        continue;
      }
      if (c === "(") {
        if (source[i + 1] === "?") {
          if (source[i + 2] === ":") i += 3;
          else if (source[i + 2] === "<" && /[A-Za-z_$]/.test(source[i + 3] ?? "")) i = source.indexOf(">", i) + 1;
          else return fail(); // lookaround
        } else i++;
        const body = disjunction();
        if (source[i] !== ")") return fail();
        i++;
        piece = { ways: body.ways, terms: cap(body.terms + 1) }; // its entry a step too
      } else piece = atom();
      piece = quantified(piece);
      reach = { ways: cap(reach.ways * piece.ways), terms: cap(reach.terms + piece.terms) };
    }
    return reach;
  };
  // `anchored`: the whole pattern's, each of whose alternatives must begin with ^.
  const disjunction = (anchored = false): Reach => {
    if (anchored && !loose && source[i] !== "^") fail();
    let reach = alternative();
    while (source[i] === "|") {
      i++;
      if (anchored && !loose && source[i] !== "^") fail();
      const next = alternative();
      reach = { ways: cap(reach.ways + next.ways), terms: Math.max(reach.terms, next.terms) };
    }
    return reach;
  };
  try {
    const reach = disjunction(true);
    return i === source.length ? reach : undefined;
  } catch (err) {
    if (err instanceof Unbounded) return undefined;
    throw err;
  }
}

class Unbounded extends Error {}

const compiled = new Map<string, LinearPattern>();

/** A pattern of more terms than this is sized by them, not compiled (termsAtLeast): 100 times what bawa runs. */
const HOPELESS_TERMS = 10_000;

/** The pattern compiled by re2js, with ECMAScript's meaning (toRe2); throws PatternError when RE2 can not run it. */
export function re2Pattern(source: string): RE2JS {
  try {
    return RE2JS.compile(toRe2(source));
  } catch (err) {
    if (err instanceof PatternError) throw err;
    throw new PatternError(
      `a linear-time engine can not run it (${(err as Error).message}); lookaround and backreferences are not supported`,
    );
  }
}

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
  // Compiled whatever engine runs it: RE2 refuses what no linear-time engine can run, and sizes the
  // rest. One whose terms alone put it far past what bawa runs is sized by them instead, and
  // compiled only if a text is ever tested against it (its contract is refused before that).
  const terms = termsAtLeast(source);
  const hopeless = terms !== undefined && terms > HOPELESS_TERMS;
  let re2: RE2JS | undefined = hopeless ? undefined : re2Pattern(source);
  const re = () => (re2 ??= re2Pattern(source));
  // A pattern whose backtracking is bounded whatever the text runs on JavaScript's own engine: the
  // ECMAScript meaning itself, and no slower in the worst case than re2js (a seed's 100,000
  // dates took 112 ms on re2js).
  const steps = backtrackingSteps(source);
  const native = steps !== undefined && steps <= NATIVE_STEPS ? new RegExp(source, "u") : undefined;
  const pattern: LinearPattern = {
    test: native ? (text) => native.test(text) : lastTextKept((text) => re().test(text)),
    engine: native ? "native" : "re2",
    size: hopeless ? terms : re().programSize(),
    ...(hopeless ? { sizeAtLeast: true } : {}),
    // Ajv keys its compiled patterns by this.
    toString: () => `/${source}/u`,
  } as LinearPattern;
  compiled.set(source, pattern);
  return pattern;
}

/** Texts up to this long are compared with the last one a re2js pattern tested, before matching. */
const KEPT_TEXT_CHARS = 256;

/**
 * A test that answers the text it tested last without matching it again: one value is tested
 * over and over (every token answer's scope: 2.6 µs a refresh on re2js, for the same string).
 */
function lastTextKept(test: (text: string) => boolean): (text: string) => boolean {
  const last = new Recent<string, boolean>({ size: 1, keeps: (text) => text.length <= KEPT_TEXT_CHARS });
  return (text) => last.of(text, test);
}

/** Ajv's `code.regExp`: every `pattern` and `patternProperties` of a schema, compiled by linearPattern. */
export const linearRegExp = Object.assign((source: string) => linearPattern(source), {
  code: "linearPattern",
});
