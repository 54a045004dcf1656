// The mock's heap after start: collected once the seed is in, then kept close to what it holds.
import { setFlagsFromString } from "node:v8";
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
