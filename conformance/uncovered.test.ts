// A requirement added to requirements.yaml without a check fails the run, and
// the failure says which file the check goes in (issue: codebase health).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { FullConfig, FullResult, Suite } from "@playwright/test/reporter";
import { afterAll, expect, it, vi } from "vitest";
import { parse, stringify } from "yaml";
import { PROJECT_ROOT } from "../src/paths.ts";

const dir = mkdtempSync(join(tmpdir(), "bawa-uncovered-"));
const list = parse(readFileSync(resolve(PROJECT_ROOT, "conformance/requirements.yaml"), "utf8")) as {
  requirements: Array<Record<string, string>>;
};
list.requirements.push({
  id: "CUST-NEW-RULE",
  kind: "spec",
  file: "customer-fields.spec.ts",
  section: "Customers",
  text: "a rule added without a check",
});
writeFileSync(join(dir, "requirements.yaml"), stringify(list));
// The requirements module reads the override when it is first imported; test files share their
// modules (vitest.config.ts), so it is imported afresh here and forgotten again after.
// The way back first, so an import that throws leaves no later file the override.
afterAll(() => {
  vi.unstubAllEnvs();
  vi.resetModules();
  rmSync(dir, { recursive: true, force: true });
});
vi.stubEnv("CONFORMANCE_REQUIREMENTS", join(dir, "requirements.yaml"));
vi.resetModules();
const { default: MatrixReporter } = await import("./lib/matrix-reporter.ts");

it("a requirement without a check fails the run, naming the file its check goes in", async () => {
  const printed: string[] = [];
  const log = vi.spyOn(console, "log").mockImplementation((s: string) => void printed.push(s));
  try {
    const reporter = new MatrixReporter({ outputDir: dir });
    const project = { name: "target", metadata: { kinds: ["spec"], filtered: false }, use: {} };
    const suite = { suites: [{ project: () => project, allTests: () => [] }] } as unknown as Suite;
    reporter.onBegin({} as FullConfig, suite);
    const end = await reporter.onEnd({ status: "passed" } as FullResult);
    expect(end?.status).toBe("failed");
  } finally {
    log.mockRestore();
  }
  const line = printed
    .join("\n")
    .split("\n")
    .find((l) => l.includes("CUST-NEW-RULE"));
  expect(line).toContain(
    'no check covers this requirement; add one with covers("CUST-NEW-RULE") to conformance/checks/customer-fields.spec.ts',
  );
  const summary = JSON.parse(readFileSync(join(dir, "summary.json"), "utf8")) as {
    requirements: Array<{ id: string; verdict: string }>;
  };
  expect(summary.requirements.find((r) => r.id === "CUST-NEW-RULE")?.verdict).toBe("uncovered");
});
