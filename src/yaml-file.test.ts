import { randomUUID } from "node:crypto";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { PROJECT_ROOT } from "./paths.ts";
import { cacheKey, parseYaml, YAML_CACHE_DIR } from "./yaml-file.ts";

const read = (file: string) => readFileSync(resolve(PROJECT_ROOT, file), "utf8");

describe("YAML read at start", () => {
  it("the build keeps the contract and the OAuth seed, each under its text and its reader's options", () => {
    for (const [file, options] of [
      ["openapi/openapi.yaml", { maxAliasCount: 1000 }],
      ["mock-data/oauth.yaml", {}],
    ] as const) {
      const text = read(file);
      const built = readFileSync(resolve(YAML_CACHE_DIR, `${cacheKey(text, options)}.json`), "utf8");
      expect(JSON.parse(built), file).toEqual(parse(text, options));
    }
  });

  it("an edited contract is read as edited, without a build (no stale copy)", () => {
    const text = read("openapi/openapi.yaml");
    const edited = text.replace(/^( {2}title:).*$/m, "$1 Edited after the build");
    expect(edited).not.toBe(text);
    const doc = parseYaml(edited, { maxAliasCount: 1000 }) as { info: { title: string } };
    expect(doc.info.title).toBe("Edited after the build");
  });

  it("a text the build parsed is taken from the cache, not parsed again", () => {
    const text = `marker: ${randomUUID()}\n`;
    const entry = resolve(YAML_CACHE_DIR, `${cacheKey(text, {})}.json`);
    mkdirSync(YAML_CACHE_DIR, { recursive: true });
    writeFileSync(entry, JSON.stringify({ marker: "from the cache" }));
    try {
      expect(parseYaml(text)).toEqual({ marker: "from the cache" });
      // The options are part of the key: the same text under other options is parsed.
      expect(parseYaml(text, { maxAliasCount: 5 })).toEqual(parse(text));
    } finally {
      rmSync(entry);
    }
  });
});

describe("YAML read without a build", () => {
  // The yaml package's own duplicate-key check compares each key with every key before it in its
  // map: a contract of 10,000 properties took seconds to read, one of 50,000 minutes. Its helper is
  // looked up on its module at each call, so a test can count the comparisons it would make.
  const require = createRequire(import.meta.url);
  const helper = require(resolve(dirname(require.resolve("yaml")), "compose/util-map-includes.js")) as {
    mapIncludes: (ctx: { options: { uniqueKeys?: unknown } }, items: unknown[], search: unknown) => boolean;
  };

  it("reads a map of 20,000 keys without comparing each key with those before it", () => {
    const original = helper.mapIncludes;
    let compared = 0;
    helper.mapIncludes = (ctx, items, search) => {
      if (ctx.options.uniqueKeys !== false) compared += items.length;
      return original(ctx, items, search);
    };
    try {
      const text = `${Array.from({ length: 20_000 }, (_, i) => `k${i}: ${i}`).join("\n")}\n`;
      const map = parseYaml(text) as Record<string, number>;
      expect(Object.keys(map)).toHaveLength(20_000);
      expect(map.k19999).toBe(19_999);
      expect(compared).toBe(0);
    } finally {
      helper.mapIncludes = original;
    }
  });

  it("still refuses a key given twice in one map, naming it and its line", () => {
    expect(() => parseYaml("a: 1\nb:\n  c: 1\n  c: 2\n")).toThrow(
      'Map keys must be unique: "c" is given twice (line 4)',
    );
    // The same key in two maps, or under an alias, is no duplicate.
    expect(parseYaml("a: &x { c: 1 }\nb: *x\nc: { c: 2 }\n")).toEqual({ a: { c: 1 }, b: { c: 1 }, c: { c: 2 } });
  });
});
