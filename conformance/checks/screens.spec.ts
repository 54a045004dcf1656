// The login and permission screens: no framing (clickjacking), no forged posts (CSRF), no open redirect.

import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Request, Response } from "@playwright/test";
import { refusesFraming } from "../../src/rules/oauth.ts";
import { send } from "../lib/http.ts";
import { NOT_CHECKED } from "../lib/requirements.ts";
import { authorizeUrl, carriesGrant, walkScreens } from "../lib/screens.ts";
import { checks, covers, expect, needLogin, test } from "../lib/test.ts";

checks(() => {
  test(
    "the login and permission screens refuse framing",
    covers("OAUTH-SCREENS-NO-FRAMING"),
    async ({ page, target }) => {
      const client = needLogin(target);
      const walk = await walkScreens(
        page,
        target,
        { client_id: client.clientId, redirect_uri: client.redirectUri, scope: target.scope, response_type: "code" },
        { decision: "stay" },
      );
      expect(walk.login, "the browser went through the login screen").toBe(true);
      const screens = walk.pages.filter((p) => p.status === 200);
      for (const screen of screens)
        expect(
          refusesFraming(screen.headers["x-frame-options"], screen.headers["content-security-policy"]),
          `framing of ${screen.url}`,
        ).toBe(true);
      // The screens shown refuse framing; a permission screen that never shows is AUTHZ-SCREENS' finding.
      test.skip(
        !walk.permission,
        `${NOT_CHECKED}AUTHZ-SCREENS: no permission screen showed, so its framing was not seen`,
      );
      expect(screens.length, "screens shown").toBeGreaterThanOrEqual(2);
    },
  );

  test(
    "the permission form refuses a post from another site and a forged anti-forgery value",
    covers("OAUTH-CSRF"),
    async ({ page, target }) => {
      const client = needLogin(target);
      const reachPermission = async () => {
        await page.context().clearCookies();
        const walk = await walkScreens(
          page,
          target,
          { client_id: client.clientId, redirect_uri: client.redirectUri, scope: target.scope, response_type: "code" },
          { decision: "stay" },
        );
        test.skip(
          !walk.permission,
          `${NOT_CHECKED}AUTHZ-SCREENS: no permission screen showed, so there is no form to forge`,
        );
        const form = page.locator(`form:has(${target.selectors.allow})`);
        const action = new URL((await form.getAttribute("action")) ?? page.url(), page.url()).href;
        const hidden = await form
          .locator('input[type="hidden"]')
          .evaluateAll((els) =>
            els.map((e) => [(e as HTMLInputElement).name, (e as HTMLInputElement).value] as [string, string]),
          );
        const allow = page.locator(target.selectors.allow);
        return {
          action,
          hidden,
          decision: [(await allow.getAttribute("name")) ?? "", (await allow.getAttribute("value")) ?? ""] as [
            string,
            string,
          ],
        };
      };
      const granted: URL[] = [];
      page.on("request", (r) => {
        const u = new URL(r.url());
        if (r.isNavigationRequest() && u.href.startsWith(client.redirectUri) && carriesGrant(u)) granted.push(u);
      });
      await page.route(`${client.redirectUri}**`, (route) =>
        route.fulfill({ contentType: "text/html", body: "caught" }),
      );
      // Resolves once the post to `action` was answered or refused outright and the page it led to loaded.
      // The load matters: a test that ends while that navigation is still committing can hang the page's
      // close until the test times out. Plain listeners, removed afterwards, so no waiter outlives the test.
      const settled = (action: string) => {
        const isPost = (r: Request) => r.method() === "POST" && r.url() === action;
        let sent = false;
        let done: () => void = () => undefined;
        const finished = new Promise<void>((resolve) => {
          done = resolve;
        });
        const onSent = () => {
          sent = true;
        };
        const onResponse = (r: Response) => isPost(r.request()) && onSent();
        const onFailed = (r: Request) => isPost(r) && onSent();
        const onLoad = () => sent && done();
        page.on("response", onResponse);
        page.on("requestfailed", onFailed);
        page.on("load", onLoad);
        const timer = setTimeout(done, 15_000);
        return async (what: string) => {
          await finished;
          clearTimeout(timer);
          page.off("response", onResponse);
          page.off("requestfailed", onFailed);
          page.off("load", onLoad);
          expect(sent, `${what} was sent to ${action}`).toBe(true);
        };
      };
      const post = (fields: Array<[string, string]>, action: string) =>
        `<form id="f" method="post" action="${action}">${fields.map(([n, v]) => `<input type="hidden" name="${n}" value="${v.replace(/"/g, "&quot;")}">`).join("")}</form><script>document.getElementById("f").submit()</script>`;

      // From another site: the attacker's page copies the whole form, values included.
      const form = await reachPermission();
      const attacker = createServer((_req, res) =>
        res.writeHead(200, { "content-type": "text/html" }).end(post([...form.hidden, form.decision], form.action)),
      );
      await new Promise<void>((done) => attacker.listen(0, "127.0.0.1", done));
      const attackerHost = new URL(target.baseUrl).hostname === "localhost" ? "127.0.0.1" : "localhost";
      const crossSite = settled(form.action);
      await page.goto(`http://${attackerHost}:${(attacker.address() as AddressInfo).port}/`).catch(() => undefined);
      await crossSite("the post from another site");
      attacker.close();
      expect(granted.map(String), "a post from another site was granted").toEqual([]);

      // Same site, but the anti-forgery value is not the one the server gave.
      const again = await reachPermission();
      const token = again.hidden.find(([n]) => /csrf|xsrf|token|verification/i.test(n));
      test.skip(!token, "the permission form has no anti-forgery field; only the cross-site refusal was checked");
      await page.setContent("<p>forging</p>");
      const forged = settled(again.action);
      await page.evaluate(
        (html) => {
          document.body.innerHTML = html.replace(/<script>.*<\/script>/, "");
          (document.getElementById("f") as HTMLFormElement).submit();
        },
        post(
          [
            ...again.hidden.map(([n, v]): [string, string] => (n === token![0] ? [n, `${v}forged`] : [n, v])),
            again.decision,
          ],
          again.action,
        ),
      );
      await forged("the post with a forged anti-forgery value");
      expect(granted.map(String), "a forged anti-forgery value was granted").toEqual([]);
    },
  );

  test(
    "the error page of an unverified redirect_uri neither redirects nor links to it",
    covers("OAUTH-ERROR-PAGE-NO-REDIRECT"),
    async ({ api, target }) => {
      const client = needLogin(target);
      const bad = "https://attacker.example.invalid/steal";
      const res = await send(
        api,
        "GET",
        authorizeUrl(target, {
          client_id: client.clientId,
          redirect_uri: bad,
          scope: target.scope,
          response_type: "code",
          state: "s",
        }),
      );
      expect(
        res.status >= 300 && res.status < 400 && (res.headers.location ?? "").startsWith(bad),
        "redirected to it",
      ).toBe(false);
      expect(res.text, "a meta refresh").not.toMatch(/http-equiv\s*=\s*["']?refresh/i);
      const escaped = bad.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
      expect(res.text, "a link, form or script to it").not.toMatch(
        new RegExp(`(href|action|src)\\s*=\\s*["']?${escaped}|location[^;]*${escaped}`, "i"),
      );
    },
  );
});
