import { describe, expect, it } from "vitest";
import { buildMock } from "../../index.ts";
import {
  authorizeThroughScreens,
  call,
  codeFlowTokens,
  control,
  DEMO_APP,
  expectContract,
  freshMock,
  portalPost,
  SCOPE,
  SECOND_APP,
  tokenRequest,
} from "../../testing.ts";

const TOKEN = "/OAuth/Token";
const authorizeUrl = (params: Record<string, string>) => `/v1/OAuth/Authorize?${new URLSearchParams(params)}`;
const valid = { client_id: DEMO_APP.clientId, redirect_uri: DEMO_APP.redirectUri, scope: SCOPE, response_type: "code" };
const api = (mock: ReturnType<typeof freshMock>["mock"], token: string) =>
  call(mock, "GET", "/v1/api/DEMO/Customer/1001", { headers: { authorization: `Bearer ${token}` } });

describe("the code flow", () => {
  it("goes through login and permission and redirects with a code and the unchanged state", () => {
    const { mock } = freshMock();
    const state = "eyJyZXR1cm4iOiIvb3JkZXJzP3BhZ2U9MiZzb3J0PWRlc2MifQ==+/ &é";
    const redirect = authorizeThroughScreens(mock, { responseType: "code", state });
    expect(`${redirect.origin}${redirect.pathname}`).toBe(DEMO_APP.redirectUri);
    expect(redirect.searchParams.get("state")).toBe(state);
    expect(redirect.searchParams.get("code")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(redirect.hash).toBe("");
  });

  it("exchanges the code for the token response of the description, not cacheable", () => {
    const { mock } = freshMock();
    const code = authorizeThroughScreens(mock, { responseType: "code" }).searchParams.get("code")!;
    const res = tokenRequest(mock, {
      grant_type: "authorization_code",
      code,
      client_id: DEMO_APP.clientId,
      client_secret: DEMO_APP.clientSecret,
      redirect_uri: DEMO_APP.redirectUri,
    });
    expect(res.status).toBe(200);
    expectContract(mock, TOKEN, "post", res);
    expect(res.headers["cache-control"]).toBe("no-store");
    expect(res.headers.pragma).toBe("no-cache");
    const body = res.json();
    expect(body).toMatchObject({ token_type: "bearer", expires_in: 7200, scope: SCOPE });
    expect(body.access_token).not.toBe(body.refresh_token);
    expect(api(mock, body.access_token).status).toBe(200);
  });

  it("works under /V1 and with case-insensitive OAuth paths", () => {
    const { mock } = freshMock();
    const redirect = authorizeThroughScreens(mock, { responseType: "code", version: "V1" });
    const res = call(mock, "POST", "/V1/oauth/token/", {
      headers: { "content-type": "application/x-www-form-urlencoded; charset=utf-8" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code: redirect.searchParams.get("code")!,
        client_id: DEMO_APP.clientId,
        client_secret: DEMO_APP.clientSecret,
        redirect_uri: DEMO_APP.redirectUri,
      }).toString(),
    });
    expect(res.status, res.text).toBe(200);
  });
});

describe("the implicit flow", () => {
  it("returns the token in the fragment with the fields of the description and state, never a refresh token", () => {
    const { mock } = freshMock();
    const redirect = authorizeThroughScreens(mock, { responseType: "token", state: "s 1/2" });
    expect(redirect.search).toBe("");
    const fragment = new URLSearchParams(redirect.hash.slice(1));
    expect(Object.fromEntries(fragment)).toMatchObject({
      token_type: "bearer",
      scope: SCOPE,
      expires_in: "7200",
      state: "s 1/2",
    });
    expect(fragment.has("refresh_token")).toBe(false);
    expect(api(mock, fragment.get("access_token")!).status).toBe(200);
  });
});

describe("expiry and refresh", () => {
  it("refuses an access token once 7200 seconds have passed on the mock's clock", () => {
    const { mock } = freshMock();
    const { access_token } = codeFlowTokens(mock);
    control(mock, "/__mock/clock", '{"advanceSeconds": 7199}');
    expect(api(mock, access_token).status).toBe(200);
    control(mock, "/__mock/clock", '{"advanceSeconds": 1}');
    const refused = api(mock, access_token);
    expect(refused.status).toBe(401);
    expect(refused.headers["www-authenticate"]).toMatch(
      /^Bearer realm="bawa", error="invalid_token", error_description="The access token expired"$/,
    );
  });

  it("renews an expired access token with the refresh token, client id, secret and redirect URI", () => {
    const { mock } = freshMock();
    const tokens = codeFlowTokens(mock);
    control(mock, "/__mock/clock", '{"advanceSeconds": 7300}');
    const res = tokenRequest(mock, {
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
      ...creds(DEMO_APP),
    });
    expect(res.status, res.text).toBe(200);
    expectContract(mock, TOKEN, "post", res);
    const renewed = res.json();
    expect(renewed).toMatchObject({ token_type: "bearer", expires_in: 7200, refresh_token: tokens.refresh_token });
    expect(renewed.access_token).not.toBe(tokens.access_token);
    expect(api(mock, renewed.access_token).status).toBe(200);
    expect(api(mock, tokens.access_token).status).toBe(401);
  });

  it.each(["client_id", "client_secret", "redirect_uri", "refresh_token"])("requires %s on refresh", (name) => {
    const { mock } = freshMock();
    const params: Record<string, string> = {
      grant_type: "refresh_token",
      refresh_token: codeFlowTokens(mock).refresh_token,
      ...creds(DEMO_APP),
    };
    delete params[name];
    const res = tokenRequest(mock, params);
    expect(res.status).toBe(400);
    expect(res.json()).toEqual({ error: "invalid_request", error_description: `${name} is missing` });
  });

  it("refuses a refresh token of another client, a wrong redirect URI and a wrong secret", () => {
    const { mock } = freshMock();
    const { refresh_token } = codeFlowTokens(mock);
    expect(tokenRequest(mock, { grant_type: "refresh_token", refresh_token, ...creds(SECOND_APP) }).json().error).toBe(
      "invalid_grant",
    );
    expect(
      tokenRequest(mock, {
        grant_type: "refresh_token",
        refresh_token,
        ...creds(DEMO_APP),
        redirect_uri: "http://localhost:5173/other",
      }).json().error,
    ).toBe("invalid_grant");
    const wrongSecret = tokenRequest(mock, {
      grant_type: "refresh_token",
      refresh_token,
      ...creds(DEMO_APP),
      client_secret: "guess",
    });
    expect(wrongSecret.status).toBe(401);
    expect(wrongSecret.json().error).toBe("invalid_client");
    expectContract(mock, TOKEN, "post", wrongSecret);
  });
});

const creds = (app: typeof DEMO_APP) => ({
  client_id: app.clientId,
  client_secret: app.clientSecret,
  redirect_uri: app.redirectUri,
});
const codeOf = (mock: ReturnType<typeof freshMock>["mock"]) =>
  authorizeThroughScreens(mock, { responseType: "code" }).searchParams.get("code")!;

describe("authorization codes", () => {
  it("are single-use; a reuse is refused and revokes the tokens issued from the code", () => {
    const { mock } = freshMock();
    const code = codeOf(mock);
    const first = tokenRequest(mock, { grant_type: "authorization_code", code, ...creds(DEMO_APP) }).json();
    expect(api(mock, first.access_token).status).toBe(200);
    const again = tokenRequest(mock, { grant_type: "authorization_code", code, ...creds(DEMO_APP) });
    expect(again.status).toBe(400);
    expect(again.json().error).toBe("invalid_grant");
    expect(api(mock, first.access_token).status).toBe(401);
    expect(
      tokenRequest(mock, { grant_type: "refresh_token", refresh_token: first.refresh_token, ...creds(DEMO_APP) }).json()
        .error,
    ).toBe("invalid_grant");
  });

  it("are bound to their client and redirect URI", () => {
    const { mock } = freshMock();
    expect(
      tokenRequest(mock, { grant_type: "authorization_code", code: codeOf(mock), ...creds(SECOND_APP) }).json().error,
    ).toBe("invalid_grant");
    expect(
      tokenRequest(mock, {
        grant_type: "authorization_code",
        code: codeOf(mock),
        ...creds(DEMO_APP),
        redirect_uri: `${DEMO_APP.redirectUri}/`,
      }).json().error,
    ).toBe("invalid_grant");
  });

  it("expire after 300 seconds", () => {
    const { mock } = freshMock();
    const code = codeOf(mock);
    control(mock, "/__mock/clock", '{"advanceSeconds": 301}');
    expect(tokenRequest(mock, { grant_type: "authorization_code", code, ...creds(DEMO_APP) }).json()).toEqual({
      error: "invalid_grant",
      error_description: "The authorization code expired",
    });
  });

  it("carry 256 random bits, as do tokens", () => {
    const { mock } = freshMock();
    const seen = new Set<string>();
    for (let i = 0; i < 5; i++) {
      const t = codeFlowTokens(mock);
      for (const v of [t.access_token, t.refresh_token]) {
        expect(v).toMatch(/^[A-Za-z0-9_-]{43}$/);
        seen.add(v);
      }
    }
    expect(seen.size).toBe(10);
  });
});

describe("token endpoint refusals (RFC 6749 5.2)", () => {
  const base = () => ({ grant_type: "authorization_code", code: "x", ...creds(DEMO_APP) });
  it.each([
    ["a missing grant_type", { grant_type: "" }, 400, "invalid_request"],
    ["an unknown grant_type", { grant_type: "password" }, 400, "unsupported_grant_type"],
    ["a missing code", { code: "" }, 400, "invalid_request"],
    ["a missing redirect_uri", { redirect_uri: "" }, 400, "invalid_request"],
    ["an unknown client", { client_id: "nobody" }, 401, "invalid_client"],
    ["a pending client", { client_id: "pending-client", client_secret: "pending-secret" }, 401, "invalid_client"],
    ["a wrong secret", { client_secret: `${DEMO_APP.clientSecret} ` }, 401, "invalid_client"],
    ["another scope", { scope: "http://Other.Thing.API/Web/WebApi/*" }, 400, "invalid_scope"],
    ["an unknown code", {}, 400, "invalid_grant"],
  ])("%s", (_name, change, status, error) => {
    const { mock } = freshMock();
    const params = Object.fromEntries(Object.entries({ ...base(), ...change }).filter(([, v]) => v !== ""));
    const res = tokenRequest(mock, params);
    expect(res.status).toBe(status);
    expect(res.json().error).toBe(error);
    expect(res.headers["cache-control"]).toBe("no-store");
    expectContract(mock, TOKEN, "post", res);
  });

  it("a repeated parameter and a body that is not form-encoded", () => {
    const { mock } = freshMock();
    const repeated = call(mock, "POST", "/v1/OAuth/Token", {
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `${new URLSearchParams(base())}&code=y`,
    });
    expect(repeated.json()).toEqual({ error: "invalid_request", error_description: "code is repeated" });
    const asJson = call(mock, "POST", "/v1/OAuth/Token", {
      headers: { "content-type": "application/json" },
      body: JSON.stringify(base()),
    });
    expect(asJson.json().error).toBe("invalid_request");
  });
});

describe("refusals a developer meets pointing a client at the mock say what to do", () => {
  it("another scope: both endpoints name the one served and --scope", () => {
    const { mock } = freshMock();
    const family = "http://UNIT4.Multivers.API/Web/WebApi/*";
    const redirect = call(mock, "GET", authorizeUrl({ ...valid, scope: family }));
    expect(redirect.status).toBe(302);
    const description = new URL(redirect.headers.location!).searchParams.get("error_description");
    expect(description).toBe(
      `the only scope is ${SCOPE}; start the mock with --scope <value> (BAWA_SCOPE) to serve another`,
    );
    // The request log's line says it too, not only "302".
    expect(mock.log.since().at(-1)).toMatchObject({ status: 302, problem: `invalid_scope: ${description}` });
    const code = codeOf(mock);
    const token = tokenRequest(mock, { grant_type: "authorization_code", code, ...creds(DEMO_APP), scope: family });
    expect(token.json()).toEqual({ error: "invalid_scope", error_description: description });
  });

  it("another version names the versions served and --versions", () => {
    const { mock } = freshMock();
    const res = call(mock, "GET", "/v22/api/DEMO/CustomerInfoList");
    expect(res.status).toBe(404);
    expect(res.json().Message).toBe(
      "API version 22 is not served here; served: v1. Start the mock with --versions 1,22 (BAWA_VERSIONS) to serve it.",
    );
  });

  it("another redirect URI names the registered one", () => {
    const { mock } = freshMock();
    const page = call(mock, "GET", authorizeUrl({ ...valid, redirect_uri: `${DEMO_APP.redirectUri}/x` }));
    expect(page.text).toContain(`(${DEMO_APP.redirectUri}): send that one, or register this one in the portal.`);
  });
});

describe("the authorization endpoint", () => {
  it.each([
    ["an unknown client", { client_id: "nobody" }, /No application is registered with client_id nobody/],
    [
      "a pending client",
      { client_id: "pending-client", redirect_uri: "http://localhost:5175/cb" },
      /not active yet \(status pending\)/,
    ],
    ["no client_id", { client_id: "" }, /client_id is missing/],
    ["no redirect_uri", { redirect_uri: "" }, /redirect_uri is missing/],
    ["a trailing slash", { redirect_uri: `${DEMO_APP.redirectUri}/` }, /does not match/],
    ["another case", { redirect_uri: "http://localhost:5173/Callback" }, /does not match/],
    ["an extra path segment", { redirect_uri: `${DEMO_APP.redirectUri}/x` }, /does not match/],
    ["an added query", { redirect_uri: `${DEMO_APP.redirectUri}?x=1` }, /does not match/],
    ["https for http", { redirect_uri: DEMO_APP.redirectUri.replace("http:", "https:") }, /does not match/],
    ["an added fragment", { redirect_uri: `${DEMO_APP.redirectUri}#x` }, /does not match/],
    [
      "another host ending in the registered one",
      { redirect_uri: "http://evil-localhost:5173/callback" },
      /does not match/,
    ],
    ["another client's redirect URI", { redirect_uri: SECOND_APP.redirectUri }, /does not match/],
  ])("shows an error page, never a redirect, for %s", (_name, change, message) => {
    const { mock } = freshMock();
    const params = Object.fromEntries(Object.entries({ ...valid, ...change }).filter(([, v]) => v !== ""));
    const res = call(mock, "GET", authorizeUrl(params));
    expect(res.status).toBe(400);
    expect(res.headers.location).toBeUndefined();
    expect(res.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(res.text).toMatch(message);
    expect(res.headers["x-frame-options"]).toBe("DENY");
  });

  it.each([
    ["code", "query", { response_type: "id_token" }, "unsupported_response_type"],
    ["code", "query", { response_type: "" }, "invalid_request"],
    ["code", "query", { scope: "http://Other.Thing.API/Web/WebApi/*" }, "invalid_scope"],
    ["code", "query", { scope: "" }, "invalid_scope"],
    ["token", "fragment", { scope: "everything" }, "invalid_scope"],
  ])("redirects other errors of the %s flow in the %s with error and state", (responseType, where, change, error) => {
    const { mock } = freshMock();
    const params = Object.fromEntries(
      Object.entries({ ...valid, response_type: responseType, state: "xyz", ...change }).filter(([, v]) => v !== ""),
    );
    const res = call(mock, "GET", authorizeUrl(params));
    expect(res.status).toBe(302);
    const location = new URL(res.headers.location!);
    const got = new URLSearchParams(where === "query" ? location.search : location.hash.slice(1));
    expect(got.get("error")).toBe(error);
    expect(got.get("state")).toBe("xyz");
    expect(`${location.origin}${location.pathname}`).toBe(DEMO_APP.redirectUri);
  });

  it("ignores unknown parameters", () => {
    const { mock } = freshMock();
    expect(call(mock, "GET", authorizeUrl({ ...valid, prompt: "login", nonce: "n" })).status).toBe(302);
  });

  it("redirects with access_denied when the user refuses, in the query or the fragment", () => {
    const { mock } = freshMock();
    const code = authorizeThroughScreens(mock, { responseType: "code", decision: "deny", state: "s" });
    expect(Object.fromEntries(code.searchParams)).toMatchObject({ error: "access_denied", state: "s" });
    const token = authorizeThroughScreens(mock, { responseType: "token", decision: "deny" });
    expect(new URLSearchParams(token.hash.slice(1)).get("error")).toBe("access_denied");
  });
});

describe("the login and permission screens", () => {
  const start = (mock: ReturnType<typeof freshMock>["mock"]) => {
    const res = call(mock, "GET", authorizeUrl(valid));
    const cookie = res.headers["set-cookie"]!.split(";")[0]!;
    const login = call(mock, "GET", res.headers.location!, { headers: { cookie } });
    const request = /name="request" value="([^"]+)"/.exec(login.text)![1]!;
    const csrf = /name="csrf" value="([^"]+)"/.exec(login.text)![1]!;
    return { cookie, login, request, csrf };
  };
  const post = (
    mock: ReturnType<typeof freshMock>["mock"],
    path: string,
    cookie: string | undefined,
    body: Record<string, string>,
  ) =>
    call(mock, "POST", path, {
      headers: { "content-type": "application/x-www-form-urlencoded", ...(cookie ? { cookie } : {}) },
      body: new URLSearchParams(body).toString(),
    });

  it("refuse framing and load nothing from elsewhere", () => {
    const { mock } = freshMock();
    const { login } = start(mock);
    expect(login.headers["x-frame-options"]).toBe("DENY");
    expect(login.headers["content-security-policy"]).toContain("frame-ancestors 'none'");
    expect(login.headers["content-security-policy"]).toContain("default-src 'none'");
    expect(login.text).not.toMatch(/<script|src="http|href="http/);
    expect(login.text).toMatch(/<input name="username"/);
    expect(login.text).toMatch(/<input name="password" type="password"/);
    expect(login.text).toMatch(/<button type="submit">/);
  });

  it("show the login form again after a wrong password", () => {
    const { mock } = freshMock();
    const { cookie, request, csrf } = start(mock);
    const res = post(mock, "/v1/OAuth/Login", cookie, { request, csrf, username: "demo", password: "wrong" });
    expect(res.status).toBe(200);
    expect(res.text).toContain("The user name or password is not right.");
  });

  it("refuse a form post without the browser's cookie or with a forged token (CSRF)", () => {
    const { mock } = freshMock();
    const { cookie, request, csrf } = start(mock);
    expect(post(mock, "/v1/OAuth/Login", undefined, { request, csrf, username: "demo", password: "demo" }).status).toBe(
      400,
    );
    expect(
      post(mock, "/v1/OAuth/Login", cookie, { request, csrf: "forged", username: "demo", password: "demo" }).status,
    ).toBe(400);
    const ok = post(mock, "/v1/OAuth/Login", cookie, { request, csrf, username: "demo", password: "demo" });
    expect(ok.status).toBe(303);
    // The login mints a new cookie; the one from before the login no longer reaches this request.
    const loggedIn = ok.headers["set-cookie"]!.split(";")[0]!;
    expect(loggedIn).not.toBe(cookie);
    expect(call(mock, "GET", ok.headers.location!, { headers: { cookie } }).status).toBe(400);
    const permission = call(mock, "GET", ok.headers.location!, { headers: { cookie: loggedIn } });
    expect(permission.text).toMatch(/<button type="submit" name="decision" value="allow">/);
    expect(permission.text).toMatch(/<button type="submit" name="decision" value="deny">/);
    expect(permission.headers["x-frame-options"]).toBe("DENY");
    const forged = post(mock, "/v1/OAuth/Permission", loggedIn, { request, csrf: "forged", decision: "allow" });
    expect(forged.status).toBe(400);
    expect(forged.headers.location).toBeUndefined();
    expect(
      post(mock, "/v1/OAuth/Permission", "bawa_authz=someone-else", { request, csrf, decision: "allow" }).status,
    ).toBe(400);
  });

  it("refuse granting permission before logging in", () => {
    const { mock } = freshMock();
    const { cookie, request, csrf } = start(mock);
    const res = post(mock, "/v1/OAuth/Permission", cookie, { request, csrf, decision: "allow" });
    expect(res.status).toBe(400);
    expect(res.headers.location).toBeUndefined();
  });
});

describe("application registration", () => {
  it("registers pending, refuses flows until the operator activates, then shows id and secret", () => {
    const mock = buildMock();
    const registered = portalPost(mock, "/portal", "/portal/applications", {
      name: "Kassa",
      redirect_uri: "http://localhost:9000/cb",
    });
    expect(registered.status).toBe(303);
    const page = call(mock, "GET", registered.headers.location!);
    expect(page.text).toContain("<strong data-status>pending</strong>");
    expect(page.text).not.toContain("data-client-secret");
    const clientId = registered.headers.location!.split("/").pop()!;
    const params = { ...valid, client_id: clientId, redirect_uri: "http://localhost:9000/cb" };
    expect(call(mock, "GET", authorizeUrl(params)).status).toBe(400);

    const activated = control(mock, `/__mock/applications/${clientId}/activate`).json();
    expect(activated.status).toBe("Actief");
    expect(call(mock, "GET", registered.headers.location!).text).toContain(
      `data-client-secret>${activated.clientSecret}<`,
    );
    expect(call(mock, "GET", authorizeUrl(params)).status).toBe(302);

    // The redirect URI can be changed later; the old one is then refused.
    const changed = portalPost(mock, registered.headers.location!, `/portal/applications/${clientId}/redirect-uri`, {
      redirect_uri: "http://localhost:9001/cb",
    });
    expect(changed.status).toBe(303);
    expect(call(mock, "GET", authorizeUrl(params)).status).toBe(400);
    expect(call(mock, "GET", authorizeUrl({ ...params, redirect_uri: "http://localhost:9001/cb" })).status).toBe(302);
  });

  it("refuses a redirect URI that is not an absolute http(s) URL without fragment", () => {
    const mock = buildMock();
    for (const uri of ["/cb", "ftp://x/cb", "http://x/cb#f", ""]) {
      const res = portalPost(mock, "/portal", "/portal/applications", { name: "X", redirect_uri: uri });
      expect(res.status, uri).toBe(400);
    }
    expect(control(mock, "/__mock/applications/nobody/activate").status).toBe(404);
  });
});

describe("the background user's refresh token", () => {
  it("is generated for an active application and exchanged like any refresh token", () => {
    const { mock } = freshMock();
    const generated = control(
      mock,
      "/__mock/refresh-tokens",
      JSON.stringify({ clientId: DEMO_APP.clientId, clientSecret: DEMO_APP.clientSecret }),
    );
    expect(generated.status).toBe(200);
    const { refresh_token, user } = generated.json();
    expect(user).toBe("background");
    const tokens = tokenRequest(mock, { grant_type: "refresh_token", refresh_token, ...creds(DEMO_APP) }).json();
    const read = (db: string) =>
      call(mock, "GET", `/v1/api/${db}/CustomerInfoList`, {
        headers: { authorization: `Bearer ${tokens.access_token}` },
      }).status;
    expect(read("DEMO")).toBe(200);
    expect(read("OTHER")).toBe(401);
  });

  it("is refused without the application's secret, or for one not active, saying which to its operator", () => {
    const { mock } = freshMock();
    const refused = (clientId: string, clientSecret: string) => {
      const res = control(mock, "/__mock/refresh-tokens", JSON.stringify({ clientId, clientSecret }));
      expect(res.status).toBe(401);
      return res.json().Message as string;
    };
    expect(refused(DEMO_APP.clientId, "x")).toBe(`The secret is not that of "${DEMO_APP.clientId}".`);
    expect(refused("nobody", "x")).toBe('No application is registered with client_id "nobody".');
    const pending = mock.registry.applications().find((a) => a.status !== "Actief")!;
    expect(refused(pending.clientId, pending.clientSecret)).toBe(
      `The application "${pending.clientId}" is registered but not active (${pending.status}): activate it with npx bawa activate ${pending.clientId} or in the portal.`,
    );
    expect(control(mock, "/__mock/refresh-tokens", "{}").status).toBe(400);
  });
});
