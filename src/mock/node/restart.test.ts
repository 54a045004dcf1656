// A frontend developer's day with a data directory: register an application in
// the portal, have it activated, log in through the screens in Chromium, create
// customers; the mock is killed (SIGKILL) and started again, and everything
// still works: the access token, the refresh token, the application, the customers.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadTarget } from "../../../conformance/lib/config.ts";
import { throughScreens } from "../../../conformance/lib/screens.ts";
import { releaseBrowser, testBrowser } from "../../browser-testing.ts";
import { ownMockSettings } from "../../cli/conformance.ts";
import { SCOPE, spawnMock } from "../testing.ts";

const dir = mkdtempSync(join(tmpdir(), "bawa-restart-"));
let browser: Browser;
beforeAll(async () => {
  browser = await testBrowser();
}, 60_000);
afterAll(async () => {
  await releaseBrowser(browser);
  rmSync(dir, { recursive: true, force: true });
});

const REDIRECT = "http://localhost:9911/callback";
const json = { "content-type": "application/json" };

describe("a mock with a data directory, killed and started again", () => {
  it("keeps the application, the tokens of a login through the screens and the customers", async () => {
    const first = await spawnMock(["--data-dir", dir]);
    const page = await browser.newPage();
    let clientId: string;
    let secret: string;
    let tokens: { access_token: string; refresh_token: string };
    const ids: string[] = [];
    try {
      // The portal, as a developer uses it.
      await page.goto(`${first.url}/portal`);
      await page.fill('input[name="name"]', "Restart test app");
      await page.fill('input[name="redirect_uri"]', REDIRECT);
      await Promise.all([page.waitForURL(/\/portal\/applications\/app-/), page.click('button:has-text("Register")')]);
      clientId = decodeURIComponent(page.url().split("/").pop()!);
      // The operator activates it; the portal then shows the credentials.
      const activated = await fetch(`${first.url}/__mock/applications/${clientId}/activate`, {
        method: "POST",
        headers: json,
        body: "{}",
      });
      expect(activated.status, await activated.text()).toBe(200);
      const apps = (await (await fetch(`${first.url}/__mock/applications`)).json()) as Array<{
        clientId: string;
        clientSecret?: string;
      }>;
      secret = apps.find((a) => a.clientId === clientId)!.clientSecret!;

      // Login and permission through the screens, then the code exchange.
      const target = loadTarget(ownMockSettings(first.url, "unused"));
      const landed = await throughScreens(page, target, {
        client: { clientId, clientSecret: secret, redirectUri: REDIRECT },
        responseType: "code",
        state: "restart",
      });
      const exchanged = await fetch(`${first.url}/v1/OAuth/Token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          grant_type: "authorization_code",
          code: landed.searchParams.get("code")!,
          client_id: clientId,
          client_secret: secret,
          redirect_uri: REDIRECT,
        }),
      });
      expect(exchanged.status, await exchanged.clone().text()).toBe(200);
      tokens = (await exchanged.json()) as typeof tokens;

      for (const Name of ["Kept A", "Kept B"]) {
        const made = await fetch(`${first.url}/v1/api/DEMO/Customer`, {
          method: "POST",
          headers: { ...json, authorization: `Bearer ${tokens.access_token}` },
          body: JSON.stringify({ Name }),
        });
        expect(made.status).toBe(200);
        ids.push(((await made.json()) as { CustomerId: string }).CustomerId);
      }
    } finally {
      await page.close();
      first.child.kill("SIGKILL");
    }

    const again = await spawnMock(["--data-dir", dir]);
    try {
      const bearer = { authorization: `Bearer ${tokens.access_token}` };
      for (const id of ids) {
        const res = await fetch(`${again.url}/v1/api/DEMO/Customer/${id}`, { headers: bearer });
        expect(res.status, await res.clone().text()).toBe(200);
        expect(((await res.json()) as { Name: string }).Name).toMatch(/^Kept /);
      }
      const refreshed = await fetch(`${again.url}/v1/OAuth/Token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          grant_type: "refresh_token",
          refresh_token: tokens.refresh_token,
          client_id: clientId,
          client_secret: secret,
          redirect_uri: REDIRECT,
        }),
      });
      expect(refreshed.status, await refreshed.clone().text()).toBe(200);
      expect(((await refreshed.json()) as { scope: string }).scope).toBe(SCOPE);
      const portal = await (await fetch(`${again.url}/portal/applications/${clientId}`)).text();
      expect(portal).toContain("Restart test app");
      expect(portal).toContain(secret);
    } finally {
      again.child.kill("SIGTERM");
    }
  }, 90_000);
});
