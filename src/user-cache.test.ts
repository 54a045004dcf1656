// The user's cache folder (user-cache.ts): a team's contract is parsed and compiled once per
// machine, later processes read both back; only a folder of the user's own is read, and it stays
// bounded.
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "./paths.ts";
import { CACHE_DIR_ENV, KEPT_BYTES, KEPT_ENTRIES, readCached, userCacheDir, writeCached } from "./user-cache.ts";
import { KEPT_YAML_BYTES, parseYaml } from "./yaml-file.ts";

const work = mkdtempSync(join(tmpdir(), "bawa-user-cache-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Runs `body` with BAWA_CACHE_DIR set to `dir`, as it was before after. */
function withCacheDir<T>(dir: string, body: () => T): T {
  const before = process.env[CACHE_DIR_ENV];
  process.env[CACHE_DIR_ENV] = dir;
  try {
    return body();
  } finally {
    if (before === undefined) delete process.env[CACHE_DIR_ENV];
    else process.env[CACHE_DIR_ENV] = before;
  }
}

describe("the user's cache folder", () => {
  it("is BAWA_CACHE_DIR, none when it says off, else bawa under XDG's cache folder or ~/.cache", () => {
    expect(userCacheDir({ BAWA_CACHE_DIR: "rel/dir" })).toBe(resolve("rel/dir"));
    expect(userCacheDir({ BAWA_CACHE_DIR: "off" })).toBeUndefined();
    expect(userCacheDir({ BAWA_CACHE_DIR: "" })).toBeUndefined();
    expect(userCacheDir({ XDG_CACHE_HOME: "/xdg" })).toBe("/xdg/bawa");
    expect(userCacheDir({})).toBe(join(homedir(), ".cache", "bawa"));
  });

  it("keeps an entry whole, and only the newest KEPT_ENTRIES of a kind", () => {
    const dir = join(work, "bounded");
    withCacheDir(dir, () => {
      for (let i = 0; i < KEPT_ENTRIES + 5; i++) {
        writeCached("yaml", `e${i}`, `entry ${i}`);
        // Older first, each a second apart: the order mtime gives is the order written.
        const at = new Date(Date.now() - (KEPT_ENTRIES + 5 - i) * 1000);
        utimesSync(join(dir, "yaml", `e${i}`), at, at);
      }
      writeCached("yaml", "newest", "the newest");
      const names = readdirSync(join(dir, "yaml"));
      expect(names).toHaveLength(KEPT_ENTRIES);
      expect(names).toContain("newest");
      expect(names).not.toContain("e0");
      expect(names.some((n) => n.endsWith(".partial"))).toBe(false);
      expect(readCached("yaml", "newest")?.toString()).toBe("the newest");
      expect(readCached("yaml", "e0")).toBeUndefined();
      // What they weigh together is bounded too: a large entry leaves room for none older.
      writeCached("yaml", "large", Buffer.alloc(KEPT_BYTES - 5));
      expect(readdirSync(join(dir, "yaml")).sort()).toEqual(["large"]);
    });
  });

  it.runIf(process.getuid?.() !== undefined)("reads nothing from a folder others may write to", () => {
    const dir = join(work, "shared");
    withCacheDir(dir, () => {
      writeCached("validators", "code.js", "exports.x = 1;");
      expect(readCached("validators", "code.js")?.toString()).toBe("exports.x = 1;");
      chmodSync(join(dir, "validators"), 0o777);
      expect(readCached("validators", "code.js")).toBeUndefined();
      writeCached("validators", "more.js", "planted");
      expect(readdirSync(join(dir, "validators"))).toEqual(["code.js"]);
      chmodSync(join(dir, "validators"), 0o700);
      chmodSync(dir, 0o775);
      expect(readCached("validators", "code.js")).toBeUndefined();
      chmodSync(dir, 0o700);
      expect(readCached("validators", "code.js")?.toString()).toBe("exports.x = 1;");
    });
  });

  // Only root can give a folder to another user: the check of the owner runs where the tests run as root (CI).
  it.runIf(process.getuid?.() === 0)("reads nothing from a folder of another user's", () => {
    const dir = join(work, "theirs");
    withCacheDir(dir, () => {
      writeCached("validators", "code.js", "exports.x = 1;");
      chownSync(join(dir, "validators"), 65534, 65534);
      expect(readCached("validators", "code.js")).toBeUndefined();
    });
  });

  it("a long YAML text is parsed once: the next parse is the kept one, aliases and infinities as parsed", () => {
    const dir = join(work, "yaml");
    const text = `shared: &a { n: .inf, list: [1, 2] }\nalso: *a\npad: "${"x".repeat(KEPT_YAML_BYTES)}"\n`;
    const first = withCacheDir(dir, () => parseYaml(text)) as Record<string, { n: number }>;
    expect(readdirSync(join(dir, "yaml"))).toHaveLength(1);
    const second = withCacheDir(dir, () => parseYaml(text)) as Record<string, { n: number }>;
    expect(second).toEqual(first);
    expect(second.shared!.n).toBe(Number.POSITIVE_INFINITY);
    // The alias's sharing as the yaml package gives it: one object in two places.
    expect(second.also).toBe(second.shared);
    // A short text is not kept: it parses in milliseconds.
    withCacheDir(dir, () => parseYaml("short: text\n"));
    expect(readdirSync(join(dir, "yaml"))).toHaveLength(1);
  });
});

describe("a team's contract through the user's cache folder", () => {
  it("is parsed and compiled by the first process; the next loads neither the yaml package nor Ajv's compiler", () => {
    // The project's contract with one schema changed: neither the build's parse nor its validators fit it.
    const contract = join(work, "team.yaml");
    const text = readFileSync(resolve(PROJECT_ROOT, "openapi/openapi.yaml"), "utf8");
    expect(text).toContain("maxLength: 255 }");
    writeFileSync(contract, text.replace("maxLength: 255 }", "maxLength: 254 }"));
    const script = `
      const c = await import(${JSON.stringify(resolve(PROJECT_ROOT, "dist/src/contract/index.js"))});
      const contract = c.compileContract(process.argv[1], { eager: false });
      const kept = [contract.answers.kept, contract.requests.kept];
      c.warmContract(contract);
      const { createRequire } = await import("node:module");
      const loaded = Object.keys(createRequire(import.meta.url).cache);
      console.log(JSON.stringify({
        kept,
        yaml: loaded.some((k) => /[\\\\/]node_modules[\\\\/]yaml[\\\\/]dist[\\\\/]/.test(k)),
        compiler: loaded.some((k) => /[\\\\/]ajv[\\\\/]dist[\\\\/](2020|core)\\.js$/.test(k)),
        refused: contract.answers.check("Customer", { Name: "x", Addresses: [{ AddressType: "y".repeat(255) }] }).length > 0,
      }));`;
    const run = (cacheDir: string) =>
      JSON.parse(
        execFileSync(process.execPath, ["--input-type=module", "-e", script, contract], {
          encoding: "utf8",
          env: { ...process.env, [CACHE_DIR_ENV]: cacheDir },
        }),
      );
    const dir = join(work, "team");
    mkdirSync(dir);
    expect(run(dir)).toEqual({ kept: [true, true], yaml: true, compiler: true, refused: true });
    expect(readdirSync(join(dir, "yaml"))).toHaveLength(1);
    expect(readdirSync(join(dir, "validators"))).toHaveLength(2);
    expect(run(dir)).toEqual({ kept: [true, true], yaml: false, compiler: false, refused: true });
    expect(run("off")).toEqual({ kept: [false, false], yaml: true, compiler: true, refused: true });
  });
});
