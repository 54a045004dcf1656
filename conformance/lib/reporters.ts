// The reports of a run, shared by a whole run, a shard (which adds its blob)
// and the merge of shards (conformance/merge.config.ts), so a merged verdict
// is written exactly as an unsharded one.
import { dirname, extname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { ReporterDescription } from "@playwright/test";

const self = fileURLToPath(import.meta.url);
// The reporter is compiled beside this file (dist/) or run from the sources (.ts).
export const matrixReporter = resolve(dirname(self), `matrix-reporter${extname(self)}`);

/** The reporters writing into `reports`; a shard ("2/3") also writes its blob for the merge. */
export function reporters(reports: string, shard?: string): ReporterDescription[] {
  return [
    [process.env.CI ? "line" : "list"],
    ["html", { outputFolder: resolve(reports, "html"), open: "never" }],
    ["junit", { outputFile: resolve(reports, "junit.xml") }],
    ["json", { outputFile: resolve(reports, "results.json") }],
    [matrixReporter, { outputDir: reports }],
    ...(shard
      ? [
          [
            "blob",
            { outputDir: resolve(reports, "blob"), fileName: `shard-${shard.replace("/", "-of-")}.zip` },
          ] as const,
        ]
      : []),
  ];
}
