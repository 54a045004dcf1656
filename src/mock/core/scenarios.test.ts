// Scenario control: Prefer (Prism's convention), switches and rules while the
// mock runs, latency, forced failures, tokens, the request log, the control token.
import { describe, expect, it } from "vitest";
import { buildMock } from "../index.ts";
import { call, codeFlowTokens, control, DEMO_APP, expectContract, freshMock } from "../testing.ts";
import { LOG_SIZE } from "./request-log.ts";

const OPERATIONS: Array<[string, string, string, string, number[]]> = [
  ["listCustomerInfo", "GET", "/v1/api/DEMO/CustomerInfoList", "/api/{database_id}/CustomerInfoList", [401, 404, 500]],
  ["getCustomer", "GET", "/v1/api/DEMO/Customer/1001", "/api/{database_id}/Customer/{customer_id}", [401, 404, 500]],
  ["createCustomer", "POST", "/v1/api/DEMO/Customer", "/api/{database_id}/Customer", [400, 401, 404, 413, 415, 500]],
  [
    "updateCustomer",
    "PUT",
    "/v1/api/DEMO/Customer/1001",
    "/api/{database_id}/Customer/{customer_id}",
    [400, 401, 404, 413, 415, 500],
  ],
  [
    "deleteCustomer",
    "DELETE",
    "/v1/api/DEMO/Customer/1001",
    "/api/{database_id}/Customer/{customer_id}",
    [401, 404, 500],
  ],
];
const body = JSON.stringify({ CustomerId: "1001", Name: "Voorkeur B.V." });

describe("Prefer: code=", () => {
  const cases = OPERATIONS.flatMap(([op, method, url, path, statuses]) =>
    statuses.map((status) => [op, status, method, url, path] as const),
  );
  it.each(cases)("%s answers %i with the contract's body and headers for it", (_op, status, method, url, path) => {
    const { mock, auth } = freshMock();
    for (const how of ["header", "query"] as const) {
      const res = call(mock, method, how === "query" ? `${url}?__code=${status}` : url, {
        headers: {
          ...auth,
          "content-type": "application/json",
          ...(how === "header" ? { prefer: `code=${status}` } : {}),
        },
        body: method === "POST" || method === "PUT" ? body : undefined,
      });
      expect(res.status, how).toBe(status);
      expectContract(mock, path, method, res);
      expect(res.headers["x-bawa-forced"]).toBe(`Prefer: code=${status}`);
      if (status === 401)
        expect(res.headers["www-authenticate"]).toMatch(/^Bearer realm="bawa", error="invalid_token"/);
      if (status === 400) expect(Object.keys(res.json().ModelState)).toEqual(["customer.Name"]);
    }
    // Nothing happened: the forced answer stands in for the operation.
    expect(call(mock, "GET", "/v1/api/DEMO/Customer/1001", { headers: auth }).status).toBe(200);
  });

  it.each(OPERATIONS)("%s: a status it does not define is 400 naming the ones it does", (op, method, url) => {
    const { mock, auth } = freshMock();
    const res = call(mock, method, url, {
      headers: { ...auth, prefer: "code=418", "content-type": "application/json" },
      body,
    });
    expect(res.status).toBe(400);
    expect(res.json().Message).toMatch(
      new RegExp(`^Prefer: code=418 is not a status ${op} answers with; it answers 200, `),
    );
  });

  it("code=200 lets the operation answer as it would, and a success is never faked", () => {
    const { mock, auth } = freshMock();
    expect(call(mock, "GET", "/v1/api/DEMO/Customer/1001", { headers: { ...auth, prefer: "code=200" } }).status).toBe(
      200,
    );
    expect(call(mock, "GET", "/v1/api/DEMO/Customer/9999", { headers: { ...auth, prefer: "code=200" } }).status).toBe(
      404,
    );
  });
});

describe("Prefer: delay=", () => {
  it("holds the answer back by the milliseconds asked, within the bound", () => {
    const { mock, auth } = freshMock();
    const res = call(mock, "GET", "/v1/api/DEMO/Customer/1001", { headers: { ...auth, prefer: "delay=250" } });
    expect(res.status).toBe(200);
    expect(res.meta?.delayMs).toBe(250);
    const both = call(mock, "GET", "/v1/api/DEMO/Customer/1001", {
      headers: { ...auth, prefer: "code=404, delay=10" },
    });
    expect([both.status, both.meta?.delayMs]).toEqual([404, 10]);
    expect(both.json().Message).toBe("No object with this id exists.");
    // A list has no id to miss: a forced 404 there says what ASP.NET Web API says.
    const list = call(mock, "GET", "/v1/api/DEMO/CustomerInfoList?__code=404", { headers: auth });
    expect(list.status).toBe(404);
    expect(list.json().Message).toBe("No HTTP resource was found that matches the request URI.");
    for (const bad of ["delay=60001", "delay=-1", "delay=soon"]) {
      const refused = call(mock, "GET", "/v1/api/DEMO/Customer/1001", { headers: { ...auth, prefer: bad } });
      expect(refused.status, bad).toBe(400);
      expect(refused.json().Message).toMatch(/is not a number of milliseconds from 0 to 60000/);
    }
  });
});

describe("scenarios while the mock runs", () => {
  it("a fault switched on changes the next answer, and off again restores it", () => {
    const { mock, auth } = freshMock();
    const read = () => call(mock, "GET", "/v1/api/DEMO/Customer/1001", { headers: auth });
    expect(control(mock, "/__mock/scenarios/field-missing", '{"on": true}').status).toBe(200);
    expect(read().json()).not.toHaveProperty("CollectiveInvoiceSystemId");
    expect(read().headers["x-bawa-faults"]).toBe("field-missing");
    control(mock, "/__mock/scenarios/field-missing", '{"on": false}');
    expect(read().json()).toHaveProperty("Fax");
    expect(read().headers["x-bawa-faults"]).toBeUndefined();
    expect(control(mock, "/__mock/scenarios/nope", '{"on": true}').status).toBe(404);
    expect(control(mock, "/__mock/scenarios/field-missing", '{"on": "yes"}').status).toBe(400);
  });

  it("rules change while it runs: a short token lifetime, and a refused value names the rule", () => {
    const { mock } = freshMock();
    expect(control(mock, "/__mock/rules", '{"accessTokenSeconds": 60}').status).toBe(200);
    const tokens = codeFlowTokens(mock);
    expect(tokens.expires_in).toBe(60);
    control(mock, "/__mock/clock", '{"advanceSeconds": 61}');
    const auth = { authorization: `Bearer ${tokens.access_token}` };
    expect(call(mock, "GET", "/v1/api/DEMO/Customer/1001", { headers: auth }).status).toBe(401);
    for (const bad of ['{"nope": 1}', '{"accessTokenSeconds": 0}', '{"codeSingleUse": "no"}']) {
      const res = control(mock, "/__mock/rules", bad);
      expect(res.status, bad).toBe(400);
      expect(res.json().Message, bad).toMatch(
        /There is no rule nope|accessTokenSeconds is a whole number|codeSingleUse is true or false/,
      );
    }
  });

  it("latency and the next N failures of a route, then normal answers", () => {
    const { mock, auth } = freshMock();
    const read = () => call(mock, "GET", "/v1/api/DEMO/Customer/1001", { headers: auth });
    control(mock, "/__mock/latency", '{"route": "getCustomer", "ms": 300}');
    expect(read().meta?.delayMs).toBe(300);
    control(mock, "/__mock/latency", '{"route": "getCustomer", "ms": 0}');
    expect(read().meta?.delayMs).toBeUndefined();
    control(mock, "/__mock/failures", '{"route": "getCustomer", "status": 500, "count": 2}');
    expect([read().status, read().status, read().status]).toEqual([500, 500, 200]);
    expect(control(mock, "/__mock/failures", '{"route": "nope", "status": 500, "count": 1}').json().Message).toMatch(
      /route must be one of \*, authorize, /,
    );
    expect(control(mock, "/__mock/failures", '{"route": "*", "status": 418, "count": 1}').status).toBe(400);
  });

  it("a failure forced on a write is answered before it runs: nothing is stored, changed or deleted", () => {
    const { mock, auth } = freshMock();
    const json = { ...auth, "content-type": "application/json" };
    const ids = () =>
      (
        call(mock, "GET", "/v1/api/DEMO/CustomerInfoList", { headers: auth }).json() as Array<{ CustomerId: string }>
      ).map((c) => c.CustomerId);
    const before = ids();
    control(mock, "/__mock/failures", '{"route": "createCustomer", "status": 500, "count": 3}');
    const create = () => call(mock, "POST", "/v1/api/DEMO/Customer", { headers: json, body: '{"Name": "Retried"}' });
    expect([create().status, create().status, create().status]).toEqual([500, 500, 500]);
    expect(ids()).toEqual(before);
    // The retry after the failures stores one customer, not four.
    expect(create().status).toBe(200);
    expect(ids()).toHaveLength(before.length + 1);
    expect(control(mock, "/__mock/failures", '{"route": "*", "status": 500, "count": 2}').status).toBe(200);
    expect(call(mock, "DELETE", "/v1/api/DEMO/Customer/1001", { headers: auth }).status).toBe(500);
    const put = call(mock, "PUT", "/v1/api/DEMO/Customer/1002", {
      headers: json,
      body: '{"CustomerId": "1002", "Name": "Changed?"}',
    });
    expect(put.status).toBe(500);
    expect(put.headers["x-bawa-forced"]).toBe("a scenario");
    expect(ids()).toContain("1001");
    const kept = call(mock, "GET", "/v1/api/DEMO/Customer/1002", { headers: auth }).json();
    expect(kept.Name).not.toBe("Changed?");
    // The fault switches that are on leave a forced failure as it is.
    expect(control(mock, "/__mock/scenarios/unknown-id-200", '{"on": true}').status).toBe(200);
    control(mock, "/__mock/failures", '{"route": "deleteCustomer", "status": 404, "count": 1}');
    const forced = call(mock, "DELETE", "/v1/api/DEMO/Customer/1003", { headers: auth });
    expect([forced.status, forced.headers["x-bawa-forced"]]).toEqual([404, "a scenario"]);
  });

  it("one token or all tokens expire or are revoked now", () => {
    const { mock } = freshMock();
    const one = codeFlowTokens(mock);
    const two = codeFlowTokens(mock);
    const works = (t: string) =>
      call(mock, "GET", "/v1/api/DEMO/Customer/1001", { headers: { authorization: `Bearer ${t}` } }).status;
    expect(
      control(mock, "/__mock/tokens/expire", JSON.stringify({ token: one.access_token.slice(0, 10) })).status,
    ).toBe(200);
    expect([works(one.access_token), works(two.access_token)]).toEqual([401, 200]);
    control(mock, "/__mock/tokens/revoke", '{"all": true}');
    expect(works(two.access_token)).toBe(401);
    const listed = call(mock, "GET", "/__mock/tokens").json() as Array<{ state: string }>;
    expect(listed.every((t) => t.state === "revoked")).toBe(true);
    // A body that names no token is 400 saying what to send; a token that is not there, 404.
    for (const path of ["/__mock/tokens/expire", "/__mock/tokens/revoke"]) {
      for (const body of ["{}", '{"token": ""}', '{"token": 7}', '{"all": "yes"}']) {
        const res = control(mock, path, body);
        expect(res.status, `${path} ${body}`).toBe(400);
        expect(res.json().Message).toMatch(/^Name the token: send \{"token": /);
      }
      expect(control(mock, path, '{"token": "nosuchtoken"}').status).toBe(404);
    }
  });

  it("reset clears every scenario but keeps the command line's", () => {
    const mock = buildMock({ switches: ["field-missing"] });
    control(mock, "/__mock/scenarios/dates-iso", '{"on": true}');
    control(mock, "/__mock/rules", '{"codeSingleUse": false}');
    control(mock, "/__mock/latency", '{"route": "*", "ms": 100}');
    expect(mock.scenarios.summary()).toBe("field-missing,dates-iso,codeSingleUse=false,latency:*=100ms");
    control(mock, "/__mock/reset");
    expect(mock.scenarios.summary()).toBe("field-missing");
  });
});

describe("the request log", () => {
  it("records who called what and why it failed, and keeps only the last entries", () => {
    const { mock, auth } = freshMock();
    call(mock, "POST", "/v1/api/DEMO/Customer", {
      headers: { ...auth, "content-type": "application/json" },
      body: '{"City": "Zonder naam"}',
    });
    const [entry] = (call(mock, "GET", "/__mock/requests").json().entries as Array<Record<string, unknown>>).slice(-1);
    expect(entry).toMatchObject({
      method: "POST",
      path: "/v1/api/DEMO/Customer",
      status: 400,
      route: "createCustomer",
      code: "body.invalid",
      client: DEMO_APP.clientId,
      user: "demo",
      database: "DEMO",
    });
    expect(entry!.problem).toMatch(/The request is invalid. Name is required/);
    for (let i = 0; i < LOG_SIZE + 20; i++) call(mock, "GET", "/v1/api/DEMO/Customer/1001", { headers: auth });
    const { entries, size } = call(mock, "GET", "/__mock/requests").json();
    expect(size).toBe(LOG_SIZE);
    expect(entries).toHaveLength(LOG_SIZE);
    const last = entries.at(-1).id;
    expect(call(mock, "GET", `/__mock/requests?after=${last - 3}`).json().entries).toHaveLength(3);
    // Reading the mock's own state does not fill its log.
    expect(call(mock, "GET", "/__mock/requests").json().entries.at(-1).id).toBe(last);
  });
});

describe("the control token", () => {
  it("guards the control calls, the dashboard and the portal, not the API", () => {
    const token = "team-mock-token-0123456789";
    const mock = buildMock({ config: { controlToken: token } });
    expect(control(mock, "/__mock/clock", '{"advanceSeconds": 1}').status).toBe(401);
    expect(call(mock, "GET", "/__mock/scenarios").status).toBe(401);
    expect(call(mock, "GET", "/__mock/").status).toBe(401);
    const withHeader = call(mock, "POST", "/__mock/clock", {
      headers: { "content-type": "application/json", "x-bawa-control-token": token },
      body: '{"advanceSeconds": 1}',
    });
    expect(withHeader.status).toBe(200);
    const opened = call(mock, "GET", `/__mock/?token=${token}`);
    expect(opened.status).toBe(303);
    const cookie = opened.headers["set-cookie"]!.split(";")[0]!;
    expect(call(mock, "GET", "/__mock/", { headers: { cookie } }).status).toBe(200);
    expect(call(mock, "GET", "/__mock/scenarios", { headers: { cookie: "bawa_control=wrong" } }).status).toBe(401);
    // The portal shows secrets and changes the redirect URIs every login uses: the dashboard's cookie opens it.
    expect(opened.headers["set-cookie"]).toContain("Path=/;");
    expect(call(mock, "GET", "/portal").status).toBe(401);
    expect(call(mock, "GET", "/portal/applications/demo-client").status).toBe(401);
    expect(call(mock, "GET", "/portal", { headers: { cookie } }).status).toBe(200);
    // The API answers as always (here: no bearer token).
    expect(call(mock, "GET", "/v1/api/DEMO/Customer/1001").status).toBe(401);
  });

  it("takes the header when sent, else the dashboard link's token over an older cookie", () => {
    const token = "team-mock-token-0123456789";
    const mock = buildMock({ config: { controlToken: token } });
    const scenarios = (headers: Record<string, string>, query = "") =>
      call(mock, "GET", `/__mock/scenarios${query}`, { headers }).status;
    // A cookie of an earlier start does not shadow the link just opened.
    expect(scenarios({ cookie: "bawa_control=of-an-earlier-start" }, `?token=${token}`)).toBe(200);
    // A browser sends a cookie per path it was set for: the right one counts.
    expect(scenarios({ cookie: `bawa_control=of-an-earlier-start; bawa_control=${token}` })).toBe(200);
    // A wrong header is not rescued by anything else.
    expect(scenarios({ "x-bawa-control-token": "wrong", cookie: `bawa_control=${token}` }, `?token=${token}`)).toBe(
      401,
    );
    const refused = call(mock, "GET", "/__mock/scenarios");
    expect(refused.json().Message).toContain("open the dashboard once at /__mock/?token=<token>");
    expect(refused.json().Message).not.toContain("non-loopback");
  });
});
