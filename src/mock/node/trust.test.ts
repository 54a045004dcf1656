// Over a real port and in Chromium: a page on the origin of an application that
// is registered but still pending can neither read the control calls (client
// secrets) nor switch rules; once the operator activates the application it
// can. And the node adapter tells the core the client's address, so the caps
// per source count the real source.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { releaseBrowser, testBrowser } from "../../browser-testing.ts";
import { MAX_PENDING_AUTHORIZATIONS_PER_SOURCE } from "../core/limits.ts";
import { type BawaMock, buildMock } from "../index.ts";
import { call, DEMO_APP, portalPostHttp, SCOPE } from "../testing.ts";
import { type Listening, listen } from "./listen.ts";

let mock: BawaMock;
let server: Listening;
let browser: Browser;
let site: Server;
let origin: string;

beforeAll(async () => {
  mock = buildMock();
  server = await listen(mock, { host: "127.0.0.1", port: 0 });
  site = createServer((_req, res) => res.writeHead(200, { "content-type": "text/html" }).end("<p>a page</p>"));
  await new Promise<void>((done) => site.listen(0, "127.0.0.1", done));
  origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  browser = await testBrowser();
}, 60_000);
afterAll(async () => {
  await releaseBrowser(browser);
  site?.close();
  await server?.close();
});

describe("a page on a pending application's origin", () => {
  it("reads no client secret and switches no rule, until the application is activated", async () => {
    const registered = await portalPostHttp(server.url, "/portal", "/portal/applications", {
      name: "Lure",
      redirect_uri: `${origin}/cb`,
    });
    expect(registered.status).toBe(303);
    const clientId = registered.headers.get("location")!.split("/").pop()!;
    const page = await browser.newPage();
    try {
      await page.goto(origin);
      const attempt = () =>
        page.evaluate(async (mockUrl) => {
          const outcome = (p: Promise<Response>) =>
            p.then(
              async (r) => `${r.status} ${(await r.text()).slice(0, 200)}`,
              (e: Error) => `refused: ${e.message}`,
            );
          return {
            read: await outcome(fetch(`${mockUrl}/__mock/applications`)),
            switched: await outcome(
              fetch(`${mockUrl}/__mock/rules`, {
                method: "POST",
                headers: { "content-type": "application/json" },
                body: JSON.stringify({ checkClientSecret: false }),
              }),
            ),
          };
        }, server.url);
      const pending = await attempt();
      expect(pending.read).toMatch(/^refused: Failed to fetch/);
      expect(pending.switched).toMatch(/^refused: Failed to fetch/);
      expect(mock.ctx.rules.checkClientSecret).toBe(true);

      mock.registry.activate(clientId);
      const active = await attempt();
      expect(active.read).toMatch(/^200 .*clientSecret/);
      expect(active.switched).toMatch(/^200 /);
      expect(mock.ctx.rules.checkClientSecret).toBe(false);
    } finally {
      await page.close();
    }
  }, 30_000);
});

describe("the login screen in Chromium", () => {
  it("shows a locked user name as the form again, with status 429, the message and Retry-After", async () => {
    const authorizeUrl = `${server.url}/v1/OAuth/Authorize?${new URLSearchParams({ client_id: DEMO_APP.clientId, redirect_uri: DEMO_APP.redirectUri, scope: SCOPE, response_type: "code" })}`;
    // Locked in process first: a user name's count is the same from every source.
    const opened = call(mock, "GET", authorizeUrl.slice(server.url.length));
    const cookie = opened.headers["set-cookie"]!.split(";")[0]!;
    const form = call(mock, "GET", opened.headers.location!, { headers: { cookie } }).text;
    const fields = { request: /name="request" value="([^"]+)"/, csrf: /name="csrf" value="([^"]+)"/ };
    const body = new URLSearchParams({
      request: fields.request.exec(form)![1]!,
      csrf: fields.csrf.exec(form)![1]!,
      username: "demo",
      password: "guess",
    }).toString();
    for (let i = 0; i < 10; i++) {
      call(mock, "POST", "/v1/OAuth/Login", {
        headers: { "content-type": "application/x-www-form-urlencoded", cookie },
        body,
      });
    }
    const page = await browser.newPage();
    try {
      await page.goto(authorizeUrl);
      await page.fill('input[name="username"]', "demo");
      await page.fill('input[name="password"]', "demo");
      const answered = page.waitForResponse((r) => r.request().method() === "POST");
      await page.click('button[type="submit"]');
      const res = await answered;
      expect(res.status()).toBe(429);
      expect(Number(res.headers()["retry-after"])).toBeGreaterThan(0);
      await expect
        .poll(() => page.getByRole("alert").textContent())
        .toMatch(/^Too many wrong passwords for this user name; try again in \d+ s\.$/);
      expect(await page.locator('input[name="password"]').isVisible()).toBe(true);
    } finally {
      await page.close();
    }
  }, 30_000);
});

describe("the node adapter", () => {
  it("passes the client's address on, so the cap per source names it", async () => {
    const fresh = buildMock({ contract: mock.ctx.contract });
    const own = await listen(fresh, { host: "127.0.0.1", port: 0 });
    try {
      const url = `${own.url}/v1/OAuth/Authorize?${new URLSearchParams({ client_id: DEMO_APP.clientId, redirect_uri: DEMO_APP.redirectUri, scope: SCOPE, response_type: "code" })}`;
      // Logins under way (each screen shown to the browser that started it): a full address refuses.
      const startLogin = async () => {
        const started = await fetch(url, { redirect: "manual" });
        const cookie = started.headers.get("set-cookie")!.split(";")[0]!;
        const screen = await fetch(`${own.url}${started.headers.get("location")}`, { headers: { cookie } });
        return [started.status, screen.status];
      };
      const statuses: number[] = [];
      for (let sent = 0; sent < MAX_PENDING_AUTHORIZATIONS_PER_SOURCE; sent += 100) {
        for (const pair of await Promise.all(Array.from({ length: 100 }, startLogin))) statuses.push(...pair);
      }
      expect(statuses.every((s) => s === 302 || s === 200)).toBe(true);
      const refused = await fetch(url, { redirect: "manual" });
      expect(refused.status).toBe(429);
      expect(await refused.text()).toContain(
        `The address 127.0.0.1 has ${MAX_PENDING_AUTHORIZATIONS_PER_SOURCE.toLocaleString("en")} authorization requests`,
      );
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    } finally {
      await own.close();
    }
  });
});
