// Nothing the authorization server keeps grows without bound: a CI job that logs
// in, refreshes and abandons logins in a loop leaves the stores as small as the
// tokens still usable once time has passed (on the movable clock).
import { describe, expect, it } from "vitest";
import { buildMock } from "../../index.ts";
import {
  authorizeThroughScreens,
  call,
  codeFlowTokens,
  control,
  DEMO_APP,
  SCOPE,
  tokenRequest,
} from "../../testing.ts";
import { KEPT_AFTER_END_MS } from "./tokens.ts";

type Stats = Record<
  | "objects"
  | "applications"
  | "pendingAuthorizations"
  | "codes"
  | "accessTokens"
  | "refreshTokens"
  | "families"
  | "requestLog",
  number
>;
const stats = (mock: ReturnType<typeof buildMock>) => call(mock, "GET", "/__mock/stats").json<Stats>();

/** One round of mixed use: code flows, refreshes (rotating), implicit logins, abandoned logins, CRUD. */
function round(mock: ReturnType<typeof buildMock>): string {
  let kept = "";
  for (let i = 0; i < 5; i++) {
    const t = codeFlowTokens(mock);
    let refresh = t.refresh_token;
    for (let r = 0; r < 4; r++) {
      const res = tokenRequest(mock, {
        grant_type: "refresh_token",
        refresh_token: refresh,
        client_id: DEMO_APP.clientId,
        client_secret: DEMO_APP.clientSecret,
        redirect_uri: DEMO_APP.redirectUri,
      });
      expect(res.status, res.text).toBe(200);
      refresh = res.json<{ refresh_token: string }>().refresh_token;
    }
    kept = refresh;
    authorizeThroughScreens(mock, { responseType: "token" });
    const abandoned = call(
      mock,
      "GET",
      `/v1/OAuth/Authorize?${new URLSearchParams({ client_id: DEMO_APP.clientId, redirect_uri: DEMO_APP.redirectUri, scope: SCOPE, response_type: "code" })}`,
    );
    expect(abandoned.status).toBe(302);
    const auth = { authorization: `Bearer ${t.access_token}`, "content-type": "application/json" };
    const made = call(mock, "POST", "/v1/api/DEMO/Customer", {
      headers: auth,
      body: JSON.stringify({ Name: "Sweep" }),
    });
    expect(made.status, made.text).toBe(200);
    const id = made.json<{ CustomerId: string }>().CustomerId;
    expect(call(mock, "DELETE", `/v1/api/DEMO/Customer/${id}`, { headers: auth }).status).toBe(200);
  }
  return kept;
}

describe("the stores of the authorization server", () => {
  it("shrink back once what they hold has expired or was revoked, round after round", () => {
    const mock = buildMock({ rules: { rotateRefreshTokens: true } });
    const start = stats(mock);
    const after: Stats[] = [];
    for (let r = 0; r < 3; r++) {
      const kept = round(mock);
      const grown = stats(mock);
      expect(grown.accessTokens).toBeGreaterThanOrEqual(30);
      expect(grown.refreshTokens).toBeGreaterThanOrEqual(25);
      expect(grown.pendingAuthorizations).toBeGreaterThanOrEqual(5);
      // Past the access tokens' lifetime and the time expired and revoked ones stay known.
      expect(
        control(mock, "/__mock/clock", JSON.stringify({ advanceSeconds: 7200 + KEPT_AFTER_END_MS / 1000 })).status,
      ).toBe(200);
      after.push(stats(mock));
      // The last refresh token of each chain still works after the sweep.
      const res = tokenRequest(mock, {
        grant_type: "refresh_token",
        refresh_token: kept,
        client_id: DEMO_APP.clientId,
        client_secret: DEMO_APP.clientSecret,
        redirect_uri: DEMO_APP.redirectUri,
      });
      expect(res.status, res.text).toBe(200);
    }
    for (const s of after) {
      expect(s).toMatchObject({ codes: 0, accessTokens: 0, families: 0, pendingAuthorizations: 0 });
      expect(s.objects).toBe(start.objects);
    }
    // Only the live refresh tokens stay (5 chains a round; the one refreshed above rotated again).
    expect(after[0]!.refreshTokens).toBe(5);
    expect(after[2]!.refreshTokens).toBeLessThanOrEqual(after[0]!.refreshTokens * 3);
    expect(after[2]!.requestLog).toBeLessThanOrEqual(500);
  });

  it("keeps an expired or revoked token known for a while, so using it says why it fails", () => {
    const mock = buildMock();
    const t = codeFlowTokens(mock);
    control(mock, "/__mock/clock", JSON.stringify({ advanceSeconds: 7200 }));
    const expired = call(mock, "GET", "/v1/api/DEMO/Customer/1001", {
      headers: { authorization: `Bearer ${t.access_token}` },
    });
    expect(expired.status).toBe(401);
    expect(expired.headers["www-authenticate"]).toContain("expired");
    control(mock, "/__mock/clock", JSON.stringify({ advanceSeconds: KEPT_AFTER_END_MS / 1000 }));
    const gone = call(mock, "GET", "/v1/api/DEMO/Customer/1001", {
      headers: { authorization: `Bearer ${t.access_token}` },
    });
    expect(gone.status).toBe(401);
    expect(gone.headers["www-authenticate"]).toContain("unknown");
  });
});
