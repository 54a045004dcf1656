// The code flow (web server applications) through the real screens.
import {
  clientParams,
  codeFlow,
  covers,
  expect,
  needLogin,
  test,
  throughScreens,
  tokenRequest,
} from "../lib/fixtures.ts";

test(
  "login screen, permission screen, then a redirect with the code",
  covers("AUTHZ-SCREENS", "AUTHZ-CODE-REDIRECT"),
  async ({ page, target }) => {
    const client = needLogin(target);
    const seen = { login: false, permission: false };
    const landed = await throughScreens(page, target, { responseType: "code", seen });
    expect(seen, "the screens the browser went through").toEqual({ login: true, permission: true });
    expect(`${landed.origin}${landed.pathname}`).toBe(
      new URL(client.redirectUri).origin + new URL(client.redirectUri).pathname,
    );
    expect(landed.searchParams.get("code"), `no code in ${landed.href}`).toBeTruthy();
    expect(landed.hash).toBe("");
  },
);

test("state comes back unchanged", covers("AUTHZ-STATE"), async ({ page, target }) => {
  needLogin(target);
  const state = "eyJyZXR1cm4iOiIvb3JkZXJzP3BhZ2U9MiJ9+/= ~ünïcode";
  const landed = await throughScreens(page, target, { responseType: "code", state });
  expect(landed.searchParams.get("state")).toBe(state);
});

test(
  "the code is exchanged for an access token and a refresh token",
  covers("TOK-CODE-EXCHANGE"),
  async ({ api, browser, target }) => {
    needLogin(target);
    const res = await codeFlow(api, browser, target);
    expect(res.status, `${res.call}: ${res.text.slice(0, 300)}`).toBe(200);
    const body = res.json();
    expect(typeof body.access_token).toBe("string");
    expect(typeof body.refresh_token).toBe("string");
  },
);

test("every parameter of the code grant is required", covers("TOKEN-CODE-PARAMS"), async ({ api, page, target }) => {
  const client = needLogin(target);
  for (const missing of ["code", "client_id", "client_secret", "redirect_uri"]) {
    await page.context().clearCookies();
    const landed = await throughScreens(page, target, { responseType: "code" });
    const form: Record<string, string | undefined> = {
      grant_type: "authorization_code",
      code: landed.searchParams.get("code") ?? "",
      ...clientParams(client),
    };
    delete form[missing];
    const res = await tokenRequest(api, target, form);
    expect(res.status, `without ${missing}: ${res.text.slice(0, 200)}`).not.toBe(200);
    expect(res.text).not.toContain("access_token");
  }
});
