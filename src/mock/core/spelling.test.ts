// The second round of hardening, in process: every spelling of a path is one
// path (the guard, CORS and the router read the same decoded one), scenarios
// never reach the mock's own pages, and the smaller findings each get their
// clean 4xx. Each case once answered otherwise.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildMock } from "../index.ts";
import { call, codeFlowTokens, control } from "../testing.ts";
import { parseTarget } from "./app.ts";
import { LONGEST_LIFETIME_MS, MAX_DATE_MS } from "./clock.ts";

const TOKEN = "a-control-token-of-sixteen";
const guarded = () => buildMock({ config: { controlToken: TOKEN, ownHosts: ["127.0.0.1:4010"] } });
const HOST = { host: "127.0.0.1:4010" };

describe("one decision of what a path is", () => {
  it.each([
    ["upper case", "/__MOCK/applications"],
    ["percent-encoded underscores", "/%5f%5fmock/applications"],
    ["percent-encoded and mixed case", "/%5F%5FMoCk/APPLICATIONS"],
    ["a dot segment", "/__mock/./applications"],
    ["a detour", "/__mock/x/../applications"],
    ["doubled slashes", "//__mock//applications/"],
    ["an encoded dot detour", "/__mock/x/%2e%2e/applications"],
  ])("%s of a control call needs the control token, as the canonical path does", (_name, path) => {
    const mock = guarded();
    const canonical = call(mock, "GET", "/__mock/applications", { headers: HOST });
    expect(canonical.status).toBe(401);
    const spelled = call(mock, "GET", path, { headers: HOST });
    expect(spelled.status, `${path} answered ${spelled.status}`).toBe(401);
    expect(spelled.text).toBe(canonical.text);
    expect(spelled.text).not.toContain("demo-secret");
  });

  it("a control call posted as text/plain under another spelling changes nothing", () => {
    const mock = guarded();
    const res = call(mock, "POST", "/__MOCK/rules", {
      headers: { ...HOST, "content-type": "text/plain" },
      body: '{"checkClientSecret": false}',
    });
    expect(res.status).toBe(401);
    expect(mock.scenarios.rules.checkClientSecret).toBe(true);
  });

  // Any spelling a client can make of a protected path: case, percent-encoding, dot segments,
  // doubled slashes, a trailing slash. Each gets the canonical path's answer, byte for byte.
  it("answers every spelling of a protected path as it answers the path itself (property)", () => {
    const mock = guarded();
    const paths = ["/__mock/applications", "/__mock/rules", "/__mock/tokens", "/__mock/", "/portal"];
    const spell = (segment: string) =>
      fc
        .array(fc.tuple(fc.boolean(), fc.boolean()), { minLength: segment.length, maxLength: segment.length })
        .map((flags) =>
          [...segment]
            .map((ch, i) => {
              const [upper, encode] = flags[i]!;
              const c = upper ? ch.toUpperCase() : ch;
              return encode ? `%${c.charCodeAt(0).toString(16).padStart(2, "0")}` : c;
            })
            .join(""),
        );
    const noise = fc.constantFrom("", "/", "/.", "/x/..", "/%2E");
    const spelling = fc.constantFrom(...paths).chain((p) =>
      fc
        .tuple(
          ...p
            .split("/")
            .filter(Boolean)
            .map((s) => fc.tuple(noise, spell(s))),
          fc.constantFrom("", "/"),
        )
        .map((parts) => {
          const trailing = parts.pop() as string;
          const body = (parts as Array<[string, string]>).map(([n, s]) => `${n}/${s}`).join("");
          return { canonical: p, spelled: `${body}${trailing}` };
        }),
    );
    fc.assert(
      fc.property(spelling, ({ canonical, spelled }) => {
        const a = call(mock, "GET", canonical, { headers: HOST });
        const b = call(mock, "GET", spelled, { headers: HOST });
        expect(`${b.status} ${b.text.slice(0, 80)}`, `${spelled} against ${canonical}`).toBe(
          `${a.status} ${a.text.slice(0, 80)}`,
        );
      }),
      { numRuns: 300, seed: 20261123 },
    );
  });

  it("reads a path once: decoded, dot segments resolved, empty segments dropped; climbing above the root is 400", () => {
    expect(parseTarget("/a/%62/./c/../d//e/?x=1")).toMatchObject({ ok: true, segments: ["a", "b", "d", "e"] });
    expect(parseTarget("/../__mock/reset")).toMatchObject({ ok: false, code: "request.bad-path" });
    expect(parseTarget("/a/%zz")).toMatchObject({ ok: false, code: "request.bad-path" });
    expect(parseTarget("*")).toMatchObject({ ok: false, code: "request.bad-target" });
    // The absolute form, as a proxy sends it (RFC 9112 3.2.2), when it names the Host.
    expect(parseTarget("http://127.0.0.1:4010/v1/api?$top=1", "127.0.0.1:4010")).toMatchObject({
      ok: true,
      segments: ["v1", "api"],
      rawPath: "/v1/api",
    });
    expect(parseTarget("HTTP://Localhost:4010", "localhost:4010")).toMatchObject({ ok: true, segments: [] });
    expect(parseTarget("http://evil.example/__mock/reset", "127.0.0.1:4010")).toMatchObject({
      ok: false,
      code: "request.bad-target",
      message: expect.stringContaining('names "evil.example", the Host header "127.0.0.1:4010"'),
    });
  });
});

describe("scenarios on every route never reach the mock's own pages", () => {
  it("a failure and a latency on * hit the API, not the control calls, the dashboard or the portal", () => {
    const mock = buildMock();
    const auth = { authorization: `Bearer ${codeFlowTokens(mock).access_token}` };
    expect(control(mock, "/__mock/failures", '{"route":"*","status":500,"count":100}').status).toBe(200);
    expect(control(mock, "/__mock/latency", '{"route":"*","ms":5000}').status).toBe(200);
    const api = call(mock, "GET", "/v1/api/DEMO/Customer/1001", { headers: auth });
    expect(api.status).toBe(500);
    expect(api.meta?.delayMs).toBe(5000);
    for (const path of ["/__mock/scenarios", "/__mock/", "/__mock/dashboard.js", "/portal"]) {
      const own = call(mock, "GET", path);
      expect(own.status, path).toBe(200);
      expect(own.meta?.delayMs, path).toBeUndefined();
    }
    // The dashboard can undo it.
    expect(control(mock, "/__mock/reset", "{}").status).toBe(200);
    expect(call(mock, "GET", "/v1/api/DEMO/Customer/1001", { headers: auth }).status).toBe(200);
  });
});

describe("the smaller findings", () => {
  it.each([
    ['{"constructor": 1}', /There is no rule constructor/],
    ['{"__proto__": 1}', /There is no rule __proto__/],
    ['{"toString": true}', /There is no rule toString/],
  ])("rules %s are 400 naming the unknown name", (body, message) => {
    const mock = buildMock();
    const res = control(mock, "/__mock/rules", body);
    expect(res.status).toBe(400);
    expect(res.json().Message).toMatch(message);
  });

  it("a repeated __code is 400, not silently ignored", () => {
    const mock = buildMock();
    const auth = { authorization: `Bearer ${codeFlowTokens(mock).access_token}` };
    const res = call(mock, "GET", "/v1/api/DEMO/Customer/1001?__code=500&__code=404", { headers: auth });
    expect(res.status).toBe(400);
    expect(res.json().Message).toMatch(/__code is given more than once/);
  });

  it("resetting a database that does not exist is 404 naming the databases", () => {
    const mock = buildMock();
    const res = control(mock, "/__mock/databases/NOPE/reset", "{}");
    expect(res.status).toBe(404);
    expect(res.json().Message).toBe("There is no database NOPE; the databases are: DEMO, OTHER.");
    expect(control(mock, "/__mock/databases/DEMO/reset", "{}").status).toBe(200);
  });
});

describe("the clock stays on the calendar", () => {
  it("refuses the move that would leave less than the longest lifetime, and every call still answers", () => {
    const mock = buildMock();
    const tenYears = 10 * 365 * 24 * 3600;
    let moves = 0;
    while (control(mock, "/__mock/clock", JSON.stringify({ advanceSeconds: tenYears })).status === 200) moves++;
    expect(moves).toBeGreaterThan(20_000);
    const refused = control(mock, "/__mock/clock", JSON.stringify({ advanceSeconds: tenYears }));
    expect(refused.status).toBe(400);
    expect(refused.json().Message).toMatch(/never closer than ten years to the end of the calendar/);
    expect(mock.clock.now() + LONGEST_LIFETIME_MS).toBeLessThanOrEqual(MAX_DATE_MS);

    // A token issued now, with the longest lifetime a rule allows, expires on a date.
    expect(control(mock, "/__mock/rules", `{"accessTokenSeconds": ${tenYears}}`).status).toBe(200);
    const auth = { authorization: `Bearer ${codeFlowTokens(mock).access_token}` };
    expect(call(mock, "GET", "/v1/api/DEMO/Customer/1001", { headers: auth }).status).toBe(200);
    for (const path of ["/__mock/clock", "/__mock/tokens", "/__mock/requests", "/portal"]) {
      expect(call(mock, "GET", path).status, path).toBe(200);
    }
    expect(call(mock, "GET", "/__mock/tokens").text).not.toContain("beyond the calendar");

    // POST /__mock/reset sets the clock back to the real time.
    expect(control(mock, "/__mock/reset", "{}").status).toBe(200);
    expect(Math.abs(mock.clock.now() - Date.now())).toBeLessThan(5_000);
  }, 30_000);
});
