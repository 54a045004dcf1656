import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { propertyGivenTwice } from "./format.ts";

/** What decodeBody asks of a text. */
const ask = (text: string) => propertyGivenTwice(text, JSON.parse(text));

describe("a JSON property given twice", () => {
  it.each([
    ['{"Name":"a","Name":"b"}', "Name"],
    ['{ "Name" : "a" , "Email":"x:y", "Name" : "b:c" }', "Name"],
    ['{"Name":"x","Addresses":[{"City":"a"},{"City":"b","Street":"s","City":"c"}]}', "Addresses.1.City"],
    ['{"Addresses":{"a:b":{"c":1,"c":2}}}', "Addresses.a:b.c"],
    // An escape writes the same name, or a colon the text does not show.
    ['{"Name":"a","N\\u0061me":"b"}', "Name"],
    ['{"Email":"x","Name":"\\u003a","Name":":"}', "Name"],
  ])("%s names %s", (text, path) => {
    expect(ask(text)).toBe(path);
  });

  it("is found in no JSON text that gives each name once, and in every one that repeats a name", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (value) => {
        const text = JSON.stringify(value);
        expect(ask(text)).toBeUndefined();
        // The same text with its first property given again, ahead of the others.
        const first = /^\{("(?:[^"\\]|\\.)*"):/.exec(text);
        if (first) {
          const again = `{${first[1]}:null,${text.slice(1)}`;
          expect(ask(again)).toBe(JSON.parse(first[1]!));
        }
      }),
      { numRuns: 2_000 },
    );
  });
});
