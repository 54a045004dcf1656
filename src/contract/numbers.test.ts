// Which numbers a body may give: those 64 bits keep as written, whatever their form.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jsonMayLoseDigits, lostDigits, readsExactly } from "./numbers.ts";

const reads = (text: string) => readsExactly(text, Number(text));

describe("a number read exactly", () => {
  it("is every number JavaScript writes, and every decimal of at most 15 significant digits", () => {
    fc.assert(fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (d) => reads(JSON.stringify(d))));
    const decimal = fc
      .tuple(fc.boolean(), fc.bigInt({ min: 0n, max: 10n ** 15n - 1n }), fc.integer({ min: -290, max: 290 }))
      .map(([negative, digits, exponent]) => `${negative ? "-" : ""}${digits}e${exponent}`);
    fc.assert(fc.property(decimal, reads));
  });

  it("does not depend on how the number is written", () => {
    for (const text of [
      "1234.5600000000000000",
      "0001234.56",
      "123456e-2",
      "0.0000000000000000000012345",
      "-0",
      "0.000e500",
      "5e-324",
      "1.7976931348623157e308",
    ])
      expect(reads(text), text).toBe(true);
  });

  it("is not a number whose digits or size 64 bits change", () => {
    for (const text of [
      "12345678901234567.89",
      "0.1234567890123456789",
      "9007199254740993",
      "79228162514264337593543950336",
      "1e400",
      "-1e400",
      "1e-400",
      "2.4703282292062328e-324",
    ])
      expect(reads(text), text).toBe(false);
  });
});

describe("a JSON text asked whether it may hold such a number", () => {
  const token = fc
    .tuple(
      fc.boolean(),
      fc.stringMatching(/^[1-9]\d{0,24}$/),
      fc.nat(25),
      fc.option(fc.integer({ min: -999, max: 999 })),
    )
    .map(([negative, digits, dot, exponent]) => {
      const at = Math.min(dot, digits.length);
      const mantissa = at === 0 || at === digits.length ? digits : `${digits.slice(0, at)}.${digits.slice(at)}`;
      return `${negative ? "-" : ""}${mantissa}${exponent === null ? "" : `e${exponent}`}`;
    });
  const contexts = [
    (t: string) => t,
    (t: string) => `{"a":${t}}`,
    (t: string) => `[1, \n ${t}]`,
    (t: string) => `{"Phone":"0612345678","b" :\t${t}}`,
  ];

  it("says yes for every number 64 bits do not keep, wherever it stands", () => {
    fc.assert(
      fc.property(token, fc.constantFrom(...contexts), (t, context) => reads(t) || jsonMayLoseDigits(context(t))),
      { numRuns: 5_000 },
    );
  });

  it("says no for long digits in strings, which most bodies have", () => {
    expect(
      jsonMayLoseDigits(
        '{"Phone":"0612345678","CocNumber":"30123456","Iban":"NL91ABNA0417164300","CreditLimit":1234.5}',
      ),
    ).toBe(false);
    expect(jsonMayLoseDigits('{"Note":"a: 12345678"}')).toBe(true);
  });
});

describe("the problem of a number not kept", () => {
  it("names what it would become, or that it is too large, and cuts a long text", () => {
    expect(lostDigits("CreditLimit", "0.1234567890123456789", 0.12345678901234568).message).toMatch(
      /^can not be kept exactly: 0\.1234567890123456789 would be stored as 0\.12345678901234568 \(/,
    );
    expect(lostDigits("", "1e400", Number.POSITIVE_INFINITY).message).toBe(
      "can not be kept: 1e400 is beyond the largest number the mock keeps (±1.7976931348623157e+308)",
    );
    expect(lostDigits("X", "1".repeat(1000), Number.POSITIVE_INFINITY).message).toContain(`${"1".repeat(40)}...`);
  });
});
