// `npm run bench:handle`: the mock's handle() in process, for each headline scenario of the bench,
// and bawa proxy's judge per exchange: µs per call and bytes allocated per call, with no socket,
// load generator or neighbour in the figure. The CPU per answer of `npm run bench` is this plus
// node:http, the kernel and the collector; a change to the hot path shows here first, and
// steadily. Figures, not tests.
//
// Run with a young generation large enough that no collection falls inside a measured stretch of
// calls (the npm script passes --max-semi-space-size and --expose-gc, to empty it first), so the
// heap's growth over it is what the calls allocated.
import { type Cost, handleCosts, judgeCosts } from "./bench-inprocess.ts";
import { PROXY_SCENARIOS } from "./bench-scenarios.ts";

const CALLS = Number(process.env.BENCH_HANDLE_CALLS ?? 20_000);

function print(title: string, costs: Cost[]): void {
  console.log(`${title}, ${CALLS.toLocaleString("en")} calls per round, median of 3 after a warm-up`);
  console.log(`${"scenario".padEnd(40)} ${"µs per call".padStart(12)} ${"bytes allocated per call".padStart(26)}`);
  for (const c of costs) {
    const bytes = c.bytes === undefined ? "n/a (a collection ran)" : Math.round(c.bytes).toLocaleString("en");
    console.log(`${c.scenario.padEnd(40)} ${c.us.toFixed(1).padStart(12)} ${bytes.padStart(26)}`);
  }
}

try {
  print("handle() in process", handleCosts());
  console.log("");
  print("bawa proxy's judge per exchange (judge, requestProblem, place)", judgeCosts(PROXY_SCENARIOS));
} catch (err) {
  console.error(`bench:handle: ${(err as Error).message}`);
  process.exit(1);
}
