// The suite's own tests (run by vitest in `npm test`): every requirement has a
// check in the file requirements.yaml names, every check names only listed
// requirements, and the configuration is read as documented.
import { execFile } from "node:child_process";
import { resolve } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it, onTestFinished } from "vitest";
import { PROJECT_ROOT } from "../src/paths.ts";
import { ConfigError, loadTarget, needs, type RunTarget, targetNameOf } from "./lib/config.ts";
import { requirements, TARGET_ANNOTATION } from "./lib/requirements.ts";

const run = promisify(execFile);

interface ListedSuite {
  suites?: ListedSuite[];
  specs?: Array<{ title: string; tags: string[]; file: string }>;
}

async function listChecks(): Promise<Array<{ title: string; tags: string[]; file: string }>> {
  const cli = resolve(PROJECT_ROOT, "node_modules/@playwright/test/cli.js");
  const { stdout } = await run(
    process.execPath,
    [cli, "test", "--list", "--reporter=json", "-c", "conformance/playwright.config.ts"],
    {
      cwd: PROJECT_ROOT,
      env: { ...process.env, CONFORMANCE_KINDS: "spec,oauth,assumption", CONFORMANCE_BASE_URL: "http://127.0.0.1:9" },
      maxBuffer: 20 * 1024 * 1024,
    },
  );
  const out: Array<{ title: string; tags: string[]; file: string }> = [];
  const walk = (s: ListedSuite) => {
    for (const spec of s.specs ?? []) out.push(spec);
    for (const child of s.suites ?? []) walk(child);
  };
  for (const s of (JSON.parse(stdout) as { suites: ListedSuite[] }).suites) walk(s);
  return out;
}

describe("the conformance suite", () => {
  it("has at least one check for every requirement", async () => {
    const checks = await listChecks();
    expect(checks.length).toBeGreaterThan(50);
    const covered = new Set(checks.flatMap((c) => c.tags.map((t) => t.replace(/^@/, ""))));
    const uncovered = [...requirements().keys()].filter((id) => !covered.has(id));
    expect(uncovered, "requirements without a check").toEqual([]);
    // The file requirements.yaml names is where a newcomer looks for, and adds, the checks.
    const misplaced = [...requirements().values()]
      .filter((r) => !checks.some((c) => c.file.endsWith(r.file) && c.tags.some((t) => t.replace(/^@/, "") === r.id)))
      .map((r) => `${r.id}: no check in ${r.file}`);
    expect(misplaced, "requirements whose file: holds none of their checks").toEqual([]);
    // Playwright's --list transforms every check file: 3-5 s on a quiet machine, over 60 s on a
    // fresh clone's loaded one (2026-11-30, beside two suite runs).
  }, 180_000);

  it("lists every rule of the service description's Errors section and numbered rules", () => {
    const ids = [...requirements().keys()];
    for (const id of [
      "ERR-200",
      "ERR-1-PATH",
      "ERR-2-ID",
      "ERR-3-REQUIRED",
      "ERR-4-TOKEN",
      "ERR-4-DATABASE",
      "TOK-EXPIRY",
      "VER-CASE",
    ])
      expect(ids).toContain(id);
    for (const r of requirements().values()) expect(["spec", "oauth", "assumption"]).toContain(r.kind);
  });

  it("names in requirements.yaml every assumption check by an id of ASSUMPTIONS.md", async () => {
    const { readFileSync } = await import("node:fs");
    const table = readFileSync(resolve(PROJECT_ROOT, "openapi/ASSUMPTIONS.md"), "utf8");
    for (const r of requirements().values()) if (r.kind === "assumption") expect(table, r.id).toContain(`| ${r.id} |`);
  });
});

describe("the target configuration", () => {
  it("gives a check the target its group names, or the run's only one; without a name among several, fails naming checks()", () => {
    const two: RunTarget[] = [
      { name: "test", settings: {} },
      { name: "prod", settings: {} },
    ];
    expect(targetNameOf([{ type: "skip" }, { type: TARGET_ANNOTATION, description: "prod" }], two)).toBe("prod");
    expect(targetNameOf([], [two[0]!])).toBe("test");
    expect(() => targetNameOf([{ type: "skip" }], two)).toThrow(
      /without a target annotation in a run of 2 targets: register the checks of a file inside checks\(/,
    );
  });

  const base = { CONFORMANCE_BASE_URL: "https://test.example.invalid/" };

  it("reads the documented variables with their defaults", () => {
    const t = loadTarget({
      ...base,
      CONFORMANCE_CLIENT_ID: "c",
      CONFORMANCE_CLIENT_SECRET: "s",
      CONFORMANCE_REDIRECT_URI: "https://app/cb",
    });
    expect(t).toMatchObject({
      baseUrl: "https://test.example.invalid",
      apiVersion: "1",
      database: "DEMO",
      client: { clientId: "c" },
      waitForExpiry: false,
      browser: true,
    });
    expect(loadTarget({ ...base, CONFORMANCE_BROWSER: "0" }).browser).toBe(false);
    expect(loadTarget({ ...base, CONFORMANCE_BROWSER: "yes" }).browser).toBe(true);
    expect([...t.kinds]).toEqual(["spec", "oauth"]);
    expect(t.selectors.allow).toBe('button[name="decision"][value="allow"]');
    expect(t.second).toBeUndefined();
  });

  it.each([
    [{}, /CONFORMANCE_BASE_URL is not set/],
    [{ CONFORMANCE_BASE_URL: "not a url" }, /is not a URL/],
    [{ ...base, CONFORMANCE_BASE_URL: "https://x/V18" }, /must not end with the version segment/],
    [{ ...base, CONFORMANCE_API_VERSION: "one" }, /must be digits/],
    [{ ...base, CONFORMANCE_KINDS: "spec,style" }, /unknown kind style/],
    [
      { ...base, CONFORMANCE_BROWSER: "0", CONFORMANCE_TRACE: "1" },
      /CONFORMANCE_TRACE=1 records every check in a browser context of its own; it can not be combined with CONFORMANCE_BROWSER=0/,
    ],
    [{ ...base, CONFORMANCE_BROWSER: "off" }, /CONFORMANCE_BROWSER must be 1 or 0 \(true\/false, yes\/no\), not "off"/],
  ])("refuses %j with a message that says what to change", (env, message) => {
    expect(() => loadTarget(env as NodeJS.ProcessEnv)).toThrow(ConfigError);
    expect(() => loadTarget(env as NodeJS.ProcessEnv)).toThrow(message);
  });

  it("takes settings from a config file, the environment winning", async () => {
    const { mkdtempSync, rmSync, writeFileSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const dir = mkdtempSync(resolve(tmpdir(), "bawa-conf-"));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const file = resolve(dir, "target.yaml");
    writeFileSync(file, "BASE_URL: https://from-file.example.invalid\nDATABASE: FILEDB\nAPI_VERSION: 221\n");
    const t = loadTarget({ CONFORMANCE_CONFIG: file, CONFORMANCE_DATABASE: "ENVDB" });
    expect(t).toMatchObject({ baseUrl: "https://from-file.example.invalid", database: "ENVDB", apiVersion: "221" });
  });

  it("refuses a config file key that is no setting, naming it and the setting it is nearest to", async () => {
    const { mkdtempSync, rmSync, writeFileSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const dir = mkdtempSync(resolve(tmpdir(), "bawa-conf-"));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const file = resolve(dir, "target.yaml");
    writeFileSync(
      file,
      "BASE_URL: https://x.invalid\nclient_id: c\nCLIENT_SECRT: s\nCONFORMANCE_DATABASE: D\nCOLOUR: 1\n",
    );
    expect(() => loadTarget({ CONFORMANCE_CONFIG: file })).toThrow(ConfigError);
    expect(() => loadTarget({ CONFORMANCE_CONFIG: file })).toThrow(
      `CONFORMANCE_CONFIG ${file}: unknown settings CLIENT_SECRT (did you mean CLIENT_SECRET?), CONFORMANCE_DATABASE (did you mean DATABASE?), COLOUR;`,
    );
    writeFileSync(file, "BASE_URL: https://x.invalid\nclient_id: c\nCLIENT_SECRET: s\n");
    expect(loadTarget({ CONFORMANCE_CONFIG: file }).settings).toMatchObject({
      CONFORMANCE_CLIENT_ID: "c",
      CONFORMANCE_CLIENT_SECRET: "s",
    });
  });

  it("names each missing setting with what it is for, as --help says it", () => {
    expect(needs({ CONFORMANCE_USERNAME: "u", CONFORMANCE_PASSWORD: "", CONFORMANCE_SCOPE: undefined })).toBe(
      "needs CONFORMANCE_PASSWORD (that user's password), CONFORMANCE_SCOPE (the single scope value)",
    );
    expect(needs({ CONFORMANCE_CLIENT_SECRET: undefined }, "an application")).toBe(
      "needs CONFORMANCE_CLIENT_SECRET (an application)",
    );
    expect(needs({ CONFORMANCE_SCOPE: "s" })).toBeUndefined();
  });
});
