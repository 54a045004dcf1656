// A large seed file is kept as its bytes, each object parsed when first read, and where each lies
// is kept in the user's cache folder (decision 0042). Whatever the file holds, the objects must be
// what JSON.parse gives; a kept index must never stand for other bytes or another check.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { contractInUse } from "../contract/index.ts";
import { CACHE_DIR_ENV } from "../user-cache.ts";
import { everyObject, ObjectStore, type StoredObject } from "./core/store.ts";
import { loadSeed, PROJECT_SEED_DIR, SeedError } from "./seed.ts";
import {
  decodeIndex,
  encodeIndex,
  indexElements,
  LAZY_FROM_BYTES,
  type SeedIndex,
  unreadObjects,
} from "./seed-index.ts";
import { seedFileItem as item } from "./testing.ts";

const dir = mkdtempSync(join(tmpdir(), "bawa-seed-index-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

const contract = contractInUse();
const customers = contract.resources.collections.find((c) => c.name === "Customer")!;
const idProperty = customers.idProperty!;
const [sequence] = customers.sequences;

/** Indexes a text as the first start does, giving the elements and the index. */
function indexOf(text: string) {
  const bytes = Buffer.from(text);
  const elements: unknown[] = [];
  const spans = indexElements(bytes, (e) => elements.push(e));
  return { bytes, elements, spans };
}

describe("finding a file's elements", () => {
  it("gives JSON.parse's elements in order, each span's text parsing to its element, spaced or not", () => {
    fc.assert(
      fc.property(
        fc.array(item, { minLength: 1, maxLength: 40 }),
        fc.constantFrom("", "\n", " \n"),
        fc.constantFrom(0, 2, "\t"),
        (items, around, indent) => {
          const text = `${around}${JSON.stringify(items, null, indent)}${around}`;
          const { bytes, elements, spans } = indexOf(text);
          expect(spans).toBeDefined();
          expect(elements).toEqual(items);
          const read = unreadObjects(bytes, { starts: spans!.starts, ends: spans!.ends, ids: [], sequences: {} });
          expect(Array.from({ length: read.count }, (_, i) => read.read(i))).toEqual(items);
        },
      ),
      { numRuns: 300 },
    );
  });

  it.each([
    ["whose objects begin with other keys", '[{"Name":"a"},{"City":"b"}]'],
    [
      "with an object holding more objects that begin with its first key than cuts are tried",
      JSON.stringify([{ Name: "a", Addresses: Array.from({ length: 70 }, (_, i) => ({ Name: i })) }]),
    ],
    ["not an array", '{"Name":"x"}'],
    ["an array of numbers", "[1,2]"],
    ["empty", "[]"],
    ["cut short", '[{"Name":"a"},{"Name":"b"'],
    ["not JSON in an element", '[{"Name":"a"},{"Name":b}]'],
    ["more after the array", '[{"Name":"a"}] x'],
    ["two elements without a comma", '[{"Name":"a"}{"Name":"b"}]'],
  ])("answers undefined for a file %s: it is read as a small one, which names the error", (_n, text) => {
    expect(indexOf(text).spans).toBeUndefined();
  });

  it("throws what `each` throws", () => {
    const stop = new Error("the caller's own");
    expect(() =>
      indexElements(Buffer.from('[{"Name":"a"},{"Name":"b"}]'), () => {
        throw stop;
      }),
    ).toThrow(stop);
  });
});

describe("a kept index", () => {
  const text = JSON.stringify([
    { Name: "a", CustomerId: "1" },
    { Name: "b", CustomerId: "2" },
  ]);
  const { bytes, spans } = indexOf(text);
  const index: SeedIndex = { ...spans!, ids: ["1", "2"], sequences: { OrganizationId: 8 } };

  it("reads back as it was kept", () => {
    expect(decodeIndex(encodeIndex(index), bytes, customers)).toEqual(index);
  });

  it.each([
    ["cut short", (kept: Buffer) => kept.subarray(0, kept.length - 8)],
    ["with a span moved off its object", (kept: Buffer) => (kept.writeDoubleLE(2, kept.length - 16), kept)],
    ["with a span past the file's end", (kept: Buffer) => (kept.writeDoubleLE(1e9, kept.length - 8), kept)],
    ["with a header that is not JSON", (kept: Buffer) => (kept.write("}", 4), kept)],
    ["empty", () => Buffer.alloc(0)],
  ])("is not used when it is %s", (_n, spoil) => {
    expect(decodeIndex(spoil(encodeIndex(index)), bytes, customers)).toBeUndefined();
  });

  it("is not used for a collection that keys its objects otherwise (ids for none, or none for some)", () => {
    expect(decodeIndex(encodeIndex({ ...index, ids: ["1"] }), bytes, customers)).toBeUndefined();
  });
});

describe("a large seed file", () => {
  const base = (
    JSON.parse(readFileSync(join(PROJECT_SEED_DIR, "Customer/DEMO.json"), "utf8")) as Array<Record<string, unknown>>
  )[0]!;
  // Just over LAZY_FROM_BYTES.
  const count = Math.ceil((LAZY_FROM_BYTES * 1.05) / JSON.stringify(base).length);
  const many = () =>
    Array.from({ length: count }, (_, i) => ({
      ...base,
      [idProperty]: String(100000 + i),
      ...(sequence ? { [sequence]: i + 1 } : {}),
    }));
  let cache: string;
  const before = process.env[CACHE_DIR_ENV];
  beforeEach(() => {
    cache = join(dir, `cache-${n++}`);
    process.env[CACHE_DIR_ENV] = cache;
  });
  afterEach(() => {
    if (before === undefined) delete process.env[CACHE_DIR_ENV];
    else process.env[CACHE_DIR_ENV] = before;
    vi.restoreAllMocks();
  });
  const seedWith = (objects: unknown[]) => {
    const root = join(dir, `seed-${n++}`);
    mkdirSync(join(root, "Customer"), { recursive: true });
    const text = JSON.stringify(objects);
    expect(text.length).toBeGreaterThan(LAZY_FROM_BYTES);
    writeFileSync(join(root, "Customer/DEMO.json"), text);
    return root;
  };
  const kept = () => {
    try {
      return readdirSync(join(cache, "seed-index"));
    } catch {
      return [];
    }
  };
  /** Loads the folder, counting the contract's checks of stored objects. */
  const load = (root: string) => {
    const check = vi.spyOn(contract.answers, "check");
    try {
      const seed = loadSeed(contract, root, { warn: () => {} });
      return { objects: seed.objects.Customer!.DEMO!(), checks: check.mock.calls.length };
    } finally {
      check.mockRestore();
    }
  };

  it("is checked whole at its first start and its index kept; the next start checks nothing and reads the same", () => {
    const objects = many();
    const root = seedWith(objects);
    const first = load(root);
    expect(first.checks).toBe(count);
    expect(kept()).toHaveLength(1);
    const again = load(root);
    expect(again.checks).toBe(0);
    expect(everyObject(again.objects)).toEqual(objects);
    expect(everyObject(first.objects)).toEqual(objects);
  });

  it("edited, even to the same length, is checked again and stops the start when an object no longer fits", () => {
    const objects = many();
    const root = seedWith(objects);
    load(root);
    const file = join(root, "Customer/DEMO.json");
    const text = readFileSync(file, "utf8");
    // CreditLimit 5000 becomes a text of as many bytes: the file's size and shape unchanged.
    const at = text.lastIndexOf('"CreditLimit":');
    const spoiled = `${text.slice(0, at)}"CreditLimit":"50"${text.slice(at + '"CreditLimit":5000'.length)}`;
    expect(spoiled.length).toBe(text.length);
    writeFileSync(file, spoiled);
    expect(() => load(root)).toThrow(SeedError);
    expect(() => load(root)).toThrow(
      new RegExp(`object ${count} \\(counting from 1\\) does not fit the contract's Customer: CreditLimit `),
    );
  });

  it("names an id used twice, as a small file does", () => {
    const objects = many();
    objects[count - 1] = { ...objects[count - 1]!, [idProperty]: objects[3]![idProperty] };
    expect(() => load(seedWith(objects))).toThrow(
      `object ${count} (counting from 1) needs a unique, non-empty ${idProperty} (got "100003")`,
    );
    expect(kept()).toEqual([]);
  });

  it("is read the same with no cache folder, checked at every start", () => {
    process.env[CACHE_DIR_ENV] = "off";
    const objects = many();
    const root = seedWith(objects);
    expect(load(root).checks).toBe(count);
    const again = load(root);
    expect(again.checks).toBe(count);
    expect(everyObject(again.objects)).toEqual(objects);
  });

  it("is stored unread: the store answers as from parsed objects, and lets the bytes go once every one is read", () => {
    const objects = many();
    const root = seedWith(objects);
    load(root);
    const store = new ObjectStore(contract.resources, {
      Customer: { DEMO: () => loadSeed(contract, root, { warn: () => {} }).objects.Customer!.DEMO!() },
    });
    const last = objects[count - 1]!;
    expect(store.size("Customer", "DEMO")).toBe(count);
    expect(store.get("Customer", "DEMO", String(last[idProperty]))).toEqual(last);
    // Counters as if each object had been stored parsed: the next free id, the next sequence.
    const made = store.create("Customer", "DEMO", { Name: "new" });
    expect(made.ok && made.object[idProperty]).toBe(String(100000 + count));
    if (sequence) expect(made.ok && made.object[sequence]).toBe(count + 1);
    expect(store.create("Customer", "DEMO", { [idProperty]: "100001", Name: "taken" })).toMatchObject({ ok: false });
    expect(store.delete("Customer", "DEMO", "100002")).toBe(true);
    const list = store.list("Customer", "DEMO");
    expect(list.map((o) => o[idProperty])).toEqual([
      ...objects.filter((_, i) => i !== 2).map((o) => o[idProperty]),
      String(100000 + count),
    ]);
    expect(list.slice(0, 2)).toEqual(objects.slice(0, 2));
    // A reset reads the file again: the deleted object is back, the created one gone.
    store.reset();
    expect(store.get("Customer", "DEMO", "100002")).toEqual(objects[2]);
    expect(store.size("Customer", "DEMO")).toBe(count);
  });

  it("an object's bytes are let go after the last is read, and reading one again is a named error", () => {
    const text = JSON.stringify([{ Name: "a" }, { Name: "b" }]);
    const { bytes, spans } = indexOf(text);
    const allRead = vi.fn();
    const read = unreadObjects(bytes, { ...spans!, ids: [], sequences: {} }, allRead);
    read.read(1);
    read.read(1);
    expect(allRead).not.toHaveBeenCalled();
    expect(read.read(0) satisfies StoredObject).toEqual({ Name: "a" });
    expect(allRead).toHaveBeenCalledTimes(1);
    expect(() => read.read(0)).toThrow(/object 0 read again after every object of its file was read/);
  });
});
