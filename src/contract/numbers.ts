// Numbers a request body gives that the mock could not keep as they were sent. JavaScript reads a
// JSON or XML number into 64 bits: integers up to ±2^53 and about 15 significant digits exactly.
// The service's decimals (.NET's decimal) keep 28: a CreditLimit of 12345678901234567.89 would be
// stored as 12345678901234568, and nothing should be stored changed (decision 0009). Such a number
// is refused, naming the field and what it would have become.
import type { Problem } from "./contract.ts";

/**
 * Text that may hold a number 64 bits do not keep exactly: eight digits in a row or an exponent
 * of three digits. A decimal of at most 15 significant digits whose exponent is smaller reads
 * back as written, and one of 16 or more has eight in a row before or after its dot; a number
 * too large or too small for 64 bits has a three-digit exponent or hundreds of zeros in a row.
 * Written out digit by digit: over a customer without such a run, V8 ran `\d{8}` in 4.5 µs and
 * eight `\d` in a row in 0.55 (measured, not read in V8's source).
 */
const LONG_RUNS = /\d\d\d\d\d\d\d\d/g;
const LONG_EXPONENTS = /[eE][-+]?\d\d\d/g;
const MAY_LOSE_DIGITS = new RegExp(`${LONG_RUNS.source}|${LONG_EXPONENTS.source}`);

/**
 * Whether a JSON text may hold a number 64 bits do not keep as written. Every body is asked, and
 * many have eight digits in a row in a string (a phone number, a chamber of commerce number), so
 * a run counts only where a number could hold it: its number's characters preceded by `:`, `,`
 * or `[` (spaces between) or by nothing. A string holding ": 12345678" passes too; the walk then
 * reads it as the string it is. About 2 µs a customer where JSON.parse takes 9 (a pattern of both
 * conditions in one took 6).
 */
export function jsonMayLoseDigits(text: string): boolean {
  for (const runs of [LONG_RUNS, LONG_EXPONENTS]) {
    runs.lastIndex = 0;
    while (runs.test(text)) {
      let start = runs.lastIndex;
      while (start > 0 && isNumberPart(text.charCodeAt(start - 1))) start--;
      while (start > 0 && isSpace(text.charCodeAt(start - 1))) start--;
      const before = start === 0 ? 0x3a : text.charCodeAt(start - 1);
      if (before === 0x3a || before === 0x2c || before === 0x5b) return true;
      // On past the rest of the run: a string of 60 digits is one run, not 53.
      let end = runs.lastIndex;
      while (end < text.length && isNumberPart(text.charCodeAt(end))) end++;
      runs.lastIndex = end;
    }
  }
  return false;
}

/** A character of a JSON number: a digit, `.`, `e`, `E`, `+` or `-`. */
export const isNumberPart = (c: number): boolean =>
  (c >= 0x30 && c <= 0x39) || c === 0x2e || c === 0x65 || c === 0x45 || c === 0x2b || c === 0x2d;
const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;

/** Whether `value`, JavaScript's reading of the number `text` (JSON's or XML's form), has its exact value. */
export function readsExactly(text: string, value: number): boolean {
  if (!MAY_LOSE_DIGITS.test(text)) return true;
  return Number.isFinite(value) && decimalOf(text) === decimalOf(String(value));
}

/**
 * A number's text as its exact value, written one way: the sign, the digits without leading or
 * trailing zeros, the exponent (`-1234.500` and `-1.2345e3` are both "-12345e-1"; zero is "0").
 */
function decimalOf(text: string): string {
  const negative = text.startsWith("-");
  const e = text.search(/[eE]/);
  const mantissa = text.slice(negative || text.startsWith("+") ? 1 : 0, e === -1 ? undefined : e);
  let exponent = e === -1 ? 0 : Number(text.slice(e + 1));
  const dot = mantissa.indexOf(".");
  let digits = mantissa;
  if (dot !== -1) {
    digits = mantissa.slice(0, dot) + mantissa.slice(dot + 1);
    exponent -= mantissa.length - dot - 1;
  }
  let first = 0;
  while (digits.charCodeAt(first) === 0x30) first++;
  if (first === digits.length) return "0";
  let end = digits.length;
  while (digits.charCodeAt(end - 1) === 0x30) end--;
  return `${negative ? "-" : ""}${digits.slice(first, end)}e${exponent + digits.length - end}`;
}

const LARGEST = Number.MAX_VALUE;
const shown = (text: string) => (text.length > 40 ? `${text.slice(0, 40)}...` : text);

/** The problem of the number `text` a body gave at `field`, which JavaScript reads as `value`, not exactly. */
export function lostDigits(field: string, text: string, value: number): Problem {
  return {
    field,
    message: Number.isFinite(value)
      ? `can not be kept exactly: ${shown(text)} would be stored as ${value} (the mock keeps a number in 64 bits: integers to ±${Number.MAX_SAFE_INTEGER}, decimals to 15 significant digits)`
      : `can not be kept: ${shown(text)} is beyond the largest number the mock keeps (±${LARGEST})`,
  };
}
