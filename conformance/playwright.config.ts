// The conformance suite's Playwright configuration. Run it through
// `npm run conformance` (which starts the project's mock when no target is
// given), or directly with CONFORMANCE_* variables set.
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "@playwright/test";
import { chromiumLaunchOptions } from "../src/browser.ts";
import type { Kind } from "./lib/config.ts";
import { kindGrep } from "./lib/requirements.ts";

const here = dirname(fileURLToPath(import.meta.url));
// A run may write elsewhere (the fault matrix gives every fault its own folder).
const reports = process.env.CONFORMANCE_REPORTS_DIR ?? resolve(here, "../reports/conformance");
const kinds = (process.env.CONFORMANCE_KINDS ?? "spec,oauth").split(",").map((k) => k.trim()) as Kind[];

export default defineConfig({
  testDir: resolve(here, "checks"),
  outputDir: resolve(reports, "test-results"),
  // One worker, in order: some checks move the target's clock, which every token feels.
  workers: 1,
  fullyParallel: false,
  retries: 0,
  timeout: 90_000,
  grep: kindGrep(kinds),
  // CONFORMANCE_REPORTS=matrix keeps only the matrix (the fault matrix runs the suite many times).
  reporter:
    process.env.CONFORMANCE_REPORTS === "matrix"
      ? [[resolve(here, "lib/matrix-reporter.ts"), { outputDir: reports, quiet: true }]]
      : [
          [process.env.CI ? "line" : "list"],
          ["html", { outputFolder: resolve(reports, "html"), open: "never" }],
          ["junit", { outputFile: resolve(reports, "junit.xml") }],
          ["json", { outputFile: resolve(reports, "results.json") }],
          [resolve(here, "lib/matrix-reporter.ts"), { outputDir: reports }],
        ],
  use: {
    launchOptions: chromiumLaunchOptions(),
    actionTimeout: 15_000,
    navigationTimeout: 20_000,
    trace: "retain-on-failure",
  },
});
