// The reports of a run, shared by a whole run, a shard (which adds its blob)
// and the merge of shards (conformance/merge.config.ts), so a merged verdict
// is written exactly as an unsharded one.
import { resolve } from "node:path";
import type { ReporterDescription } from "@playwright/test";
import { codePath } from "../../src/paths.ts";

export const matrixReporter = codePath("conformance/lib/matrix-reporter.ts");
/** First of every list: it takes the run's secrets out of what the reporters after it see and write. */
export const redactionReporter = codePath("conformance/lib/redaction-reporter.ts");

/** The file name of a shard's blob ("2/3": shard-2-of-3.zip): what `bawa conformance merge` looks for. */
export const blobName = (shard: string) => `shard-${shard.replace("/", "-of-")}.zip`;
/** Whether a file name is a shard's blob: not any zip (a run's traces and attachments are zips too). */
export const isBlobName = (name: string) => /^shard-\d+-of-\d+\.zip$/.test(name);

/** The reporters writing into `reports`; a shard ("2/3") also writes its blob for the merge. */
export function reporters(reports: string, shard?: string): ReporterDescription[] {
  return [
    [redactionReporter, { outputDir: reports }],
    [process.env.CI ? "line" : "list"],
    ["html", { outputFolder: resolve(reports, "html"), open: "never" }],
    ["junit", { outputFile: resolve(reports, "junit.xml") }],
    ["json", { outputFile: resolve(reports, "results.json") }],
    [matrixReporter, { outputDir: reports }],
    ...(shard ? [["blob", { outputDir: resolve(reports, "blob"), fileName: blobName(shard) }] as const] : []),
  ];
}
