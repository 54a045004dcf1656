#!/usr/bin/env node
// Runs the compiled command line (dist/, built by `npm run build`, which
// `npm ci` and `npm pack` run through `prepare`).
import { existsSync, readdirSync, statSync } from "node:fs";
import module from "node:module";

const entry = new URL("../dist/src/cli/bawa.js", import.meta.url);
if (!existsSync(entry)) {
  console.error("bawa: the compiled code (dist/) is missing; run `npm run build` in the package's folder");
  process.exit(1);
}
staleBuild();

/**
 * In a checkout (the TypeScript sources beside dist/), a source newer than the build means the
 * command would run old code: an edited fault switch would be an "unknown switch". Say so, once,
 * on standard error. An installed package ships no sources (its src/ holds the dashboard's
 * assets alone), and YAML is read as it is now at every start (src/yaml-file.ts), never built.
 */
function staleBuild() {
  const root = new URL("../", import.meta.url);
  if (!existsSync(new URL("src/cli/bawa.ts", root))) return;
  const built = statSync(entry).mtimeMs;
  let newest;
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const path = new URL(e.name + (e.isDirectory() ? "/" : ""), dir);
      if (e.isDirectory()) {
        if (e.name !== "generated") walk(path);
      } else if (/\.(ts|mjs)$/.test(e.name) && !e.name.endsWith(".test.ts")) {
        const m = statSync(path).mtimeMs;
        if (m > built && (!newest || m > newest.m)) newest = { m, path };
      }
    }
  };
  for (const dir of ["src/", "conformance/"]) if (existsSync(new URL(dir, root))) walk(new URL(dir, root));
  if (newest) {
    const changed = newest.path.href.slice(root.href.length);
    console.error(
      `bawa: the build (dist/) is older than ${changed}, changed since: this runs the old code; run \`npm run build\` first`,
    );
  }
}
/**
 * bawa's cache folder (src/user-cache.ts, decision 0041) is resolved once, here, and passed on as
 * an absolute BAWA_CACHE_DIR: the suite's runner and workers start in the package's folder, where
 * a relative one would name another. On Node.js 22.8 and later, Node's own compile cache is kept
 * in it too: the code V8 compiled for each module is read back at the next start, and the suite's
 * runner and each worker load Playwright's bundles, whose compile is a tenth or more of a short
 * run's CPU (decision 0040). Never Node's default folder in the shared temporary one, where
 * another user could plant code for it to run: user-cache.ts gives a folder only when no other
 * user can write to it or above it. NODE_COMPILE_CACHE names another, BAWA_CACHE_DIR=off keeps
 * nothing, NODE_DISABLE_COMPILE_CACHE=1 turns Node's off. It is passed on in the environment, so
 * the processes this one starts use it too. Node.js 20 has no compile cache.
 */
async function caches() {
  try {
    const { userCacheDir, kindFolder } = await import(new URL("../dist/src/user-cache.js", import.meta.url).href);
    process.env.BAWA_CACHE_DIR = userCacheDir() ?? "off";
    if (!module.enableCompileCache) return;
    const folder = process.env.NODE_COMPILE_CACHE ?? kindFolder("node-compile-cache", true);
    if (folder === undefined) return;
    const cache = module.enableCompileCache(folder);
    if (cache?.directory && process.env.NODE_COMPILE_CACHE === undefined)
      process.env.NODE_COMPILE_CACHE = cache.directory;
  } catch {
    // No folder to keep them in: everything is parsed and compiled as it always was.
  }
}
// Output piped into `head` and closed early is not an error of ours.
process.stdout.on("error", (err) => {
  if (err.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw err;
});
await caches();
const { main } = await import(entry.href);
process.exitCode = await main(process.argv.slice(2));
