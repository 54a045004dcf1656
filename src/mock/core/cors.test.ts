// CORS (A-CORS), in process: preflights, the headers of every answer, the
// allowed origins and the control calls a page may make.
import { describe, expect, it } from "vitest";
import { buildMock } from "../index.ts";
import { call, freshMock } from "../testing.ts";

const APP = "http://localhost:5173";
const preflight = (
  mock: ReturnType<typeof buildMock>,
  path: string,
  origin: string,
  headers = "authorization, x-requested-with",
) =>
  call(mock, "OPTIONS", path, {
    headers: { origin, "access-control-request-method": "PUT", "access-control-request-headers": headers },
  });

describe("CORS", () => {
  it("a preflight from a registered application's origin is 204 with the allow headers", () => {
    const { mock } = freshMock();
    const res = preflight(mock, "/v1/api/DEMO/Customer/1001", APP);
    expect(res.status).toBe(204);
    expect(res.headers).toMatchObject({
      "access-control-allow-origin": APP,
      "access-control-allow-methods": "GET, HEAD, POST, PUT, DELETE, OPTIONS",
      "access-control-max-age": "600",
    });
    expect(res.headers["access-control-allow-headers"]).toBe(
      "authorization, content-type, accept, prefer, x-bawa-control-token, x-requested-with",
    );
    expect(res.headers.vary).toMatch(/^Origin/);
  });

  it.each([
    ["an unregistered origin", "http://localhost:5199"],
    ["an origin with a path", "http://localhost:5173/x"],
    ["a header injection", "http://localhost:5173\r\nX: 1"],
    ["null", "null"],
  ])("a preflight from %s gets no allow headers", (_name, origin) => {
    const { mock } = freshMock();
    const res = preflight(mock, "/v1/api/DEMO/Customer/1001", origin);
    expect(res.headers["access-control-allow-origin"]).toBeUndefined();
    expect(res.status).toBe(403);
  });

  it("every answer to an allowed origin, errors included, carries the origin, Vary and the exposed headers", () => {
    const { mock, auth } = freshMock();
    for (const [path, status] of [
      ["/v1/api/DEMO/Customer/1001", 200],
      ["/v1/api/DEMO/Customer/9999", 404],
      ["/v1/api/OTHER/CustomerInfoList", 401],
      ["/v1/nothing", 404],
    ] as const) {
      const res = call(mock, "GET", path, { headers: { ...auth, origin: APP } });
      expect(res.status, path).toBe(status);
      expect(res.headers["access-control-allow-origin"], path).toBe(APP);
      expect(res.headers.vary, path).toBe("Origin");
      expect(res.headers["access-control-expose-headers"], path).toContain("WWW-Authenticate");
    }
    const other = call(mock, "GET", "/v1/api/DEMO/Customer/1001", {
      headers: { ...auth, origin: "http://elsewhere.example" },
    });
    expect(other.headers["access-control-allow-origin"]).toBeUndefined();
    expect(other.headers.vary).toBe("Origin");
  });

  it("follows the registrations, or --cors-origins", () => {
    const mock = buildMock({ config: { corsOrigins: ["https://app.example.com"] } });
    expect(preflight(mock, "/v1/OAuth/Token", APP).status).toBe(403);
    expect(preflight(mock, "/v1/OAuth/Token", "https://app.example.com").status).toBe(204);
    const any = buildMock({ config: { corsOrigins: "*" } });
    expect(
      preflight(any, "/v1/OAuth/Token", "http://anything.example:8080").headers["access-control-allow-origin"],
    ).toBe("http://anything.example:8080");
  });

  it("lets an allowed page make control calls, and no other", () => {
    const { mock } = freshMock();
    const clock = (origin: string) =>
      call(mock, "POST", "/__mock/clock", {
        headers: { origin, "content-type": "application/json" },
        body: '{"advanceSeconds": 1}',
      });
    expect(preflight(mock, "/__mock/clock", APP, "content-type").status).toBe(204);
    const allowed = clock(APP);
    expect(allowed.status).toBe(200);
    expect(allowed.headers["access-control-allow-origin"]).toBe(APP);
    expect(clock("http://attacker.example").status).toBe(403);
    // The portal and the screens are pages of their own: no CORS there.
    expect(preflight(mock, "/portal/applications", APP).headers["access-control-allow-origin"]).toBeUndefined();
  });

  it("--cors-origins '*' opens the API to every page, never the control calls (which hold secrets)", () => {
    const any = buildMock({ config: { corsOrigins: "*" } });
    const evil = "https://evil.example";
    expect(preflight(any, "/__mock/refresh-tokens", evil, "content-type").status).toBe(403);
    const minted = call(any, "POST", "/__mock/refresh-tokens", {
      headers: { origin: evil, "content-type": "application/json" },
      body: JSON.stringify({ clientId: "demo-client", clientSecret: "demo-secret" }),
    });
    expect(minted.status).toBe(403);
    expect(minted.headers["access-control-allow-origin"]).toBeUndefined();
    expect(
      call(any, "POST", "/__mock/reset", { headers: { origin: evil, "content-type": "application/json" } }).status,
    ).toBe(403);
    // A read is answered (a page's script can not read it without the allow header).
    const secrets = call(any, "GET", "/__mock/applications", { headers: { origin: evil } });
    expect(secrets.headers["access-control-allow-origin"]).toBeUndefined();
    // An origin listed by name still may.
    const listed = buildMock({ config: { corsOrigins: [APP] } });
    expect(preflight(listed, "/__mock/reset", APP, "content-type").status).toBe(204);
  });
});
