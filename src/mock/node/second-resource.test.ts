// A second resource is an edit of the contract and nothing else: the contract
// with every path and component of Customer copied as Supplier
// (scripts/copy-resource.mjs), no TypeScript changed, and the mock serves it
// with the same rules, keeps it across a restart and shows it on the dashboard;
// the suite, run on the same contract, checks it with the generic rules.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeCopy } from "../../../scripts/copy-resource.mjs";
import { releaseBrowser, testBrowser } from "../../browser-testing.ts";
import { ownMockSettings } from "../../cli/conformance.ts";
import { CONTRACT_PATH, contractInUse } from "../../contract/index.ts";
import { PROJECT_ROOT } from "../../paths.ts";
import { DEFAULT_SEED_DIR } from "../seed.ts";
import { spawnMock } from "../testing.ts";
import { backgroundTokens } from "./client.ts";

const dir = mkdtempSync(join(tmpdir(), "bawa-second-resource-"));
const contract = writeCopy({ from: "Customer", to: "Supplier", out: join(dir, "openapi.yaml") });
const dataDir = join(dir, "data");
let browser: Browser;
beforeAll(async () => {
  browser = await testBrowser();
}, 60_000);
afterAll(async () => {
  await releaseBrowser(browser);
  rmSync(dir, { recursive: true, force: true });
});

const JSON_TYPE = { "content-type": "application/json" };

/** The objects the seed in use gives a database, per editable resource of the contract in use (0 when none). */
function seededIn(database: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const c of contractInUse().resources.collections.filter((x) => x.editable && x.databaseScoped)) {
    const file = join(DEFAULT_SEED_DIR, c.name, `${database}.json`);
    out[c.name] = existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as unknown[]).length : 0;
  }
  return out;
}

describe("a contract with Supplier copied from Customer, and no code of its own", () => {
  it("is the hand-written contract byte for byte, the copies inserted (comments, anchors and layout kept)", () => {
    // The contract in use (BAWA_CONTRACT, else the project's) is what was copied into.
    const original = readFileSync(CONTRACT_PATH, "utf8").split("\n");
    const copied = readFileSync(contract, "utf8").split("\n");
    // Every line of the original, in its order: what the copy adds sits between them.
    let next = 0;
    for (const line of copied) if (line === original[next]) next++;
    expect(next, `first original line missing: ${original[next]}`).toBe(original.length);
    expect(copied).toContain("  /api/{database_id}/Supplier/{supplier_id}:");
    expect(copied).toContain("    SupplierRequest:");
  });

  it("is served with full CRUD in JSON and XML, the status rules, its info list, across a restart, on the dashboard", async () => {
    let mock = await spawnMock(["--contract", contract, "--data-dir", dataDir]);
    try {
      const { access } = await backgroundTokens(mock.url);
      const auth = { authorization: `Bearer ${access}` };
      const api = (path: string, init: RequestInit = {}) =>
        fetch(`${mock.url}/v1/api${path}`, { ...init, headers: { ...auth, ...(init.headers ?? {}) } });

      // Create: an empty id gets the next number; the database is the path's; dates are written MM/dd/yyyy.
      const created = await api("/DEMO/Supplier", {
        method: "POST",
        headers: JSON_TYPE,
        body: JSON.stringify({ SupplierId: "", Name: "Groothandel Noord", City: "Zwolle", CocDate: "3/4/2020" }),
      });
      expect(created.status, await created.clone().text()).toBe(200);
      const supplier = (await created.json()) as Record<string, unknown>;
      expect(supplier).toMatchObject({ SupplierId: "1", Database: "DEMO", CocDate: "03/04/2020", OrganizationId: 1 });

      // Read in JSON and XML (DataContract elements named after the copy's schema).
      expect(await (await api("/DEMO/Supplier/1")).json()).toEqual(supplier);
      const xml = await api("/DEMO/Supplier/1", { headers: { accept: "application/xml" } });
      expect(xml.headers.get("content-type")).toBe("application/xml; charset=utf-8");
      expect(await xml.text()).toMatch(
        /<Supplier xmlns:i=[^>]+>.*<SupplierId>1<\/SupplierId>.*<Name>Groothandel Noord<\/Name>/s,
      );

      // Update, in XML; the list shows it; then the status rules.
      const put = await api("/DEMO/Supplier/1", {
        method: "PUT",
        headers: { "content-type": "application/xml" },
        body: "<Supplier><SupplierId>1</SupplierId><Name>Groothandel Noord</Name><City>Kampen</City></Supplier>",
      });
      expect(put.status, await put.clone().text()).toBe(200);
      expect(await (await api("/DEMO/SupplierInfoList")).json()).toEqual([
        expect.objectContaining({ SupplierId: "1", Name: "Groothandel Noord", City: "Kampen" }),
      ]);
      const missing = await api("/DEMO/Supplier", { method: "POST", headers: JSON_TYPE, body: '{"City":"Ede"}' });
      expect(missing.status).toBe(400);
      expect(((await missing.json()) as { ModelState: object }).ModelState).toEqual({
        "supplier.Name": ["Name is required"],
      });
      expect((await api("/DEMO/Supplier/77")).status, "an unknown id").toBe(404);
      expect((await api("/DEMO/SupplierList")).status, "a path that does not exist").toBe(404);
      expect((await fetch(`${mock.url}/v1/api/DEMO/Supplier/1`)).status, "no token").toBe(401);
      expect((await api("/SupplierInfoList")).status, "no database").toBe(401);
      expect((await api("/OTHER/SupplierInfoList")).status, "a database of another user").toBe(401);
      // Per database: the customer of the same number is another object, in another collection.
      expect(((await (await api("/DEMO/Customer/1001")).json()) as { Name: string }).Name).not.toBe(
        "Groothandel Noord",
      );
      const databases = (await (await fetch(`${mock.url}/__mock/databases`)).json()) as Array<{
        database: string;
        objects: Record<string, number>;
      }>;
      // What the seed in use holds for DEMO (the project's, or a team's with resources of its own), and the supplier.
      expect(databases.find((d) => d.database === "DEMO")?.objects).toEqual({ ...seededIn("DEMO"), Supplier: 1 });
      expect(databases.find((d) => d.database === "OTHER")?.objects).toEqual({ ...seededIn("OTHER"), Supplier: 0 });
    } finally {
      mock.child.kill("SIGKILL");
    }

    // Killed and started again on the same data directory: the supplier is still there.
    mock = await spawnMock(["--contract", contract, "--data-dir", dataDir]);
    try {
      const { access } = await backgroundTokens(mock.url);
      const again = await fetch(`${mock.url}/v1/api/DEMO/Supplier/1`, {
        headers: { authorization: `Bearer ${access}` },
      });
      expect(await again.json()).toMatchObject({ SupplierId: "1", City: "Kampen", OrganizationId: 1 });

      // The dashboard shows the new resource beside the customer, with its objects.
      const page = await browser.newPage();
      await page.goto(`${mock.url}/__mock/`);
      await page.click('#databases button[data-collection="Supplier"]');
      await expect.poll(() => page.locator("#objects-title").textContent()).toBe("Supplier of DEMO (1)");
      expect(await page.locator("#objects thead").textContent()).toContain("SupplierId");
      expect(await page.locator("#resources tbody").textContent()).toContain("SupplierInfoList");
      await page.close();

      // The suite on the same contract checks Supplier with the generic checks, and they pass.
      const { refresh } = await backgroundTokens(mock.url);
      const reports = join(dir, "reports");
      const run = await new Promise<{ code: number; out: string }>((done) => {
        const child = spawn(
          process.execPath,
          [join(PROJECT_ROOT, "bin/bawa.js"), "conformance", "--grep", "Supplier(InfoList)?: ", "--output", reports],
          {
            cwd: dir,
            env: { ...process.env, ...ownMockSettings(mock.url, refresh), CONFORMANCE_CONTRACT: contract, CI: "1" },
          },
        );
        let out = "";
        child.stdout.on("data", (d) => (out += d));
        child.stderr.on("data", (d) => (out += d));
        child.on("exit", (code) => done({ code: code ?? 1, out }));
      });
      expect(run.code, run.out).toBe(0);
      const summary = JSON.parse(readFileSync(join(reports, "summary.json"), "utf8")) as {
        requirements: Array<{ id: string; verdict: string; checks: Array<{ title: string; status: string }> }>;
      };
      const checked = summary.requirements.flatMap((r) =>
        r.checks.filter((c) => /^Supplier/.test(c.title)).map((c) => `${r.id}: ${c.status}`),
      );
      expect(checked.sort()).toEqual(
        [
          "A-INVALID-BODIES: passed",
          "A-INVALID-BODIES: passed",
          "A-INVALID-BODIES: passed",
          "A-INVALID-BODIES: passed",
          "A-INVALID-BODIES: passed",
          // A replacement (PUT) of each kind of invalid value, and one in malformed JSON or XML.
          "A-INVALID-BODIES: passed",
          "A-INVALID-BODIES: passed",
          // A property of the wrong type in XML.
          "A-INVALID-BODIES: passed",
          // A text under its minLength (Name's 1, copied from the customer).
          "A-INVALID-BODIES: passed",
          // The contract's defaults, another id in a PUT, the info list's fields: per resource.
          "A-DEFAULTS: passed",
          "A-PUT-ID: passed",
          "A-INFO-FIELDS: passed",
          // The enum check: Supplier's schema lists no enum (not applicable, so skipped).
          "A-INVALID-BODIES: skipped",
          "CUST-DEFAULTS: passed",
          "ERR-2-ID: passed",
          "ERR-3-REQUIRED: passed",
          "ERR-4-DATABASE: passed",
          "ERR-4-DATABASE: passed",
          "ERR-4-TOKEN: passed",
          "ERR-4-TOKEN: passed",
          "INFO-LIST: passed",
          "SVC-FIELDS: passed",
          "SVC-FORMATS: passed",
          "SVC-FORMATS: passed",
          "SVC-FORMATS-WRITE: passed",
          "SVC-METHODS: passed",
          "SVC-READ-ONLY-LIST: passed",
          "SVC-REQUIRED: passed",
          // A replacement (PUT) without each required property.
          "SVC-REQUIRED: passed",
          "SVC-RESOURCE-ADDRESS: passed",
          "VER-CASE: passed",
          "VER-CASE: passed",
        ].sort(),
      );
    } finally {
      mock.child.kill("SIGKILL");
    }
  }, 120_000);
});
