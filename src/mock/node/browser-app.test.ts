// A browser app on another origin, as a frontend team writes it: served from
// http://localhost:5173 (the seed's registered redirect URI), it completes the
// implicit flow through the screens, then lists, creates, changes and deletes
// a customer and refreshes a token with fetch(). Chromium enforces CORS, so a
// page on an origin that is not allowed is refused by the browser itself.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { releaseBrowser, testBrowser } from "../../browser-testing.ts";
import { buildMock } from "../index.ts";
import { DEMO_APP, SCOPE, SEED } from "../testing.ts";
import { type Listening, listen } from "./listen.ts";

let server: Listening;
let browser: Browser;
let app: Awaited<ReturnType<typeof serveApp>>;

beforeAll(async () => {
  const mock = buildMock();
  server = await listen(mock, { host: "127.0.0.1", port: 0 });
  browser = await testBrowser();
  // The seed's registered redirect URI is http://localhost:5173/callback, so that origin may call by
  // default. Where 5173 is taken (a developer's Vite), another port is registered in its place.
  app = await serveApp(5173).catch(() => serveApp(0));
  if (app.origin !== "http://localhost:5173")
    mock.registry.changeRedirectUri(DEMO_APP.clientId, `${app.origin}/callback`);
}, 60_000);
afterAll(async () => {
  app?.close();
  await releaseBrowser(browser);
  await server?.close();
});

/** The app: a page whose script does what a frontend does, and reports each step. */
const appPage = (api: string) => `<!doctype html><meta charset="utf-8"><title>app</title><script>
const api = ${JSON.stringify(api)};
const client = ${JSON.stringify({ client_id: DEMO_APP.clientId, client_secret: DEMO_APP.clientSecret })};
async function step(name, run) {
  try { return await run(); } catch (e) { window.results.push([name, "error: " + e.message]); throw e; }
}
window.results = [];
window.run = async (refreshToken) => {
  const token = new URLSearchParams(location.hash.slice(1)).get("access_token");
  const auth = { authorization: "Bearer " + token, accept: "application/json" };
  const json = { ...auth, "content-type": "application/json" };
  const list = await step("list", () => fetch(api + "/v1/api/DEMO/CustomerInfoList", { headers: auth }));
  results.push(["list", list.status, (await list.json()).length]);
  const created = await step("create", () => fetch(api + "/v1/api/DEMO/Customer", { method: "POST", headers: json, body: JSON.stringify({ name: "Browser B.V.", city: "Zeist" }) }));
  const customer = await created.json();
  results.push(["create", created.status, customer.CustomerId]);
  const changed = await step("change", () => fetch(api + "/v1/api/DEMO/Customer/" + customer.CustomerId, { method: "PUT", headers: json, body: JSON.stringify({ ...customer, City: "Bunnik" }) }));
  results.push(["change", changed.status, (await changed.json()).City]);
  const removed = await step("delete", () => fetch(api + "/v1/api/DEMO/Customer/" + customer.CustomerId, { method: "DELETE", headers: auth }));
  results.push(["delete", removed.status]);
  const gone = await step("read", () => fetch(api + "/v1/api/DEMO/Customer/" + customer.CustomerId, { headers: auth }));
  results.push(["read", gone.status, gone.headers.get("www-authenticate") === null]);
  const refreshed = await step("refresh", () => fetch(api + "/v1/OAuth/Token", {
    method: "POST",
    body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: refreshToken, ...client, redirect_uri: location.origin + "/callback" }),
  }));
  results.push(["refresh", refreshed.status, (await refreshed.json()).expires_in]);
  const denied = await step("401", () => fetch(api + "/v1/api/DEMO/CustomerInfoList"));
  results.push(["401", denied.status, denied.headers.get("www-authenticate")]);
  return results;
};
</script>`;

/**
 * Serves the app on a real loopback port, as a frontend's dev server does
 * (Chromium's Local Network Access treats a page Playwright fulfils as public,
 * and would block its calls to loopback before CORS is even asked).
 */
async function serveApp(port: number): Promise<{ origin: string; close(): void }> {
  const app = createServer((_req, res) => res.writeHead(200, { "content-type": "text/html" }).end(appPage(server.url)));
  await new Promise<void>((done, fail) => {
    app.once("error", fail);
    app.listen(port, "127.0.0.1", done);
  });
  return { origin: `http://localhost:${(app.address() as AddressInfo).port}`, close: () => app.close() };
}

async function backgroundRefreshToken(): Promise<string> {
  const res = await fetch(`${server.url}/__mock/refresh-tokens`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ clientId: DEMO_APP.clientId, clientSecret: DEMO_APP.clientSecret }),
  });
  return ((await res.json()) as { refresh_token: string }).refresh_token;
}

describe("a browser app on http://localhost:5173", () => {
  it("completes the implicit flow through the screens, then calls the API and the token endpoint with fetch()", async () => {
    const page = await browser.newPage();
    await page.goto(`${app.origin}/`);
    // The app sends the user to the authorization server, as an implicit-flow app does.
    const authorize = new URL(`${server.url}/v1/OAuth/Authorize`);
    authorize.search = new URLSearchParams({
      client_id: DEMO_APP.clientId,
      redirect_uri: `${app.origin}/callback`,
      scope: SCOPE,
      response_type: "token",
      state: "app-state",
    }).toString();
    await page.evaluate((to) => location.assign(to), authorize.href);
    await page.fill('input[name="username"]', SEED.user.username);
    await page.fill('input[name="password"]', SEED.user.password);
    await page.click('button[type="submit"]');
    await page.click('button[name="decision"][value="allow"]');
    await page.waitForURL((u) => u.href.startsWith(`${app.origin}/callback`));
    const results = await page.evaluate(
      (rt) => (window as unknown as { run(rt: string): Promise<unknown[]> }).run(rt),
      await backgroundRefreshToken(),
    );
    expect(results).toEqual([
      ["list", 200, 6],
      ["create", 200, "1007"],
      ["change", 200, "Bunnik"],
      ["delete", 200],
      ["read", 404, true],
      ["refresh", 200, 7200],
      ["401", 401, 'Bearer realm="bawa"'],
    ]);
    await page.close();
  }, 60_000);

  it("a page on an origin that is not allowed is refused by the browser", async () => {
    const page = await browser.newPage();
    const messages: string[] = [];
    page.on("console", (m) => messages.push(m.text()));
    const other = await serveApp(0);
    await page.goto(`${other.origin}/#access_token=whatever`);
    const outcome = await page.evaluate(async (api) => {
      try {
        await fetch(`${api}/v1/api/DEMO/CustomerInfoList`, { headers: { authorization: "Bearer x" } });
        return "answered";
      } catch (e) {
        return `refused: ${(e as Error).message}`;
      }
    }, server.url);
    expect(outcome).toBe("refused: Failed to fetch");
    expect(messages.join("\n")).toMatch(
      /blocked by CORS policy: Response to preflight request doesn't pass access control check: No 'Access-Control-Allow-Origin' header/,
    );
    other.close();
    await page.close();
  }, 60_000);
});
