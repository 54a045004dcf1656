import { getHeapStatistics } from "node:v8";
import { expect, it } from "vitest";
import { buildMock } from "../index.ts";
import { call, codeFlowTokens } from "../testing.ts";
import { collectGarbage, heapRoom, settleHeap, WRITES_UP_TO_HEAP_SHARE } from "./memory.ts";

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

it("has room for writes until live data fills its share of the heap, and says so then", () => {
  expect(heapRoom()(8 * 2 ** 20), "this process's heap is far from full").toBeUndefined();
  // A heap whose limit is what is used now: full as soon as it looks (past 4 MB of bodies).
  const used = getHeapStatistics().used_heap_size;
  const room = heapRoom(used, WRITES_UP_TO_HEAP_SHARE);
  expect(room(2_000), "a small write makes no look").toBeUndefined();
  const full = room(4 * 2 ** 20);
  expect(full).toMatch(
    /^the mock holds \d+ MB, near the most its heap keeps \(70 % of \d+ MB, A-LIMITS\): delete objects, or POST \/__mock\/reset/,
  );
  expect(room(10), "once full, every write looks again").toMatch(/^the mock holds/);
  expect(heapRoom(used * 100)(5 * 2 ** 20), "room again where the limit is far").toBeUndefined();
});

it("refuses creates and replacements without room with 400 naming why, and still reads and deletes", () => {
  let reason: string | undefined;
  const mock = buildMock({ room: () => reason });
  const auth = { authorization: `Bearer ${codeFlowTokens(mock).access_token}` };
  const body = { headers: { ...auth, "content-type": "application/json" }, body: '{"Name": "Vol"}' };
  const created = call(mock, "POST", "/v1/api/DEMO/Customer", body);
  expect(created.status).toBe(200);
  const id = created.json().CustomerId as number;
  reason = "the mock holds 700 MB, near the most its heap keeps";
  for (const [method, path] of [
    ["POST", "/v1/api/DEMO/Customer"],
    ["PUT", `/v1/api/DEMO/Customer/${id}`],
  ] as const) {
    const res = call(mock, method, path, body);
    expect(res.status, method).toBe(400);
    expect(res.meta?.code).toBe("resource.refused");
    expect(res.json().ModelState.customer).toEqual([reason]);
  }
  expect(call(mock, "GET", `/v1/api/DEMO/Customer/${id}`, { headers: auth }).status).toBe(200);
  expect(call(mock, "DELETE", `/v1/api/DEMO/Customer/${id}`, { headers: auth }).status).toBe(200);
});
