// A browser app through bawa proxy, in Chromium, as a frontend team runs it
// against a real environment: the code flow through the target's screens (the
// redirects and the cookies pass the proxy unchanged), the code exchanged and
// the API called with fetch() from the app's own origin. In front of the mock
// without faults nothing is flagged; with a fault on, the answer that breaks a
// rule carries X-Bawa-Violations and the proxy's dashboard shows what it broke.
// Screenshots land in reports/proxy/.
import { mkdirSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { resolve } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { releaseBrowser, testBrowser } from "../browser-testing.ts";
import { type BawaMock, buildMock } from "../mock/index.ts";
import { type Listening, listen } from "../mock/node/listen.ts";
import { DEMO_APP, SCOPE, SEED } from "../mock/testing.ts";
import { PROJECT_ROOT } from "../paths.ts";
import { type RunningProxy, startProxy } from "./node.ts";

const SHOTS = resolve(PROJECT_ROOT, "reports/proxy");
let mock: BawaMock;
let server: Listening;
let proxy: RunningProxy;
let browser: Browser;
let app: { origin: string; close(): void };

beforeAll(async () => {
  mock = buildMock();
  server = await listen(mock, { host: "127.0.0.1", port: 0 });
  proxy = await startProxy({ target: server.url, host: "127.0.0.1", port: 0, contract: mock.ctx.contract });
  browser = await testBrowser();
  // The seed's redirect URI is http://localhost:5173/callback; where 5173 is taken, another port is registered.
  app = await serveApp(5173).catch(() => serveApp(0));
  if (app.origin !== "http://localhost:5173")
    mock.registry.changeRedirectUri(DEMO_APP.clientId, `${app.origin}/callback`);
  mkdirSync(SHOTS, { recursive: true });
}, 60_000);
afterAll(async () => {
  app?.close();
  await releaseBrowser(browser);
  await proxy?.close();
  await server?.close();
});

/** The app's page: after the redirect, it exchanges the code at the proxy and calls the API through it. */
const appPage = (api: string) => `<!doctype html><meta charset="utf-8"><title>app</title><script>
const api = ${JSON.stringify(api)};
window.run = async () => {
  const code = new URLSearchParams(location.search).get("code");
  const form = (p) => ({ method: "POST", body: new URLSearchParams(p) });
  const client = { client_id: ${JSON.stringify(DEMO_APP.clientId)}, client_secret: ${JSON.stringify(DEMO_APP.clientSecret)}, redirect_uri: location.origin + "/callback" };
  const token = await fetch(api + "/v1/OAuth/Token", form({ grant_type: "authorization_code", code, ...client }));
  const tokens = await token.json();
  const list = await fetch(api + "/v1/api/DEMO/CustomerInfoList", { headers: { authorization: "Bearer " + tokens.access_token } });
  const customers = await list.json();
  window.read = async (id) => {
    const res = await fetch(api + "/v1/api/DEMO/Customer/" + id, { headers: { authorization: "Bearer " + tokens.access_token } });
    return [res.status, res.headers.get("x-bawa-violations")];
  };
  window.refresh = async () => {
    const res = await fetch(api + "/v1/OAuth/Token", form({ grant_type: "refresh_token", refresh_token: tokens.refresh_token, ...client }));
    return [res.status, res.headers.get("x-bawa-violations"), (await res.json()).expires_in];
  };
  return [token.status, token.headers.get("x-bawa-violations"), list.status, customers.length];
};
</script>`;

async function serveApp(port: number): Promise<{ origin: string; close(): void }> {
  const server = createServer((_req, res) =>
    res.writeHead(200, { "content-type": "text/html" }).end(appPage(proxy.url)),
  );
  await new Promise<void>((done, fail) => {
    server.once("error", fail);
    server.listen(port, "127.0.0.1", done);
  });
  return { origin: `http://localhost:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

describe("a browser app through bawa proxy", () => {
  it("walks the code flow through the proxy, and sees a broken rule flagged in the answer and the dashboard", async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    const authorize = new URL(`${proxy.url}/v1/OAuth/Authorize`);
    authorize.search = new URLSearchParams({
      client_id: DEMO_APP.clientId,
      redirect_uri: `${app.origin}/callback`,
      scope: SCOPE,
      response_type: "code",
      state: "through-the-proxy",
    }).toString();
    await page.goto(authorize.href);
    // The screens are the target's, served through the proxy at the proxy's address.
    expect(new URL(page.url()).origin).toBe(proxy.url);
    await page.fill('input[name="username"]', SEED.user.username);
    await page.fill('input[name="password"]', SEED.user.password);
    await page.click('button[type="submit"]');
    expect(new URL(page.url()).origin).toBe(proxy.url);
    await page.click('button[name="decision"][value="allow"]');
    await page.waitForURL((u) => u.href.startsWith(`${app.origin}/callback`));
    expect(new URL(page.url()).searchParams.get("state")).toBe("through-the-proxy");
    expect(await page.evaluate(() => (window as unknown as { run(): Promise<unknown> }).run())).toEqual([
      200,
      null,
      200,
      6,
    ]);
    const flow = proxy.log.since(0);
    expect(flow.map((e) => `${e.method} ${e.path.split("?")[0]} ${e.status}`)).toEqual(
      expect.arrayContaining([
        "GET /v1/OAuth/Authorize 302",
        "GET /v1/OAuth/Login 200",
        "POST /v1/OAuth/Login 303",
        "GET /v1/OAuth/Permission 200",
        "POST /v1/OAuth/Permission 303",
        "POST /v1/OAuth/Token 200",
        "GET /v1/api/DEMO/CustomerInfoList 200",
      ]),
    );
    expect(flow.flatMap((e) => e.violations ?? [])).toEqual([]);
    // A data call names no client: the log shows the one its token was issued to.
    const list = flow.find((e) => e.method === "GET" && e.path.endsWith("/CustomerInfoList"));
    expect(list?.client).toBe(DEMO_APP.clientId);

    // The dashboard says that it judged, and that nothing broke a rule.
    const dashboard = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    dashboard.on("pageerror", (e) => errors.push(e.message));
    await dashboard.goto(`${proxy.url}/__mock/`);
    const note = dashboard.locator("#requests-note");
    await expect.poll(() => note.textContent()).toMatch(/; \d+ answers judged, none broke a rule\)$/);
    const listRow = dashboard.locator("#requests tbody tr", { hasText: /GET\s*\/v1\/api\/DEMO\/CustomerInfoList/ });
    expect(await listRow.locator("td").nth(5).textContent()).toBe(DEMO_APP.clientId);
    // No user column: a proxy ties no login to a token.
    expect(await dashboard.locator("#requests th.user").isHidden()).toBe(true);
    expect(await listRow.locator("td.user").isHidden()).toBe(true);

    // Planted drifts: expires_in 3600, ISO dates. The app can read the count; the dashboard shows what broke.
    mock.scenarios.set("expires-in-3600", true);
    mock.scenarios.set("dates-iso", true);
    type App = { refresh(): Promise<unknown>; read(id: string): Promise<unknown> };
    expect(await page.evaluate(() => (window as unknown as App).refresh())).toEqual([200, "1", 3600]);
    expect(await page.evaluate(() => (window as unknown as App).read("1001"))).toEqual([200, "2"]);
    const rows = dashboard.locator("#requests tbody tr.violated");
    await expect.poll(() => rows.count()).toBe(2);
    expect(await rows.nth(0).textContent()).toContain(
      'CUST-DATES body.CocDate: expected month/day/year, found "2011-03-14"',
    );
    expect(await rows.nth(1).textContent()).toContain("TOKEN-RESPONSE body.expires_in: expected 7200, found 3600");
    // Only the requests are shown: no links to the mock's sections, which the proxy has not.
    expect(await dashboard.locator("#sections").isHidden()).toBe(true);
    expect(await note.textContent()).toMatch(/; \d+ answers judged, 2 broke a rule\)$/);
    expect(await dashboard.locator("#scenarios-section").isHidden()).toBe(true);
    expect(await dashboard.locator("h1").textContent()).toBe("bawa proxy");
    await dashboard.screenshot({ path: resolve(SHOTS, "dashboard-violations.png"), fullPage: true });
    mock.scenarios.reset();
    expect(errors, "errors in the pages").toEqual([]);
    await dashboard.close();
    await page.close();
  }, 60_000);
});
