// Part of `npm run build`: the YAML the mock reads at every start, parsed once and kept as JSON
// under dist/yaml/, keyed by text and options (src/yaml-file.ts), so the compiled mock neither
// parses it nor loads the yaml package. The YAML stays the one hand-written source: an edit is
// read as YAML until the next build, never a stale copy.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { CONTRACT_ALIASES } from "../dist/src/contract/contract.js";
import { cacheKey, YAML_CACHE_DIR } from "../dist/src/yaml-file.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
/** Each file with the options its reader parses it with (loadContract, loadOAuth): the key holds them. */
const FILES = [
  ["openapi/openapi.yaml", { maxAliasCount: CONTRACT_ALIASES }],
  ["mock-data/oauth.yaml", {}],
  // Read by every worker of the suite (conformance/lib/requirements.ts): the fault matrix starts dozens.
  ["conformance/requirements.yaml", {}],
];

rmSync(YAML_CACHE_DIR, { recursive: true, force: true });
mkdirSync(YAML_CACHE_DIR, { recursive: true });
for (const [file, options] of FILES) {
  const text = readFileSync(resolve(root, file), "utf8");
  writeFileSync(resolve(YAML_CACHE_DIR, `${cacheKey(text, options)}.json`), JSON.stringify(parse(text, options)));
}
