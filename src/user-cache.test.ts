// The user's cache folder (user-cache.ts): a team's contract is parsed and compiled once per
// machine, later processes read both back; only a folder of the user's own is read, and it stays
// bounded.
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { validatorKey } from "./contract/index.ts";
import { PROJECT_ROOT } from "./paths.ts";
import {
  CACHE_DIR_ENV,
  KEPT_BYTES,
  KEPT_ENTRIES,
  KEPT_ENTRY_BYTES,
  readCached,
  userCacheDir,
  writeCached,
} from "./user-cache.ts";
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
    // A relative one is ignored, as XDG says: each process would read it from its own folder.
    expect(userCacheDir({ XDG_CACHE_HOME: "rel" })).toBe(join(homedir(), ".cache", "bawa"));
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
      // No entry over KEPT_ENTRY_BYTES is kept, and what they weigh together is bounded too.
      writeCached("yaml", "too-large", Buffer.alloc(KEPT_ENTRY_BYTES + 1));
      expect(readdirSync(join(dir, "yaml"))).not.toContain("too-large");
      const past = new Date(Date.now() - 3_600_000);
      for (const name of readdirSync(join(dir, "yaml"))) utimesSync(join(dir, "yaml", name), past, past);
      for (let i = 0; i < KEPT_BYTES / KEPT_ENTRY_BYTES; i++)
        writeCached("yaml", `large${i}`, Buffer.alloc(KEPT_ENTRY_BYTES));
      expect(readdirSync(join(dir, "yaml")).sort()).toEqual(["large0", "large1", "large2", "large3"]);
    });
  });

  it.runIf(process.getuid?.() !== undefined)(
    "empties and closes a folder of the user's that others may write to",
    () => {
      const dir = join(work, "loose");
      withCacheDir(dir, () => {
        writeCached("validators", "code.js", "exports.x = 1;");
        expect(readCached("validators", "code.js")?.toString()).toBe("exports.x = 1;");
        // Made under a loose umask, say, or by an earlier version: what others put there goes.
        chmodSync(join(dir, "validators"), 0o777);
        expect(readCached("validators", "code.js")).toBeUndefined();
        expect(statSync(join(dir, "validators")).mode & 0o777).toBe(0o700);
        expect(readdirSync(join(dir, "validators"))).toEqual([]);
        writeCached("validators", "code.js", "exports.x = 2;");
        chmodSync(dir, 0o775);
        expect(readCached("validators", "code.js")).toBeUndefined();
        expect(readdirSync(dir)).toEqual([]);
      });
    },
  );

  it.runIf(process.getuid?.() !== undefined)("reads no entry another name links to, and none that is empty", () => {
    const dir = join(work, "links");
    withCacheDir(dir, () => {
      writeCached("validators", "code.js", "exports.x = 1;");
      linkSync(join(dir, "validators", "code.js"), join(work, "a-second-name.js"));
      expect(readCached("validators", "code.js")).toBeUndefined();
      writeFileSync(join(dir, "validators", "empty.js"), "", { mode: 0o600 });
      expect(readCached("validators", "empty.js")).toBeUndefined();
    });
  });

  it.runIf(process.getuid?.() !== undefined)("makes nothing under a folder others may write to (not sticky)", () => {
    const open = join(work, "open");
    mkdirSync(open, { mode: 0o777 });
    chmodSync(open, 0o777);
    withCacheDir(join(open, "cache"), () => {
      writeCached("validators", "code.js", "exports.x = 1;");
      expect(readCached("validators", "code.js")).toBeUndefined();
    });
    expect(readdirSync(open)).toEqual([]);
  });

  // Only root can give a folder or a file to another user: these run where the tests run as root (CI).
  it.runIf(process.getuid?.() === 0)("reads nothing from a folder or a file of another user's", () => {
    const dir = join(work, "theirs");
    withCacheDir(dir, () => {
      writeCached("validators", "code.js", "exports.x = 1;");
      writeCached("validators", "other.js", "exports.x = 2;");
      chownSync(join(dir, "validators", "other.js"), 65534, 65534);
      expect(readCached("validators", "other.js")).toBeUndefined();
      expect(readCached("validators", "code.js")?.toString()).toBe("exports.x = 1;");
      chownSync(join(dir, "validators"), 65534, 65534);
      expect(readCached("validators", "code.js")).toBeUndefined();
      // Left as it is: not the user's to empty.
      expect(readdirSync(join(dir, "validators")).sort()).toEqual(["code.js", "other.js"]);
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
  it("keys schemas with a number JSON can not write apart from the same schemas with null", () => {
    const key = (maximum: number | null) => validatorKey({ A: { type: "number", maximum } as never }, {});
    expect(new Set([key(Number.POSITIVE_INFINITY), key(Number.NaN), key(null), key(1)]).size).toBe(4);
  });

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
    // An entry that is not every schema's code (cut short, emptied) is made again, not taken.
    for (const entry of readdirSync(join(dir, "validators")))
      writeFileSync(join(dir, "validators", entry), "exports.Customer = () => true;");
    expect(run(dir)).toEqual({ kept: [true, true], yaml: false, compiler: true, refused: true });
    expect(run(dir)).toEqual({ kept: [true, true], yaml: false, compiler: false, refused: true });
    expect(run("off")).toEqual({ kept: [false, false], yaml: true, compiler: true, refused: true });
    // Five processes, three of them compiling the whole contract: 6-8 s on a quiet machine, and
    // 36 s on a loaded one, past the default 20 s (2026-11-30, beside two suite runs).
  }, 180_000);
});
