import { expect, it } from "vitest";
import { collectGarbage, settleHeap } from "./memory.ts";

it("collects garbage on demand, without --expose-gc", () => {
  collectGarbage();
  const before = process.memoryUsage().heapUsed;
  let garbage: number[][] | undefined = Array.from({ length: 200 }, () =>
    Array.from({ length: 50_000 }, (_, i) => i + 0.5),
  );
  expect(process.memoryUsage().heapUsed - before).toBeGreaterThan(50 * 2 ** 20);
  expect(garbage.length).toBe(200);
  garbage = undefined;
  collectGarbage();
  expect(process.memoryUsage().heapUsed - before).toBeLessThan(10 * 2 ** 20);
});

it("holds the heap's growth only when what is live is large", () => {
  expect(settleHeap(Number.MAX_SAFE_INTEGER), "a small heap keeps V8's own growth").toBe(false);
  expect(settleHeap(0), "a heap above the threshold is held").toBe(true);
});
