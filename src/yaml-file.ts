// YAML read at every start (the contract, mock-data/oauth.yaml), through a cache the build fills
// (scripts/yaml-cache.mjs). Parsing the contract, and loading the yaml package at all, was a third
// of the mock's start-up. The cache is keyed by the text and the parse options, so an edited file
// is read as edited, with no build in between: a stale copy can not be found, only a missing one.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { resolve } from "node:path";
import { PROJECT_ROOT } from "./paths.ts";

/** Where the build keeps a file's parsed form, as JSON, under its cacheKey(). */
export const YAML_CACHE_DIR = resolve(PROJECT_ROOT, "dist/yaml");

export interface YamlOptions {
  /** The yaml package's guard against alias bombs (its default: 100). */
  maxAliasCount?: number;
}

export const cacheKey = (text: string, options: YamlOptions): string =>
  createHash("sha256").update(JSON.stringify(options)).update("\0").update(text).digest("hex");

/** The yaml package, loaded the first time a text is not in the cache. */
let yaml: typeof import("yaml") | undefined;

/** A YAML text's value: the build's parse of this very text when it has one, else parsed now. */
export function parseYaml(text: string, options: YamlOptions = {}): unknown {
  let cached: string | undefined;
  try {
    cached = readFileSync(resolve(YAML_CACHE_DIR, `${cacheKey(text, options)}.json`), "utf8");
  } catch {
    // Not built, or not this text: parsed below.
  }
  if (cached !== undefined) return JSON.parse(cached);
  yaml ??= createRequire(import.meta.url)("yaml") as typeof import("yaml");
  // The yaml package looks for a duplicate key by comparing each key with all before it in its
  // map: a contract with 10,000 properties took seconds to read, 50,000 minutes. One set per map.
  const doc = yaml.parseDocument(text, { ...options, uniqueKeys: false });
  if (doc.errors.length > 0) throw doc.errors[0];
  const { isScalar } = yaml;
  yaml.visit(doc, {
    Map(_, map) {
      const seen = new Set<unknown>();
      for (const { key } of map.items) {
        if (!isScalar(key)) continue;
        if (seen.has(key.value)) {
          const line = text.slice(0, key.range?.[0] ?? 0).split("\n").length;
          throw new Error(`Map keys must be unique: ${JSON.stringify(key.value)} is given twice (line ${line})`);
        }
        seen.add(key.value);
      }
    },
  });
  return doc.toJS(options.maxAliasCount === undefined ? {} : { maxAliasCount: options.maxAliasCount });
}
