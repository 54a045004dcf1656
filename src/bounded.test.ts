import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Bounded } from "./bounded.ts";
import { collectGarbage } from "./mock/node/memory.ts";

/**
 * The same map as a list, newest last: what Bounded must keep, however it finds its oldest. With a
 * weight limit, each value is its own weight.
 */
class Model {
  entries: Array<[string, number]> = [];
  constructor(
    readonly limit: number,
    readonly weightLimit = Number.POSITIVE_INFINITY,
  ) {}
  set(k: string, v: number) {
    this.entries = this.entries.filter(([key]) => key !== k);
    if (v > this.weightLimit) return;
    this.entries.push([k, v]);
    if (this.entries.length > this.limit) this.entries.shift();
    while (this.entries.reduce((sum, [, w]) => sum + w, 0) > this.weightLimit) this.entries.shift();
  }
  delete(k: string) {
    this.entries = this.entries.filter(([key]) => key !== k);
  }
}

type Op = { set: string; value: number } | { delete: string } | { clear: true };

/** One operation on the map and on its model alike. */
function apply(kept: Bounded<string, number>, model: Model, o: Op): void {
  if ("set" in o) {
    kept.set(o.set, o.value);
    model.set(o.set, o.value);
  } else if ("delete" in o) {
    kept.delete(o.delete);
    model.delete(o.delete);
  } else {
    kept.clear();
    model.entries = [];
  }
}

describe("Bounded", () => {
  it("forgets the entry least recently set, also when one key is set again and again", () => {
    const kept = new Bounded<string, number>(2);
    kept.set("a", 1).set("a", 2).set("b", 1).set("a", 3);
    kept.set("c", 1);
    expect([...kept.keys()]).toEqual(["a", "c"]);
    kept.set("c", 2).set("c", 3);
    kept.delete("c");
    kept.set("c", 4).set("d", 1);
    expect([...kept.entries()]).toEqual([
      ["c", 4],
      ["d", 1],
    ]);
  });

  it("keeps what a list of the newest entries keeps, over any sequence of sets, deletes and clears", () => {
    // Few keys, so that sets move keys the eviction walk has already passed or not yet reached.
    const key = fc.constantFrom(..."abcdefghij");
    const op: fc.Arbitrary<Op> = fc.oneof(
      { weight: 8, arbitrary: fc.record({ set: key, value: fc.nat(9) }) },
      { weight: 2, arbitrary: fc.record({ delete: key }) },
      { weight: 1, arbitrary: fc.constant({ clear: true as const }) },
    );
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.array(op, { maxLength: 80 }), (limit, ops) => {
        const kept = new Bounded<string, number>(limit);
        const model = new Model(limit);
        for (const o of ops) {
          apply(kept, model, o);
          expect([...kept.entries()]).toEqual(model.entries);
        }
      }),
      { numRuns: 500 },
    );
  });

  it("keeps what a list of the newest entries keeps by count and weight, over any sequence of sets, deletes and clears", () => {
    const key = fc.constantFrom(..."abcdefghij");
    const op: fc.Arbitrary<Op> = fc.oneof(
      { weight: 8, arbitrary: fc.record({ set: key, value: fc.nat(12) }) },
      { weight: 2, arbitrary: fc.record({ delete: key }) },
      { weight: 1, arbitrary: fc.constant({ clear: true as const }) },
    );
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 0, max: 20 }),
        fc.array(op, { maxLength: 80 }),
        (limit, weightLimit, ops) => {
          const kept = new Bounded<string, number>(limit, { limit: weightLimit, of: (v) => v });
          const model = new Model(limit, weightLimit);
          for (const o of ops) {
            apply(kept, model, o);
            expect([...kept.entries()]).toEqual(model.entries);
            expect(kept.weight).toBe(model.entries.reduce((sum, [, w]) => sum + w, 0));
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it("weighs an entry once, when it is set: a value that changes inside keeps its weight", () => {
    const kept = new Bounded<string, { size: number }>(10, { limit: 10, of: (v) => v.size });
    const grows = { size: 4 };
    kept.set("a", grows);
    grows.size = 9;
    kept.set("b", { size: 6 });
    expect([...kept.keys()]).toEqual(["a", "b"]);
    kept.delete("a");
    expect(kept.weight).toBe(6);
  });

  it("forgets the oldest of many in turn, long after the limit was first passed", () => {
    const kept = new Bounded<number, number>(1_000);
    for (let i = 0; i < 50_000; i++) kept.set(i, i);
    expect(kept.size).toBe(1_000);
    expect(kept.keys().next().value).toBe(49_000);
  });

  it("keeps no replaced table alive when its keys are only moved, long after an eviction", () => {
    // V8 links a replaced hash table to its successor; an iterator that is not moved on holds the
    // whole chain (13 MB more per 250,000 moves at a limit of 10,000, before the walk was dropped).
    const kept = new Bounded<number, number>(10_000);
    for (let i = 0; i <= 10_000; i++) kept.set(i, i);
    expect(kept.size).toBe(10_000);
    collectGarbage();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < 1_000_000; i++) kept.set(1 + (i % 10_000), i);
    collectGarbage();
    const grown = (process.memoryUsage().heapUsed - before) / 1024 / 1024;
    // The map is still in use here: collected with its tables, it would hide what it held.
    expect(kept.get(10_000)).toBe(999_999);
    expect(grown).toBeLessThan(10);
  });
});
