// Both OAuth flows end to end through the real screens in headless Chromium;
// the code exchange and the refresh done by an independent client (oauth4webapi).
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import * as oauth from "oauth4webapi";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadTarget } from "../../../conformance/lib/config.ts";
import { throughScreens as suiteThroughScreens } from "../../../conformance/lib/screens.ts";
import { releaseBrowser, testBrowser } from "../../browser-testing.ts";
import { ownMockSettings } from "../../cli/conformance.ts";
import { buildMock } from "../index.ts";
import { DEMO_APP, SCOPE } from "../testing.ts";
import { type Listening, listen } from "./listen.ts";

let server: Listening;
let browser: Browser;

beforeAll(async () => {
  server = await listen(buildMock(), { host: "127.0.0.1", port: 0 });
  browser = await testBrowser();
}, 60_000);
afterAll(async () => {
  await releaseBrowser(browser);
  await server?.close();
});

const insecure = { [oauth.allowInsecureRequests]: true } as const;
const authorizationServer = (): oauth.AuthorizationServer => ({
  issuer: server.url,
  authorization_endpoint: `${server.url}/v1/OAuth/Authorize`,
  token_endpoint: `${server.url}/v1/OAuth/Token`,
});
const client: oauth.Client = { client_id: DEMO_APP.clientId };
// Both ways RFC 6749 2.3.1 lets a confidential client authenticate; generic libraries default to Basic.
const CLIENT_AUTH = {
  ClientSecretPost: oauth.ClientSecretPost(DEMO_APP.clientSecret),
  ClientSecretBasic: oauth.ClientSecretBasic(DEMO_APP.clientSecret),
};

/**
 * Opens the authorize URL, logs in and decides on the permission screen, like a
 * person would, with the conformance suite's screen driver (which catches the
 * redirect to the application, where nothing listens, as it is requested).
 */
function throughScreens(
  page: Page,
  responseType: "code" | "token",
  state: string,
  decision: "allow" | "deny" = "allow",
) {
  const target = loadTarget(ownMockSettings(server.url, "unused"));
  return suiteThroughScreens(page, target, { responseType, state, decision });
}

/** A code flow through both screens of `target` with the suite's driver, in a page of its own. */
async function codeFlowOf(target: ReturnType<typeof loadTarget>, state: string): Promise<URL> {
  const page = await browser.newPage();
  const seen = { login: false, permission: false };
  const callback = await suiteThroughScreens(page, target, { responseType: "code", state, seen });
  await page.close();
  expect(seen).toEqual({ login: true, permission: true });
  return callback;
}

const api = (token: string) =>
  fetch(`${server.url}/v1/api/DEMO/CustomerInfoList`, { headers: { authorization: `Bearer ${token}` } });
const moveClock = (seconds: number) =>
  fetch(`${server.url}/__mock/clock`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ advanceSeconds: seconds }),
  });

describe("in headless Chromium", () => {
  it.each(Object.entries(CLIENT_AUTH))(
    "the code flow with %s: screens, exchange and refresh by oauth4webapi, refused after 7200 s",
    async (_name, clientAuth) => {
      const page = await browser.newPage();
      const state = oauth.generateRandomState();
      const callback = await throughScreens(page, "code", state);
      await page.close();

      const as = authorizationServer();
      const params = oauth.validateAuthResponse(as, client, callback, state);
      const response = await oauth.authorizationCodeGrantRequest(
        as,
        client,
        clientAuth,
        params,
        DEMO_APP.redirectUri,
        oauth.nopkce,
        insecure,
      );
      const tokens = await oauth.processAuthorizationCodeResponse(as, client, response);
      expect(tokens.token_type).toBe("bearer");
      expect(tokens.expires_in).toBe(7200);
      expect(tokens.scope).toBe(SCOPE);
      expect((await api(tokens.access_token)).status).toBe(200);

      await moveClock(7200);
      const refused = await api(tokens.access_token);
      expect(refused.status).toBe(401);
      expect(refused.headers.get("www-authenticate")).toContain('error="invalid_token"');

      const refreshed = await oauth.processRefreshTokenResponse(
        as,
        client,
        await oauth.refreshTokenGrantRequest(as, client, clientAuth, tokens.refresh_token!, {
          ...insecure,
          additionalParameters: { redirect_uri: DEMO_APP.redirectUri },
        }),
      );
      expect((await api(refreshed.access_token)).status).toBe(200);
    },
    60_000,
  );

  it("a wrong secret in HTTP Basic gets 401 invalid_client with the Basic challenge", async () => {
    const as = authorizationServer();
    const response = await oauth.refreshTokenGrantRequest(as, client, oauth.ClientSecretBasic("wrong"), "any-token", {
      ...insecure,
      additionalParameters: { redirect_uri: DEMO_APP.redirectUri },
    });
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toMatch(/^Basic realm="bawa"/);
    expect(((await response.clone().json()) as { error: string }).error).toBe("invalid_client");
    // The library reads the challenge as RFC 6750 and 7235 describe it.
    const error = await oauth.processRefreshTokenResponse(as, client, response).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(oauth.WWWAuthenticateChallengeError);
    expect((error as oauth.WWWAuthenticateChallengeError).cause[0]?.scheme).toBe("basic");
  }, 60_000);

  it("the implicit flow: the token arrives in the fragment and works until 7200 s have passed", async () => {
    const page = await browser.newPage();
    const callback = await throughScreens(page, "token", "implicit-state");
    await page.close();
    const fragment = new URLSearchParams(callback.hash.slice(1));
    expect(fragment.get("token_type")).toBe("bearer");
    expect(fragment.get("expires_in")).toBe("7200");
    expect(fragment.get("state")).toBe("implicit-state");
    expect(fragment.has("refresh_token")).toBe(false);
    const token = fragment.get("access_token")!;
    expect((await api(token)).status).toBe(200);
    await moveClock(7200);
    expect((await api(token)).status).toBe(401);
  }, 60_000);

  it("refusing on the permission screen sends access_denied back", async () => {
    const page = await browser.newPage();
    const callback = await throughScreens(page, "code", "s", "deny");
    await page.close();
    expect(callback.searchParams.get("error")).toBe("access_denied");
  }, 60_000);

  it("the suite's driver goes through the screens with selectors CSS can not read, by Playwright's locators", async () => {
    // The driver looks from the page's own world where the selectors are CSS; these are of
    // Playwright's own syntax (a role, a text), which only its locators read.
    const target = loadTarget({
      ...ownMockSettings(server.url, "unused"),
      CONFORMANCE_SELECTOR_USERNAME: 'role=textbox[name="User name"]',
      CONFORMANCE_SELECTOR_ALLOW: 'button:has-text("Allow")',
    });
    const callback = await codeFlowOf(target, "syntax");
    expect(callback.searchParams.get("state")).toBe("syntax");
    expect(callback.searchParams.get("code")).toBeTruthy();
  }, 60_000);

  it("the suite's driver walks the mock's screens from the page's own world, without the locators", async () => {
    const page = await browser.newPage();
    // The locators look only where the page's world can not: with the default CSS selectors, never.
    let locatorLooks = 0;
    const locator = page.locator.bind(page);
    page.locator = (...args: Parameters<Page["locator"]>) => {
      const made = locator(...args);
      const isVisible = made.isVisible.bind(made);
      made.isVisible = (...a: Parameters<typeof made.isVisible>) => {
        locatorLooks++;
        return isVisible(...a);
      };
      return made;
    };
    const callback = await throughScreens(page, "code", "own-world");
    await page.close();
    expect(callback.searchParams.get("code")).toBeTruthy();
    expect(locatorLooks).toBe(0);
  }, 60_000);

  it("the suite's driver presses buttons a page enables only after the typing, or a moment after it shows", async () => {
    // Screens whose script keeps the login button disabled until both fields hold something
    // (300 ms after the typing, as a framework's form might) and the allow button for 500 ms.
    const redirect = "http://localhost:5173/callback";
    const screens = createServer((req, res) => {
      const html = (body: string) => {
        res.writeHead(200, { "content-type": "text/html" }).end(body);
      };
      if (req.url?.startsWith("/v1/OAuth/Authorize"))
        return html(`<form method="post" action="/v1/OAuth/Login"><input name="username"><input name="password" type="password"><button type="submit" disabled>Log in</button></form>
<script>const f = document.forms[0]; f.addEventListener("input", () => setTimeout(() => { f.querySelector("button").disabled = !(f.username.value && f.password.value); }, 300));</script>`);
      if (req.url === "/v1/OAuth/Login")
        return html(`<form method="post" action="/v1/OAuth/Permission"><button type="submit" name="decision" value="allow" disabled>Allow</button><button type="submit" name="decision" value="deny">Deny</button></form>
<script>setTimeout(() => { document.querySelector("[value=allow]").disabled = false; }, 500);</script>`);
      let body = "";
      req.on("data", (d) => (body += d));
      req.on("end", () =>
        res.writeHead(302, { location: `${redirect}?code=${new URLSearchParams(body).get("decision")}&state=s` }).end(),
      );
    });
    await new Promise<void>((done) => screens.listen(0, "127.0.0.1", done));
    try {
      const url = `http://127.0.0.1:${(screens.address() as AddressInfo).port}`;
      const target = loadTarget({ ...ownMockSettings(url, "unused"), CONFORMANCE_REDIRECT_URI: redirect });
      const callback = await codeFlowOf(target, "s");
      expect(callback.searchParams.get("code")).toBe("allow");
    } finally {
      screens.close();
    }
  }, 60_000);

  it("the screens can not be framed by another page", async () => {
    const page = await browser.newPage();
    const url = `${server.url}/v1/OAuth/Authorize?${new URLSearchParams({ client_id: DEMO_APP.clientId, redirect_uri: DEMO_APP.redirectUri, scope: SCOPE, response_type: "code" })}`;
    // Control: at the top level the screen renders.
    await page.goto(url);
    expect(await page.locator('h1:text-is("Log in")').count()).toBe(1);
    // The framing page lives on another loopback origin: a public one would be stopped
    // by Chromium's private-network rules whatever the screen's headers say.
    const framer = createServer((_req, res) =>
      res.writeHead(200, { "content-type": "text/html" }).end(`<iframe src="${url}"></iframe>`),
    );
    await new Promise<void>((done) => framer.listen(0, "127.0.0.1", done));
    const framed = page.waitForResponse((r) => r.url() === url);
    await page.goto(`http://localhost:${(framer.address() as AddressInfo).port}/`);
    await framed;
    framer.close();
    const frame = page.frames().find((f) => f !== page.mainFrame())!;
    // Chromium replaces a frame it refused to render with its own error page.
    await expect.poll(() => frame.url()).toMatch(/^chrome-error:/);
    expect(await frame.locator('h1:text-is("Log in"), h1:text-is("Authorization failed")').count()).toBe(0);
    await page.close();
  }, 60_000);
});
