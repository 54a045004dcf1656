// YAML read at every start (the contract, mock-data/oauth.yaml), through a cache the build fills
// (scripts/yaml-cache.mjs). Parsing the contract, and loading the yaml package at all, was a third
// of the mock's start-up. The cache is keyed by the text and the parse options, so an edited file
// is read as edited, with no build in between: a stale copy can not be found, only a missing one.
// A large text the build did not parse (a team's contract) is kept in the user's cache folder
// (user-cache.ts) once parsed, the same way keyed.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { deserialize, serialize } from "node:v8";
import { PROJECT_ROOT } from "./paths.ts";
import { readCached, writeCached } from "./user-cache.ts";

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

/**
 * A text this long or longer, parsed here, is kept in the user's cache folder: a team's contract
 * (72 KB, the fault matrix's) took 0.6 s to parse in each process; a short text takes milliseconds.
 */
export const KEPT_YAML_BYTES = 16 * 1024;

/**
 * Its name in the user's cache: the text and options, the yaml package's version, this module's
 * text (how it reads a document: an edit of it is a new key), and V8's version (the value is kept
 * as V8 serializes it, which keeps what JSON can not: Infinity, NaN, a date, an alias's sharing).
 */
function userKey(text: string, options: YamlOptions): string {
  const { version } = createRequire(import.meta.url)("yaml/package.json") as { version: string };
  return `${createHash("sha256")
    .update(`${version}\0${process.versions.v8}\0`)
    .update(readFileSync(fileURLToPath(import.meta.url)))
    .update("\0")
    .update(cacheKey(text, options))
    .digest("hex")}.v8`;
}

/**
 * A YAML text's value: the build's parse of this very text when it has one, else the user's
 * cache's of a long one, else parsed now.
 */
export function parseYaml(text: string, options: YamlOptions = {}): unknown {
  let cached: string | undefined;
  try {
    cached = readFileSync(resolve(YAML_CACHE_DIR, `${cacheKey(text, options)}.json`), "utf8");
  } catch {
    // Not built, or not this text: parsed below.
  }
  if (cached !== undefined) return JSON.parse(cached);
  const kept = text.length >= KEPT_YAML_BYTES ? userKey(text, options) : undefined;
  const bytes = kept ? readCached("yaml", kept) : undefined;
  if (bytes) {
    try {
      return deserialize(bytes);
    } catch {
      // Cut short or not V8's: parsed below, and kept again.
    }
  }
  const value = parseNow(text, options);
  if (kept) writeCached("yaml", kept, serialize(value));
  return value;
}

function parseNow(text: string, options: YamlOptions): unknown {
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
