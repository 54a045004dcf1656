// The dashboard in headless Chromium, as a frontend developer uses it: switch
// on a fault, see the next API call fail and appear in the request log, move
// the clock past a token's lifetime, reset. Screenshots land in reports/dashboard/.
import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { releaseBrowser, testBrowser } from "../../browser-testing.ts";
import { PROJECT_ROOT } from "../../paths.ts";
import { buildMock } from "../index.ts";
import { backgroundTokens } from "../node/client.ts";
import { type Listening, listen } from "../node/listen.ts";
import { codeFlowTokens, DEMO_APP } from "../testing.ts";

const SHOTS = resolve(PROJECT_ROOT, "reports/dashboard");
let server: Listening;
let browser: Browser;
let token: string;

beforeAll(async () => {
  const mock = buildMock();
  token = codeFlowTokens(mock).access_token;
  server = await listen(mock, { host: "127.0.0.1", port: 0 });
  browser = await testBrowser();
  mkdirSync(SHOTS, { recursive: true });
}, 60_000);
afterAll(async () => {
  await releaseBrowser(browser);
  await server?.close();
});

const api = (path = "/v1/api/DEMO/Customer/1001") =>
  fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${token}` } });

/** The request log's row of the newest call to `path`. */
const logRow = (page: Page, path: string) => page.locator("#requests tbody tr", { hasText: path }).first();

describe("the dashboard in headless Chromium", () => {
  it("switches a fault on, shows the failing call, moves the clock past 7200 s, and resets", async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
    await page.goto(`${server.url}/__mock/`);
    await expect.poll(() => page.locator("#faults li").count()).toBeGreaterThan(50);
    // The links under the header lead to every section (the clock and the log sit below the faults).
    const sections = await page.locator("main > section").evaluateAll((s) => s.map((e) => `#${e.id}`));
    expect(await page.locator("#sections a").evaluateAll((a) => a.map((e) => e.getAttribute("href")))).toEqual(
      sections,
    );
    expect((await api()).status).toBe(200);
    await expect.poll(() => logRow(page, "/v1/api/DEMO/Customer/1001").locator("td.status").textContent()).toBe("200");

    // A fault, switched on in the dashboard, makes the next API call fail; the log shows it.
    await page.check('#faults input[name="valid-tokens-refused"]');
    await expect.poll(() => page.locator("#active").textContent()).toContain("valid-tokens-refused");
    const refused = await api("/v1/api/DEMO/Customer/1002");
    expect(refused.status).toBe(401);
    expect(refused.headers.get("x-bawa-faults")).toBe("valid-tokens-refused");
    const row = logRow(page, "/v1/api/DEMO/Customer/1002");
    await expect.poll(() => row.locator("td.status").textContent()).toBe("401");
    expect(await row.textContent()).toContain(DEMO_APP.clientId);
    expect(await row.locator("td.user").isVisible()).toBe(true);
    await page.screenshot({ path: resolve(SHOTS, "dashboard-fault.jpg"), fullPage: true, quality: 80 });
    await page.uncheck('#faults input[name="valid-tokens-refused"]');
    await expect.poll(async () => (await api()).status).toBe(200);

    // The clock moves past the token's lifetime: the token is refused, the tokens table says expired.
    await page.click('button[data-advance="7200"]');
    await expect.poll(async () => (await api("/v1/api/DEMO/Customer/1003")).status).toBe(401);
    await expect
      .poll(() => logRow(page, "/v1/api/DEMO/Customer/1003").textContent())
      .toContain("The access token expired");
    await expect.poll(() => page.locator("#tokens tbody td.state-expired").count()).toBeGreaterThan(0);
    // The log gives the time on the moved clock beside the machine's: what the token aged by.
    expect(await logRow(page, "/v1/api/DEMO/Customer/1003").locator(".mock-time").textContent()).toMatch(
      /^mock \d\d-\d\d \d\d:\d\d:\d\d$/,
    );
    await page.screenshot({ path: resolve(SHOTS, "dashboard-clock.jpg"), fullPage: true, quality: 80 });

    // Reset: scenarios off; a new token works; nothing marks the answers any more.
    await page.check('#faults input[name="field-missing"]');
    await expect.poll(() => page.locator("#active").textContent()).toContain("field-missing");
    // It asks first: a dismissed question changes nothing, an accepted one resets.
    const asked: string[] = [];
    page.once("dialog", (d) => {
      asked.push(d.message());
      void d.dismiss();
    });
    await page.click("#reset");
    expect(asked).toEqual([
      "Reset everything? Objects, applications, scenarios and the clock back to the start; issued tokens stay valid.",
    ]);
    expect(await page.isChecked('#faults input[name="field-missing"]')).toBe(true);
    expect((await (await fetch(`${server.url}/__mock/scenarios`)).json()).active).toBe("field-missing");
    page.once("dialog", (d) => void d.accept());
    await page.click("#reset");
    await expect.poll(() => page.locator("#active").isHidden()).toBe(true);
    expect(await page.isChecked('#faults input[name="field-missing"]')).toBe(false);
    token = (await backgroundTokens(server.url)).access;
    const back = await api();
    expect(back.status).toBe(200);
    expect(back.headers.get("x-bawa-faults")).toBeNull();
    expect(await back.json()).toHaveProperty("Fax");
    await page.click('#databases button[data-collection="Customer"]');
    await expect.poll(() => page.locator("#objects tbody tr").count()).toBe(6);
    await expect.poll(() => page.locator("#objects-title").textContent()).toBe("Customer of DEMO (6)");
    expect(await page.locator("#resources tbody").textContent()).toContain("AdministrationInfoList");
    await page.screenshot({ path: resolve(SHOTS, "dashboard.jpg"), fullPage: true, quality: 80 });
    expect(errors, "errors in the page").toEqual([]);
    await page.close();
  }, 60_000);
});
