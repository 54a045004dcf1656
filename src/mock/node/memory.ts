// The mock's heap after start: collected once the seed is in, then kept close to what it holds.
import { getHeapStatistics, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

let gc: (() => void) | undefined;

/** Collects garbage now, without Node.js started with --expose-gc. */
export function collectGarbage(): void {
  if (!gc) {
    // Exposed in a fresh context, where the flag is read: the way the expose-gc package does it.
    setFlagsFromString("--expose-gc");
    gc = runInNewContext("gc") as () => void;
  }
  gc();
}

/** Live data from which the heap's growth is held to a fifth (decision 0014). */
export const SETTLE_FROM_BYTES = 100 * 2 ** 20;

/**
 * Loading a large seed leaves the heap at its peak, about twice the live data at 100,000
 * customers, and V8 keeps it until the process has been idle for a while; under load, it lets
 * the heap grow to up to four times what is live before it collects. A mock shared by a team
 * runs for hours, so after start it collects once and, when what is live is large, lets the heap
 * grow by a fifth between collections. A small heap keeps V8's own growth: held to a fifth, it
 * collected so often that every answer paid for it (decision 0014). Answers whether it held it.
 */
export function settleHeap(threshold = SETTLE_FROM_BYTES): boolean {
  collectGarbage();
  if (process.memoryUsage().heapUsed < threshold) return false;
  setFlagsFromString("--heap-growing-percent=20");
  return true;
}

/**
 * settleHeap() a second after start (not among the first answers: at 100,000 customers the
 * collection pauses the mock for a few hundred milliseconds), then once a minute until it holds
 * the heap, for a mock that grows large while it runs. The check costs nothing until the heap
 * holds more than the threshold.
 */
export function keepHeapSettled(): void {
  const settle = () => {
    if (process.memoryUsage().heapUsed >= SETTLE_FROM_BYTES && settleHeap()) clearInterval(timer);
  };
  setTimeout(settle, 1000).unref();
  const timer = setInterval(settle, 60_000);
  timer.unref();
}

/** The share of the heap's limit live data may fill before writes are refused (A-LIMITS). */
export const WRITES_UP_TO_HEAP_SHARE = 0.7;
/** Bytes of bodies written between two looks at the heap: the most a look can miss. */
const LOOK_EVERY_BYTES = 4 * 2 ** 20;
/** The least time between two collections made to see what is live (each pauses the mock). */
const COLLECT_EVERY_MS = 5_000;

const mb = (bytes: number) => Math.round(bytes / 2 ** 20);

/**
 * Whether the mock has room for a write of `bytes`, for MockContext.room: the reason it has not,
 * else undefined. The caps of A-LIMITS count objects, and one client with a token could fill the
 * heap with objects of half a megabyte each (50 addresses, every text at its longest in 4-byte
 * characters) until the process died with every client's data in it; so past a share of the
 * heap's limit, creates and replacements are refused (reads and deletes go on). The heap is
 * looked at once per LOOK_EVERY_BYTES of bodies (a look costs about a microsecond; most writes
 * make none). Past the share, garbage may be most of it: a collection shows what is live, at
 * most once per COLLECT_EVERY_MS, and each write looks again, so room made by deletes is seen.
 */
export function heapRoom(
  limit = getHeapStatistics().heap_size_limit,
  share = WRITES_UP_TO_HEAP_SHARE,
): (bytes: number) => string | undefined {
  let written = 0;
  let full = false;
  let collected = Number.NEGATIVE_INFINITY;
  return (bytes) => {
    written += bytes;
    if (!full && written < LOOK_EVERY_BYTES) return undefined;
    written = 0;
    let used = getHeapStatistics().used_heap_size;
    if (used >= limit * share && Date.now() - collected >= COLLECT_EVERY_MS) {
      collectGarbage();
      collected = Date.now();
      used = getHeapStatistics().used_heap_size;
    }
    full = used >= limit * share;
    return full
      ? `the mock holds ${mb(used)} MB, near the most its heap keeps (${Math.round(share * 100)} % of ${mb(limit)} MB, A-LIMITS): delete objects, or POST /__mock/reset, or start it with more (NODE_OPTIONS=--max-old-space-size=<MB>)`
      : undefined;
  };
}
