import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "scripts/**/*.test.ts", "conformance/**/*.test.ts"],
    testTimeout: 20_000,
    // Two files at once even on two cores (vitest's default there is one): most of the long files
    // wait on processes they started (the mock, the suite, a browser), and one file at a time left
    // the cores idle while they waited. The unit lane took 10 min 25 s with one worker and 5 min
    // 42 s with two on the shared machine (about as loaded).
    maxWorkers: 2,
    // A worker runs file after file without starting afresh: a new process per file cost about
    // 1.3 CPU-s of the lane's ~600 each (72 files: 159 against 115 CPU-s of the workers' own,
    // 2026-11-27). A file that changes what a module reads when imported imports it afresh
    // (vi.resetModules) and forgets it after.
    isolate: false,
  },
});
