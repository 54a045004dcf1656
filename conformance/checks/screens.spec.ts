// The login and permission screens refuse to be framed (clickjacking).
import { authorizeUrl, covers, expect, needLogin, test } from "../lib/fixtures.ts";

const refusesFraming = (headers: Record<string, string>) =>
  /^deny$/i.test(headers["x-frame-options"] ?? "") || /frame-ancestors\s+'none'/i.test(headers["content-security-policy"] ?? "");

test("the login and permission screens refuse framing", covers("OAUTH-SCREENS-NO-FRAMING"), async ({ page, target }) => {
  const client = needLogin(target);
  const login = await page.goto(authorizeUrl(target, { client_id: client.clientId, redirect_uri: client.redirectUri, scope: target.scope, response_type: "code" }));
  expect(login, "the login screen answered").toBeTruthy();
  expect(refusesFraming(await login!.allHeaders()), `login screen ${page.url()}`).toBe(true);
  await page.fill(target.selectors.username, target.username!);
  await page.fill(target.selectors.password, target.password!);
  const [permission] = await Promise.all([page.waitForResponse((r) => r.request().isNavigationRequest() && r.status() === 200), page.click(target.selectors.submit)]);
  await page.locator(target.selectors.allow).waitFor();
  expect(refusesFraming(await permission.allHeaders()), `permission screen ${page.url()}`).toBe(true);
});
