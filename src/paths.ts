import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The folder that holds package.json, openapi/ and mock-data/: the nearest one
 * above this file, so the same code finds it from src/ (tests, tsx) and from
 * dist/src/ (the compiled command line, an installed package).
 */
export const PROJECT_ROOT = (() => {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(resolve(dir, "package.json"))) {
    const up = dirname(dir);
    if (up === dir) throw new Error(`no package.json above ${fileURLToPath(import.meta.url)}`);
    dir = up;
  }
  return dir;
})();

/** The project's own contract, the one the TypeScript types are generated from. */
export const PROJECT_CONTRACT_PATH = resolve(PROJECT_ROOT, "openapi/openapi.yaml");
/**
 * The contract in use: BAWA_CONTRACT (a team's own, as every command reads it), else the
 * project's. The tests read it too, so they hold on a contract that gains a resource.
 */
export const CONTRACT_PATH = process.env.BAWA_CONTRACT ? resolve(process.env.BAWA_CONTRACT) : PROJECT_CONTRACT_PATH;

/** ".ts" when running from the sources, ".js" when compiled: for files handed to another process by path. */
export const SOURCE_EXTENSION = fileURLToPath(import.meta.url).endsWith(".ts") ? ".ts" : ".js";

/** The compiled code's folder for a path of the sources, or the source itself when running from sources. */
export const codePath = (path: string): string =>
  SOURCE_EXTENSION === ".ts"
    ? resolve(PROJECT_ROOT, path)
    : resolve(PROJECT_ROOT, "dist", path.replace(/\.ts$/, ".js"));
