// The record scripts/build.mjs compares to decide whether tsc must run: every file under some
// paths, by its path from the root, with its size and modification time.
import { readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";

/**
 * What tsc reads for dist/ (tsconfig.build.json's include, its configs) and what decides its
 * output (the lock file, the compiler's own version as installed).
 */
export const BUILD_INPUTS = [
  "src",
  "conformance",
  "scripts/ensure-browser.mjs",
  "tsconfig.json",
  "tsconfig.build.json",
  "package.json",
  "package-lock.json",
  "node_modules/typescript/package.json",
];

/**
 * What tsc writes (dist/yaml is the YAML cache's, rewritten at every build; dist/validators the
 * validators' code, kept by its key).
 */
export const BUILD_OUTPUTS = ["dist/src", "dist/conformance", "dist/scripts"];

/**
 * A text that differs whenever a file under `paths` (files or folders, from `root`) was added,
 * removed, or changed in size or modification time (to the millisecond): a file put back with an
 * older time included.
 * A path that does not exist is left out.
 */
export function inputsRecord(root, paths) {
  const out = {};
  const visit = (path) => {
    const stat = statSync(path, { throwIfNoEntry: false });
    if (!stat) return;
    if (stat.isDirectory()) {
      for (const name of readdirSync(path).sort()) visit(join(path, name));
    } else {
      // Rounded to the millisecond, as node:fs rounds a time into a Date: a time put back through
      // its Date (src/cli/cli.test.ts moves a source's time and restores it) is the same time.
      out[relative(root, path).split("\\").join("/")] = [stat.size, Math.round(stat.mtimeMs)];
    }
  };
  for (const path of paths) visit(join(root, path));
  return JSON.stringify(out);
}
