import { describe, expect, it } from "vitest";
import { Recent } from "./recent.ts";

describe("Recent", () => {
  it("reads a key once while it is among the last few, by identity", () => {
    const recent = new Recent<object, number>({ size: 2 });
    let reads = 0;
    const read = () => ++reads;
    const [a, b, c] = [{}, {}, {}];
    expect(recent.of(a, read)).toBe(1);
    expect(recent.of(b, read)).toBe(2);
    expect(recent.of(a, read)).toBe(1);
    // An equal object is another key.
    expect(recent.of({}, read)).toBe(3);
    // It took the oldest slot, a's: a is read again and takes b's, so b is read again too.
    expect(recent.of(a, read)).toBe(4);
    expect(recent.of(c, read)).toBe(5);
    expect(recent.of(b, read)).toBe(6);
    expect(reads).toBe(6);
  });

  it("keeps an undefined value as a value", () => {
    const recent = new Recent<object, undefined>({ size: 1 });
    let reads = 0;
    const key = {};
    recent.of(key, () => void reads++);
    recent.of(key, () => void reads++);
    expect(reads).toBe(1);
  });
});
