// The figures README's proxy section states are the code's: a limit changed in
// the code and not in the README (or the other way) fails here.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../paths.ts";
import { PER_CLIENT, POOL_SIZE } from "./fair.ts";
import { JUDGE_LIMIT_BYTES, TARGET_TIMEOUT_MS } from "./node.ts";
import { MAX_PAST_BOUND_NAMED, MAX_RECORDING_BYTES, WRITE_BYTES_PER_SECOND, WRITE_DELAY_MS } from "./record.ts";

const README = readFileSync(resolve(PROJECT_ROOT, "README.md"), "utf8").replace(/\s+/g, " ");
const MiB = 1024 * 1024;

describe("the README's proxy figures", () => {
  it("are the code's", () => {
    for (const figure of [
      `Each client address may have ${PER_CLIENT} requests at the target at once, a quarter of the proxy's ${POOL_SIZE} upstream sockets`,
      `only up to ${JUDGE_LIMIT_BYTES / MiB} MiB`,
      `(504 when it takes over ${TARGET_TIMEOUT_MS / 1000} s to connect, to begin its answer or between two parts of it)`,
      `A request body over ${JUDGE_LIMIT_BYTES / MiB} MiB and an answer over ${JUDGE_LIMIT_BYTES / MiB} MiB`,
      `A recording holds at most ${MAX_RECORDING_BYTES / MiB} MiB of objects`,
      `(the first ${MAX_PAST_BOUND_NAMED.toLocaleString("en")}, and how many answers showed them)`,
      `at the soonest ${WRITE_DELAY_MS} ms after a change, and after a write of N bytes not again for N / ${WRITE_BYTES_PER_SECOND / MiB} MiB per second`,
    ]) {
      expect(README).toContain(figure);
    }
    expect(PER_CLIENT * 4).toBe(POOL_SIZE);
  });
});
