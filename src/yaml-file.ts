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
  return yaml.parse(text, options);
}
