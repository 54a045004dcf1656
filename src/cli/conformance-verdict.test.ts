// The verdict of `bawa conformance` as a person and a pipeline read it: a run
// that could not obtain a token is no pass, and the matrix of a failed run
// leads with its failures at a window's width.
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { STALE_SETTING, STORED_REFRESH_TOKEN } from "../../conformance/lib/config.ts";
import { releaseBrowser, testBrowser } from "../browser-testing.ts";
import { PROJECT_ROOT } from "../paths.ts";
import { conformanceHarness } from "./conformance-testing.ts";

const h = conformanceHarness();

describe("the verdict of bawa conformance", () => {
  it("a run without client settings fails, naming them; every data check skips with the setting's name", async () => {
    const { code, out } = await h.bawa(["--base-url", h.url, "--output", "no-settings"], {});
    expect(code, out).toBe(1);
    expect(out).toMatch(/no access token could be obtained: \d+ requirements that need one were not verified/);
    expect(out).toContain("CONFORMANCE_CLIENT_ID, CONFORMANCE_CLIENT_SECRET");
    const summary = JSON.parse(readFileSync(join(h.dir, "no-settings/summary.json"), "utf8")) as {
      verdict: string;
      requirements: Array<{ row?: string; id: string; verdict: string; checks: Array<{ reason?: string }> }>;
    };
    expect(summary.verdict).toBe("failed");
    const data = summary.requirements.filter(
      (r) => /^(CUST|SVC|INFO|DATA|ERR-200)/.test(r.id) && r.verdict !== "not applicable",
    );
    expect(data.length).toBeGreaterThan(10);
    // Rows of a resource that rests on an assumption are not selected in a spec and oauth run.
    const assumed = data.filter((r) => r.verdict === "not selected");
    expect(assumed.map((r) => r.row).every((row) => row?.endsWith("· AdministrationInfoList"))).toBe(true);
    for (const r of data.filter((x) => x.verdict !== "not selected")) {
      expect(r.verdict, r.row ?? r.id).toBe("not verified");
      for (const c of r.checks) expect(c.reason, r.row ?? r.id).toMatch(/^not verified: needs CONFORMANCE_/);
    }
  }, 180_000);

  it("CONFORMANCE_BROWSER=0 runs without Chromium, the screens' checks not verified; otherwise none is refused", async () => {
    const noChromium = { ...h.settings, BAWA_CHROMIUM: join(h.dir, "no-chromium-here") };
    const refused = await h.bawa(["--grep", "VER-PATH", "--output", "refused"], noChromium);
    expect(refused.code, refused.out).toBe(1);
    expect(refused.out).toMatch(/no Chromium for the checks that drive the login and permission screens/);
    const run = await h.bawa(["--grep", "VER-PATH|AUTHZ-SCREENS", "--output", "no-browser"], {
      ...noChromium,
      CONFORMANCE_BROWSER: "0",
    });
    expect(run.code, run.out).toBe(0);
    const summary = JSON.parse(readFileSync(join(h.dir, "no-browser/summary.json"), "utf8")) as {
      requirements: Array<{ id: string; verdict: string; checks: Array<{ reason?: string }> }>;
    };
    const row = (id: string) => summary.requirements.find((r) => r.id === id);
    expect(row("VER-PATH")?.verdict).toBe("passed");
    expect(row("AUTHZ-SCREENS")?.verdict).toBe("not verified");
    // Each of its checks (the code flow's, the token flow's, a wrong password's), each saying why.
    const reasons = row("AUTHZ-SCREENS")?.checks.map((c) => c.reason) ?? [];
    expect(reasons.length).toBeGreaterThanOrEqual(3);
    for (const reason of reasons) expect(reason).toMatch(/^not verified: CONFORMANCE_BROWSER=0: /);
  }, 120_000);

  it("a check that lacks settings names only the missing ones, each with what it is for", async () => {
    const reasons = async (unset: string, output: string) => {
      const { [unset]: _, ...settings } = h.settings;
      const { out } = await h.bawa(["--grep", "TOK-EXPIRY", "--output", output], settings);
      const summary = JSON.parse(readFileSync(join(h.dir, output, "summary.json"), "utf8")) as {
        missingSettings: string[];
        requirements: Array<{ id: string; checks: Array<{ reason?: string }> }>;
      };
      expect(summary.missingSettings, out).toEqual([unset]);
      return summary.requirements.find((r) => r.id === "TOK-EXPIRY")!.checks.map((c) => c.reason);
    };
    expect(await reasons("CONFORMANCE_CLIENT_SECRET", "no-secret")).toEqual([
      "not verified: needs CONFORMANCE_CLIENT_SECRET (a registered, active application; without them no access token can be obtained)",
    ]);
    expect(await reasons("CONFORMANCE_SCOPE", "no-scope")).toEqual([
      "not verified: needs CONFORMANCE_SCOPE (the single scope value)",
    ]);
  }, 60_000);

  it("a refresh token the target refuses names CONFORMANCE_REFRESH_TOKEN where it fails and where it leaves checks", async () => {
    const run = await h.bawa(["--grep", "AUTH-BACKGROUND|CUST-FIELDS", "--output", "stale-token"], {
      ...h.settings,
      CONFORMANCE_REFRESH_TOKEN: "revoked-long-ago",
    });
    expect(run.code, run.out).toBe(1);
    const summary = JSON.parse(readFileSync(join(h.dir, "stale-token", "summary.json"), "utf8")) as {
      failures: Array<{ row: string; error: string }>;
      requirements: Array<{ id: string; verdict: string; checks: Array<{ reason?: string }> }>;
    };
    expect(summary.failures.map((f) => f.row)).toEqual(["AUTH-BACKGROUND"]);
    expect(summary.failures[0]!.error).toContain(`exchange 1 of ${STORED_REFRESH_TOKEN}: `);
    expect(summary.failures[0]!.error).toContain(STALE_SETTING);
    const fields = summary.requirements.find((r) => r.id === "CUST-FIELDS")!;
    expect(fields.verdict).toBe("not checked");
    for (const c of fields.checks)
      expect(c.reason).toMatch(
        /^not checked because of TOK-REFRESH: no access token could be obtained \(the stored refresh token \(CONFORMANCE_REFRESH_TOKEN\) was refused: POST \/v1\/OAuth\/Token answered 400: \{"error":"invalid_grant"/,
      );
  }, 60_000);

  it("matrix.html of a failed run fits 1280 px and shows the failures above the table", async () => {
    const faults = ["token-cacheable", "field-wrong-type"];
    const turn = (on: boolean) =>
      Promise.all(
        faults.map((f) =>
          fetch(`${h.url}/__mock/scenarios/${f}`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ on }),
          }),
        ),
      );
    await turn(true);
    let run: { code: number; out: string };
    try {
      // Outside a CI (CI unset), as a team's own machine runs it in its colour terminal, its
      // output going to a pipe.
      run = await h.bawa(["--grep", "OAUTH-NO-STORE|CUST-FIELDS|TOKEN-RESPONSE", "--output", "failed-run"], {
        ...h.settings,
        CI: undefined,
        TERM: "xterm-256color",
      });
    } finally {
      await turn(false);
    }
    expect(run.code, run.out).toBe(1);
    // No terminal to colour for: the failures' code frames reach the reports without escape codes
    // (Playwright's runner colours them outside a CI otherwise, highlighting each check's file).
    const snippets = [
      ...readFileSync(join(h.dir, "failed-run/results.json"), "utf8").matchAll(/"snippet": ("(?:[^"\\]|\\.)*")/g),
    ].map((m) => JSON.parse(m[1]!) as string);
    expect(snippets.length).toBeGreaterThan(0);
    for (const snippet of snippets) expect(snippet).not.toContain("\u001b[");
    const browser = await testBrowser();
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await page.goto(pathToFileURL(join(h.dir, "failed-run/matrix.html")).href);
      const layout = await page.evaluate(() => {
        const box = (e: Element | null) => e?.getBoundingClientRect();
        const results = Array.from(document.querySelectorAll("table tr td.result, table tr th")).map(
          (e) => e.getBoundingClientRect().right,
        );
        return {
          scrollWidth: document.documentElement.scrollWidth,
          clientWidth: document.documentElement.clientWidth,
          failuresTop: box(document.querySelector("#failures"))?.top,
          tableTop: box(document.querySelector("table"))?.top,
          failures: Array.from(document.querySelectorAll("#failures li")).map((li) => li.textContent ?? ""),
          rightmost: Math.max(...results),
        };
      });
      // Kept in reports/ (generated output) for a person to look at.
      await page.screenshot({ path: resolve(PROJECT_ROOT, "reports/screenshots/matrix-failed-1280.png") });
      expect(layout.scrollWidth, "no sideways scroll at 1280 px").toBeLessThanOrEqual(layout.clientWidth);
      expect(layout.rightmost, "every column within the window").toBeLessThanOrEqual(layout.clientWidth);
      expect(layout.failuresTop, "the failures come before the table").toBeLessThan(layout.tableTop!);
      expect(layout.failures.join("\n")).toMatch(/OAUTH-NO-STORE/);
      expect(layout.failures.join("\n")).toMatch(/CUST-FIELDS/);
    } finally {
      await releaseBrowser(browser);
    }
  }, 180_000);
});
