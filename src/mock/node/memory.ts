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

/**
 * Loading a large seed leaves the heap at its peak, about twice the live data at 100,000
 * customers, and V8 keeps it until the process has been idle for a while; under load, it lets
 * the heap grow to up to four times what is live before it collects. A mock shared by a team
 * runs for hours, so after start it collects once and lets the heap grow by a fifth between
 * collections. That costs more frequent collections only when the heap is large.
 */
export function settleHeap(): void {
  setFlagsFromString("--heap-growing-percent=20");
  collectGarbage();
}
