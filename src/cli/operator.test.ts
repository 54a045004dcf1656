// Commands that talk to a running mock find it as `bawa mock` was started, and
// `bawa --version` says which bawa this is.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../paths.ts";
import { mockUrl } from "./operator.ts";

describe("finding the running mock", () => {
  it.each([
    ["nothing set: the mock's default address", {}, {}, "http://127.0.0.1:4010"],
    ["BAWA_PORT, as the mock was started with it", {}, { BAWA_PORT: "5100" }, "http://127.0.0.1:5100"],
    ["BAWA_HOST and BAWA_PORT", {}, { BAWA_HOST: "::1", BAWA_PORT: "5100" }, "http://[::1]:5100"],
    ["a wildcard address, reached on loopback", {}, { BAWA_HOST: "0.0.0.0" }, "http://127.0.0.1:4010"],
    ["BAWA_MOCK_URL over the port", {}, { BAWA_MOCK_URL: "http://m:1", BAWA_PORT: "5100" }, "http://m:1"],
    ["--base-url over everything", { "base-url": "http://b:2" }, { BAWA_MOCK_URL: "http://m:1" }, "http://b:2"],
    ["--url, the earlier name", { url: "http://u:3" }, { BAWA_PORT: "5100" }, "http://u:3"],
  ])("%s", (_name, values, env, expected) => {
    expect(mockUrl(values, env)).toBe(expected);
  });
});

describe("bawa --version", () => {
  it("prints the package's version and exits 0", () => {
    const { version } = JSON.parse(readFileSync(resolve(PROJECT_ROOT, "package.json"), "utf8")) as { version: string };
    const out = execFileSync(process.execPath, [resolve(PROJECT_ROOT, "bin/bawa.js"), "--version"], {
      encoding: "utf8",
    });
    expect(out.trim()).toBe(`bawa ${version}`);
  });
});

describe("a setting that is missing", () => {
  it("is named without the command's whole usage after it (exit 2)", () => {
    let failure: { status: number; stderr: string } | undefined;
    try {
      execFileSync(process.execPath, [resolve(PROJECT_ROOT, "bin/bawa.js"), "conformance", "cleanup"], {
        encoding: "utf8",
        stdio: "pipe",
        env: { ...process.env, CONFORMANCE_BASE_URL: "http://127.0.0.1:9", CONFORMANCE_REFRESH_TOKEN: "" },
      });
    } catch (err) {
      failure = err as { status: number; stderr: string };
    }
    expect(failure?.status).toBe(2);
    expect(failure?.stderr).toMatch(/^bawa conformance: cleanup needs CONFORMANCE_/);
    expect(failure?.stderr).toContain("(bawa conformance --help lists every option and setting)");
    expect(failure?.stderr).not.toContain("usage: bawa conformance");
    expect(failure?.stderr.trim().split("\n").length).toBeLessThan(4);
  });
});
