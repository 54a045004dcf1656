#!/usr/bin/env node
// Runs the compiled command line (dist/, built by `npm run build`, which
// `npm ci` and `npm pack` run through `prepare`).
import { existsSync } from "node:fs";

const entry = new URL("../dist/src/cli/bawa.js", import.meta.url);
if (!existsSync(entry)) {
  console.error("bawa: the compiled code (dist/) is missing; run `npm run build` in the package's folder");
  process.exit(1);
}
// Output piped into `head` and closed early is not an error of ours.
process.stdout.on("error", (err) => {
  if (err.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw err;
});
const { main } = await import(entry.href);
process.exitCode = await main(process.argv.slice(2));
