// The code flow through bawa proxy, in Chromium, against an authorization
// server that is not the bawa mock: a small one written here, with its own
// login form that refuses a POST whose Origin (or Referer) is not its own
// address, as many frameworks' CSRF defences do. The proxy sends the target's
// Host, so it must send the target's Origin and Referer too, and only where
// they named the proxy.
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { releaseBrowser, testBrowser } from "../browser-testing.ts";
import { contractInUse } from "../contract/index.ts";
import { type RunningProxy, startProxy } from "./node.ts";
import { serveOnLoopback } from "./testing.ts";

const CLIENT = { id: "independent-app", secret: randomBytes(18).toString("base64url") };
const USER = { name: "erin", password: randomBytes(12).toString("base64url") };
const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** What the server refused, for the test to show. */
const refusals: string[] = [];

/** The independent authorization server: authorize, a login form, a code, a token endpoint. */
function authorizationServer(): Server {
  const codes = new Map<string, { redirectUri: string }>();
  const body = (req: IncomingMessage) =>
    new Promise<URLSearchParams>((done) => {
      let text = "";
      req.on("data", (c) => (text += c));
      req.on("end", () => done(new URLSearchParams(text)));
    });
  return createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://server.invalid");
    const own = `http://${req.headers.host}`;
    if (req.method === "GET" && url.pathname === "/v1/OAuth/Authorize") {
      // To its own login page, by its own absolute address (the proxy sends the browser to its own).
      res.writeHead(302, { location: `${own}/v1/OAuth/Login${url.search}` }).end();
    } else if (req.method === "GET" && url.pathname === "/v1/OAuth/Login") {
      const hidden = ["client_id", "redirect_uri", "state"]
        .map((k) => `<input type="hidden" name="${k}" value="${esc(url.searchParams.get(k) ?? "")}">`)
        .join("");
      res.writeHead(200, { "content-type": "text/html; charset=utf-8", "x-frame-options": "DENY" });
      res.end(`<!doctype html><meta charset="utf-8"><title>Sign in</title>
<form method="post" action="/v1/OAuth/Login">${hidden}
<input name="username"><input name="password" type="password"><button type="submit">Sign in</button></form>`);
    } else if (req.method === "POST" && url.pathname === "/v1/OAuth/Login") {
      const form = await body(req);
      // The CSRF defence: the form must come from a page of this very host.
      const origin = req.headers.origin;
      const referer = req.headers.referer;
      if (origin !== own || (referer !== undefined && !referer.startsWith(`${own}/`))) {
        refusals.push(`Origin ${origin}, Referer ${referer}, Host ${req.headers.host}`);
        res.writeHead(403, { "content-type": "text/plain" }).end("This form was posted from another site");
        return;
      }
      if (form.get("username") !== USER.name || form.get("password") !== USER.password) {
        res.writeHead(401, { "content-type": "text/plain" }).end("wrong user name or password");
        return;
      }
      const code = randomBytes(24).toString("base64url");
      const redirectUri = form.get("redirect_uri") ?? "";
      codes.set(code, { redirectUri });
      const back = new URL(redirectUri);
      back.searchParams.set("code", code);
      back.searchParams.set("state", form.get("state") ?? "");
      res.writeHead(303, { location: back.href }).end();
    } else if (req.method === "POST" && url.pathname === "/v1/OAuth/Token") {
      const form = await body(req);
      const grant = codes.get(form.get("code") ?? "");
      codes.delete(form.get("code") ?? "");
      const cors = { "access-control-allow-origin": req.headers.origin ?? "*" };
      if (
        !grant ||
        form.get("grant_type") !== "authorization_code" ||
        form.get("client_id") !== CLIENT.id ||
        form.get("client_secret") !== CLIENT.secret ||
        form.get("redirect_uri") !== grant.redirectUri
      ) {
        res.writeHead(400, { "content-type": "application/json", ...cors });
        res.end(JSON.stringify({ error: "invalid_grant" }));
        return;
      }
      res.writeHead(200, { "content-type": "application/json", "cache-control": "no-store", ...cors });
      res.end(
        JSON.stringify({
          access_token: randomBytes(24).toString("base64url"),
          token_type: "bearer",
          expires_in: 7200,
          refresh_token: randomBytes(24).toString("base64url"),
        }),
      );
    } else {
      res.writeHead(404, { "content-type": "text/plain" }).end("no such page");
    }
  });
}

let target: Server;
let proxy: RunningProxy;
let app: Server;
let appOrigin: string;
let browser: Browser;

beforeAll(async () => {
  target = authorizationServer();
  const base = await serveOnLoopback(target);
  proxy = await startProxy({ target: base, host: "127.0.0.1", port: 0, contract: contractInUse() });
  // The app: its callback page exchanges the code at the proxy, as a browser app does.
  app = createServer((_req, res) =>
    res.writeHead(200, { "content-type": "text/html" }).end(`<!doctype html><title>app</title><script>
window.exchange = async () => {
  const code = new URLSearchParams(location.search).get("code");
  const res = await fetch(${JSON.stringify(`${proxy.url}/v1/OAuth/Token`)}, { method: "POST", body: new URLSearchParams({
    grant_type: "authorization_code", code, client_id: ${JSON.stringify(CLIENT.id)},
    client_secret: ${JSON.stringify(CLIENT.secret)}, redirect_uri: location.origin + "/callback" }) });
  const tokens = await res.json();
  return [res.status, tokens.token_type, typeof tokens.access_token];
};
</script>`),
  );
  appOrigin = await serveOnLoopback(app);
  browser = await testBrowser();
}, 60_000);
afterAll(async () => {
  await releaseBrowser(browser);
  await proxy?.close();
  app?.close();
  target?.close();
});

describe("an authorization server that checks where a form came from, through bawa proxy", () => {
  it("takes the login form the browser posts at the proxy, and the code flow completes", async () => {
    const page = await browser.newPage();
    const authorize = new URL(`${proxy.url}/v1/OAuth/Authorize`);
    authorize.search = new URLSearchParams({
      client_id: CLIENT.id,
      redirect_uri: `${appOrigin}/callback`,
      response_type: "code",
      scope: "api",
      state: "independent",
    }).toString();
    await page.goto(authorize.href);
    expect(new URL(page.url()).origin).toBe(proxy.url);
    await page.fill('input[name="username"]', USER.name);
    await page.fill('input[name="password"]', USER.password);
    await page.click('button[type="submit"]');
    await page.waitForURL((u) => u.href.startsWith(appOrigin), { timeout: 10_000 }).catch(() => undefined);
    expect(refusals, "the server's CSRF defence refused the form").toEqual([]);
    expect(new URL(page.url()).searchParams.get("state")).toBe("independent");
    expect(await page.evaluate(() => (window as unknown as { exchange(): Promise<unknown> }).exchange())).toEqual([
      200,
      "bearer",
      "string",
    ]);
    await page.close();
  }, 60_000);

  it("still shows the server a page of another site as one", async () => {
    refusals.length = 0;
    const res = await fetch(`${proxy.url}/v1/OAuth/Login`, {
      method: "POST",
      headers: { origin: "http://attacker.test", "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ username: USER.name, password: USER.password }),
    });
    expect(res.status).toBe(403);
    const host = `127.0.0.1:${(target.address() as AddressInfo).port}`;
    expect(refusals).toEqual([`Origin http://attacker.test, Referer undefined, Host ${host}`]);
  });
});
