// The seed's customers are parsed a batch at a time (no 190 MB string at 100,000
// customers): whatever the file holds, the result must be what JSON.parse gives,
// or undefined so the caller parses it whole and reports the exact error.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { contractInUse } from "../contract/index.ts";
import { everyObject } from "./core/store.ts";
import { loadSeed, PROJECT_SEED_DIR, parseArrayInBatches, SeedError } from "./seed.ts";
import { seedFileItem as item } from "./testing.ts";

const dir = mkdtempSync(join(tmpdir(), "bawa-seed-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const file = (text: string) => {
  const path = join(dir, `${n++}.json`);
  writeFileSync(path, text);
  return path;
};

describe("parsing a seed file a batch at a time", () => {
  it("gives what JSON.parse gives, for any batch size and layout", () => {
    fc.assert(
      fc.property(
        fc.array(item, { maxLength: 40 }),
        fc.integer({ min: 1, max: 300 }),
        fc.integer({ min: 1, max: 300 }),
        fc.constantFrom(0, 2),
        (items, batch, piece, indent) => {
          const text = JSON.stringify(items, null, indent);
          expect(parseArrayInBatches(file(text), { batchBytes: batch, pieceBytes: piece })).toEqual(JSON.parse(text));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("hands each piece over in order, every element once", () => {
    fc.assert(
      fc.property(
        fc.array(item, { maxLength: 40 }),
        fc.integer({ min: 1, max: 300 }),
        fc.integer({ min: 1, max: 300 }),
        (items, batch, piece) => {
          const text = JSON.stringify(items);
          const seen: unknown[] = [];
          parseArrayInBatches(file(text), { batchBytes: batch, pieceBytes: piece, each: (b) => seen.push(...b) });
          expect(seen).toEqual(items);
        },
      ),
      { numRuns: 100 },
    );
  });

  it("parses a file of many elements a piece at a time, not a batch", () => {
    const items = Array.from({ length: 300 }, (_, i) => ({ Name: `customer ${i}`, City: "Utrecht" }));
    const sizes: number[] = [];
    const got = parseArrayInBatches(file(JSON.stringify(items)), {
      batchBytes: 4096,
      pieceBytes: 256,
      each: (b) => sizes.push(b.length),
    });
    expect(got).toEqual(items);
    // 256 bytes hold six of these elements (39-41 bytes each with the comma): a piece ends at the
    // first boundary after them.
    expect(Math.max(...sizes.slice(0, -1))).toBeLessThanOrEqual(8);
    expect(sizes.length).toBeGreaterThan(30);
  });

  it("cuts past an element whose nested objects begin with the elements' first key, and goes on a piece at a time", () => {
    const small = (i: number) => ({ Name: `customer ${i}`, City: "Utrecht" });
    // Forty boundaries inside one element, each a cut JSON.parse refuses.
    const big = { Name: "big", Lines: Array.from({ length: 40 }, (_, i) => ({ Name: `line ${i}` })) };
    const items = [
      ...Array.from({ length: 20 }, (_, i) => small(i)),
      big,
      ...Array.from({ length: 60 }, (_, i) => small(20 + i)),
    ];
    const pieces: unknown[][] = [];
    const got = parseArrayInBatches(file(JSON.stringify(items)), {
      batchBytes: 512,
      pieceBytes: 128,
      each: (elements) => pieces.push([...elements]),
    });
    expect(got).toEqual(items);
    // The sixty elements behind it come in pieces of a few, not in one at the end of the file.
    const withBig = pieces.findIndex((p) => p.some((e) => (e as { Name: string }).Name === "big"));
    expect(pieces.length - withBig - 1).toBeGreaterThan(10);
  });

  it("throws on what `each` throws, instead of answering undefined", () => {
    const stop = new Error("the caller's own");
    const text = JSON.stringify(Array.from({ length: 20 }, (_, i) => ({ Name: `n${i}` })));
    expect(() =>
      parseArrayInBatches(file(text), {
        batchBytes: 40,
        each: () => {
          throw stop;
        },
      }),
    ).toThrow(stop);
  });

  it.each([
    ["not an array", '{"Name":"x"}'],
    ["cut short", '[{"Name":"a"},{"Name":"b"'],
    ["not JSON", "[{Name: a}]"],
    ["empty", ""],
  ])("answers undefined for a file that is %s, so the caller reports JSON.parse's error", (_n, text) => {
    expect(parseArrayInBatches(file(text), { batchBytes: 8 })).toBeUndefined();
  });
});

describe("a seed file's objects, checked as each batch is parsed", () => {
  const contract = contractInUse();
  const customers = contract.resources.collections.find((c) => c.name === "Customer")!;
  const idProperty = customers.idProperty!;
  // The project's own customer, so the objects fit whatever the contract says of them.
  const base = (
    JSON.parse(readFileSync(join(PROJECT_SEED_DIR, "Customer/DEMO.json"), "utf8")) as Array<Record<string, unknown>>
  )[0]!;
  // More than one batch of 8 MB, so the object counted is one the first batch did not hold.
  const many = (n: number) => Array.from({ length: n }, (_, i) => ({ ...base, [idProperty]: String(100000 + i) }));
  const seedWith = (objects: unknown[]) => {
    const root = join(dir, `seed-${n++}`);
    mkdirSync(join(root, "Customer"), { recursive: true });
    const text = JSON.stringify(objects);
    writeFileSync(join(root, "Customer/DEMO.json"), text);
    return { root, bytes: text.length };
  };
  const failure = (root: string) => {
    try {
      loadSeed(contract, root, { warn: () => {} });
    } catch (err) {
      return err;
    }
    return undefined;
  };

  it("names the first object that does not fit, counting from 1 over every batch", () => {
    const objects = many(6000);
    objects[5000] = { ...objects[5000]!, CreditLimit: "lots" };
    const { root, bytes } = seedWith(objects);
    expect(bytes).toBeGreaterThan(8 * 2 ** 20);
    const err = failure(root);
    expect(err).toBeInstanceOf(SeedError);
    expect((err as Error).message).toMatch(
      /object 5001 \(counting from 1\) does not fit the contract's Customer: CreditLimit /,
    );
  });

  it("names an id an earlier batch already used", () => {
    const objects = many(6000);
    objects[5500] = { ...objects[5500]!, [idProperty]: objects[10]![idProperty] };
    const err = failure(seedWith(objects).root);
    expect(err).toBeInstanceOf(SeedError);
    expect((err as Error).message).toContain(
      `object 5501 (counting from 1) needs a unique, non-empty ${idProperty} (got "100010")`,
    );
  });

  it.each([
    ["is not JSON", "[{", /is not valid JSON/],
    ["holds no array", '{"a":1}', /must hold an array of Customer objects/],
  ])("stops at a file that %s", (_n, text, message) => {
    const root = join(dir, `seed-${n++}`);
    mkdirSync(join(root, "Customer"), { recursive: true });
    writeFileSync(join(root, "Customer/DEMO.json"), text);
    const err = failure(root);
    expect(err).toBeInstanceOf(SeedError);
    expect((err as Error).message).toMatch(message);
  });

  it("keeps every object of a file that fits", () => {
    const { root } = seedWith(many(6000));
    const seed = loadSeed(contract, root, { warn: () => {} });
    expect(everyObject(seed.objects.Customer!.DEMO!())).toHaveLength(6000);
  });
});
