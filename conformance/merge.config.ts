// What `bawa conformance merge` hands to `playwright merge-reports`: the same
// reports as one run, written from the shards' blobs.
import { resolve } from "node:path";
import { defineConfig } from "@playwright/test";
import { reporters } from "./lib/reporters.ts";

export default defineConfig({
  reporter: reporters(resolve(process.env.CONFORMANCE_REPORTS_DIR ?? "reports/conformance")),
});
