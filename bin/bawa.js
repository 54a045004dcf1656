#!/usr/bin/env node
// Runs the TypeScript command line through tsx, so no build step is needed.
import { register } from "tsx/esm/api";

register();
// Output piped into `head` and closed early is not an error of ours.
process.stdout.on("error", (err) => {
  if (err.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw err;
});
const { main } = await import("../src/cli/bawa.ts");
process.exitCode = await main(process.argv.slice(2));
