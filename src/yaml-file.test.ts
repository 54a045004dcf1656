import { randomUUID } from "node:crypto";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
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
