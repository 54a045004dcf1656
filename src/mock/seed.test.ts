// The seed's customers are parsed a batch at a time (no 190 MB string at 100,000
// customers): whatever the file holds, the result must be what JSON.parse gives,
// or undefined so the caller parses it whole and reports the exact error.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { parseArrayInBatches } from "./seed.ts";

const dir = mkdtempSync(join(tmpdir(), "bawa-seed-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const file = (text: string) => {
  const path = join(dir, `${n++}.json`);
  writeFileSync(path, text);
  return path;
};

// Objects whose first key comes back inside nested objects and inside strings, so batch cuts
// land where they must be refused.
const tricky = fc.oneof(
  fc.constant('},{"Name"'),
  fc.constant("},"),
  fc.string({ maxLength: 12 }),
  fc.constantFrom("é", "€", "😀", "\\", '"'),
);
const item = fc.record({
  Name: fc.array(tricky, { maxLength: 3 }).map((parts) => parts.join("")),
  Addresses: fc.array(fc.record({ Name: tricky, City: fc.string({ maxLength: 5 }) }), { maxLength: 3 }),
  CreditLimit: fc.oneof(fc.integer(), fc.constant(null)),
});

describe("parsing a seed file a batch at a time", () => {
  it("gives what JSON.parse gives, for any batch size and layout", () => {
    fc.assert(
      fc.property(
        fc.array(item, { maxLength: 40 }),
        fc.integer({ min: 1, max: 300 }),
        fc.constantFrom(0, 2),
        (items, batch, indent) => {
          const text = JSON.stringify(items, null, indent);
          expect(parseArrayInBatches(file(text), batch)).toEqual(JSON.parse(text));
        },
      ),
      { numRuns: 300 },
    );
  });

  it.each([
    ["not an array", '{"Name":"x"}'],
    ["cut short", '[{"Name":"a"},{"Name":"b"'],
    ["not JSON", "[{Name: a}]"],
    ["empty", ""],
  ])("answers undefined for a file that is %s, so the caller reports JSON.parse's error", (_n, text) => {
    expect(parseArrayInBatches(file(text), 8)).toBeUndefined();
  });
});
