// The judge in front of a mock whose state its control calls changed, where the proxy may not have
// seen the call (src/rules/mock-state.ts, decision 0039): a clock another run moved (a second run
// of the suite failed TOK-EXPIRY on every token it got before it read the clock, each "23706 s
// after it was issued", though none had aged a second), a clock moved on the mock's dashboard,
// tokens ended and objects reset there. No rule may be reported broken for what the mock rightly
// answers after such a change, and a token still ages by every move.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildMock } from "../mock/index.ts";
import { listen } from "../mock/node/listen.ts";
import { CHANGES_HEADER, CLOCK_HEADER, readChangesHeader, readClockHeader } from "../rules/mock-state.ts";
import { startProxy } from "./node.ts";
import { fullCustomer, mockBehindProxy, type Session, seedSession } from "./testing.ts";

let behind: Awaited<ReturnType<typeof mockBehindProxy>>;
beforeAll(async () => {
  behind = await mockBehindProxy();
});
afterAll(() => behind?.close());

const session = () => seedSession(behind.proxy.url);

/** The rules the proxy found broken since its entry `after`. */
const brokenSince = (after: number) =>
  behind.proxy.log.since(after).flatMap((e) => e.violations?.map((v) => `${v.requirement} ${v.found ?? ""}`) ?? []);

/** A session, the proxy's last entry before it, and a token of the code flow that was answered once. */
async function tokenThatWorked() {
  const s = session();
  const after = behind.proxy.log.since(0).at(-1)?.id ?? 0;
  const { access } = await s.codeGrant(await s.code());
  expect((await s.data("GET", "CustomerInfoList", access)).status).toBe(200);
  return { s, after, access };
}

/** The mock planted with the fault tokens-never-expire (in process, as a test does) while `run` runs. */
async function withTokensNeverExpiring(run: () => Promise<void>) {
  behind.mock.scenarios.set("tokens-never-expire", true);
  try {
    await run();
  } finally {
    behind.mock.scenarios.set("tokens-never-expire", false);
  }
}

const advance = (s: Session, seconds: number) =>
  s.call("POST", "/__mock/clock", {
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ advanceSeconds: seconds }),
  });

describe("a token's age, when the mock's clock was moved where the proxy did not see it", () => {
  it("is counted from the clock's first reading on, not from the proxy's own clock", async () => {
    // An earlier run moved the clock, straight at the mock: hours ahead of the proxy's.
    behind.mock.clock.advance(23_706);
    const s = session();
    const after = behind.proxy.log.since(0).at(-1)?.id ?? 0;
    const { access, refresh } = await s.codeGrant(await s.code());
    expect(access).toBeDefined();
    // Read, then moved by a minute: the token is a minute old, well within its 7200 s.
    expect((await s.call("GET", "/__mock/clock")).status).toBe(200);
    expect((await s.data("GET", "CustomerInfoList", access)).status).toBe(200);
    expect((await advance(s, 60)).status).toBe(200);
    expect((await s.data("GET", "CustomerInfoList", access)).status).toBe(200);
    expect(brokenSince(after)).toEqual([]);

    // A token got before a move the proxy sees, its first sight of the clock: aged by that move.
    const again = await s.refreshGrant(refresh);
    behind.mock.clock.advance(3_600);
    expect((await advance(s, 60)).status).toBe(200);
    expect((await s.data("GET", "CustomerInfoList", again.access)).status).toBe(200);
    expect(brokenSince(after)).toEqual([]);

    // The rule still holds: past 7200 s by moves the proxy saw, a token that still works is reported.
    await withTokensNeverExpiring(async () => {
      expect((await advance(s, 7_201)).status).toBe(200);
      expect((await s.data("GET", "CustomerInfoList", again.access)).status).toBe(200);
      expect(brokenSince(after).join()).toMatch(/TOK-EXPIRY/);
    });
  });
});

describe("a token's age, when the mock's clock moves where the proxy sees no control call", () => {
  it("judges at the time the mock names: a token refused after the move is no violation, one taken past 7200 s is", async () => {
    const { s, after, access } = await tokenThatWorked();
    // Moved at the mock itself (its dashboard, another tool), past the token's 7200 s: the token
    // that worked is refused, which a judge on the proxy's clock took for DATA-BEARER broken.
    behind.mock.clock.advance(7_300);
    const refused = await s.data("GET", "CustomerInfoList", access);
    expect(refused.status).toBe(401);
    // The mock's clock as X-Bawa-Clock and RFC 9110's Date, passed on by the proxy.
    expect(readClockHeader(refused.headers.get(CLOCK_HEADER) ?? "")).toBeGreaterThan(Date.now() + 7_200_000);
    expect(Date.parse(refused.headers.get("date") ?? "")).toBeGreaterThan(Date.now() + 7_200_000);
    expect(brokenSince(after)).toEqual([]);

    // The rule still holds on a clock moved so: a token that works past its 7200 s is reported.
    const { access: later } = await s.codeGrant(await s.code());
    await withTokensNeverExpiring(async () => {
      behind.mock.clock.advance(7_260);
      expect((await s.data("GET", "CustomerInfoList", later)).status).toBe(200);
      expect(brokenSince(after).join()).toMatch(/TOK-EXPIRY/);
    });
  });
});

describe("a token's age, when the mock's clock moves by small steps where the proxy sees no control call", () => {
  it("is counted to the millisecond the mock names, preflights and all", async () => {
    const { s, after, access } = await tokenThatWorked();
    behind.mock.clock.advance(3_600);
    expect((await s.data("GET", "CustomerInfoList", access)).status).toBe(200);
    // A browser's preflight before a call with a token: an answer of the mock like any other.
    const preflight = await s.call("OPTIONS", "/v1/api/DEMO/CustomerInfoList", {
      headers: { origin: "http://localhost:5173", "access-control-request-method": "GET" },
    });
    expect(readClockHeader(preflight.headers.get(CLOCK_HEADER) ?? "")).toBeGreaterThan(Date.now());
    behind.mock.clock.advance(3_550);
    expect((await s.data("GET", "CustomerInfoList", access)).status).toBe(200);
    // The dashboard's "+1 minute" and less: 7205 s in all, past the token's lifetime.
    behind.mock.clock.advance(55);
    expect((await s.data("GET", "CustomerInfoList", access)).status).toBe(401);
    expect(brokenSince(after)).toEqual([]);
  });
});

describe("a token's age, when a /__mock/clock call follows a move the proxy did not see", () => {
  it("keeps the hidden move: the call names the clock as every answer does", async () => {
    const { s, after, access } = await tokenThatWorked();
    behind.mock.clock.advance(7_300);
    // Read through the proxy: before, the judge took the difference for a clock it had wrong from
    // the start and moved the token with it (a false DATA-BEARER at the next refusal).
    expect((await s.call("GET", "/__mock/clock")).status).toBe(200);
    expect((await s.data("GET", "CustomerInfoList", access)).status).toBe(401);
    expect(brokenSince(after)).toEqual([]);
  });
});

describe("answers decided around a move of the clock through the proxy", () => {
  it("are each judged at the time they were decided, whatever order they end in", async () => {
    const s = session();
    const after = behind.proxy.log.since(0).at(-1)?.id ?? 0;
    for (let round = 0; round < 5; round++) {
      const { access } = await s.codeGrant(await s.code());
      // Reads taken on the clock before the move, in the same turn as it: stamped when they were
      // written, they looked 7300 s old (a false TOK-EXPIRY in most rounds, helper-42).
      const reads = Array.from({ length: 8 }, () => s.data("GET", "CustomerInfoList", access));
      const moved = advance(s, 7_300);
      const statuses = (await Promise.all(reads)).map((r) => r.status);
      expect((await moved).status).toBe(200);
      expect(
        statuses.every((st) => st === 200 || st === 401),
        statuses.join(),
      ).toBe(true);
    }
    expect(brokenSince(after)).toEqual([]);
  });
});

describe("a mock whose clock was never moved, then moved through the proxy", () => {
  // The mock above was moved by the tests before: its answers all name the clock. This one's
  // answers name none until the first move (helper-43).
  let fresh: Awaited<ReturnType<typeof mockBehindProxy>>;
  beforeAll(async () => {
    fresh = await mockBehindProxy();
  });
  afterAll(() => fresh?.close());

  it("judges a read decided before the first move, and ending after it, on the time it was decided", async () => {
    const s = seedSession(fresh.proxy.url);
    const after = fresh.proxy.log.since(0).at(-1)?.id ?? 0;
    const { access } = await s.codeGrant(await s.code());
    expect((await s.data("GET", "CustomerInfoList", access)).status).toBe(200);
    const slow = s.data("GET", "CustomerInfoList", access, { headers: { prefer: "delay=1500" } });
    await new Promise((r) => setTimeout(r, 200));
    expect((await advance(s, 7_300)).status).toBe(200);
    const read = await slow;
    // Decided before the move: rightly taken, and it names no clock (none was moved yet).
    expect(read.status).toBe(200);
    expect(read.headers.get(CLOCK_HEADER)).toBeNull();
    expect(fresh.proxy.log.since(after).flatMap((e) => e.violations ?? [])).toEqual([]);
  });
});

describe("a mock restarted after its clock was moved", () => {
  it("is judged on the real time again, and its tokens age by its own moves", async () => {
    const first = buildMock();
    let server = await listen(first, { host: "127.0.0.1", port: 0 });
    const port = Number(new URL(server.url).port);
    const proxy = await startProxy({ target: server.url, host: "127.0.0.1", port: 0, contract: first.ctx.contract });
    const s = seedSession(proxy.url);
    try {
      expect((await advance(s, 7_300)).status).toBe(200);
      await server.close();
      // The same address, a new process's clock: the real time, named by no answer.
      server = await listen(buildMock(), { host: "127.0.0.1", port });
      const after = proxy.log.since(0).at(-1)?.id ?? 0;
      const { access } = await s.codeGrant(await s.code());
      expect((await s.data("GET", "CustomerInfoList", access)).status).toBe(200);
      expect((await advance(s, 7_250)).status).toBe(200);
      // 7250 s past its issue, on the new process's clock: rightly refused, no DATA-BEARER.
      expect((await s.data("GET", "CustomerInfoList", access)).status).toBe(401);
      expect(proxy.log.since(after).flatMap((e) => e.violations ?? [])).toEqual([]);
    } finally {
      await proxy.close();
      await server.close();
    }
  });
});

describe("control calls made at the mock itself, not through the proxy", () => {
  /** A control call to the mock's own address, as its dashboard makes one. */
  const atTheMock = (path: string, body: unknown) =>
    fetch(`${behind.server.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });

  it("ending every token: a token then refused is no violation (the judge forgets what it kept)", async () => {
    const { s, after, access } = await tokenThatWorked();
    expect((await atTheMock("/__mock/tokens/expire", { all: true })).status).toBe(200);
    const refused = await s.data("GET", "CustomerInfoList", access);
    expect(refused.status).toBe(401);
    expect(readChangesHeader(refused.headers.get(CHANGES_HEADER) ?? "")?.tokens).toBeGreaterThan(0);
    expect(brokenSince(after)).toEqual([]);
    // The proxy's log gives the refusal's own words, as the mock's log does.
    expect(behind.proxy.log.since(after).at(-1)?.problem).toMatch(/^Authorization has been denied for this request/);
    const grant = await s.call("POST", "/v1/OAuth/Token", {
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "refresh_token",
        refresh_token: "not-one-we-issued",
        client_id: s.account.app.clientId,
        client_secret: s.account.app.clientSecret,
        redirect_uri: s.account.app.redirectUri,
      }).toString(),
    });
    expect(grant.status).toBe(400);
    expect(behind.proxy.log.since(after).at(-1)?.problem).toMatch(/^invalid_\w+(: .+)?$/);
  });

  it("resetting the objects: one deleted through the proxy and back from the seed is no violation", async () => {
    const { s, after, access } = await tokenThatWorked();
    const created = await s.data("POST", "Customer", access, { body: fullCustomer("Reset B.V.") });
    expect(created.status).toBe(200);
    expect((await s.data("DELETE", "Customer/1001", access)).status).toBe(200);
    expect((await s.data("GET", "Customer/1001", access)).status).toBe(404);
    expect((await atTheMock("/__mock/reset", {})).status).toBe(200);
    // Back from the seed; the one created is gone. A judge that kept both saw two drifts.
    expect((await s.data("GET", "Customer/1001", access)).status).toBe(200);
    expect((await s.data("GET", `Customer/${created.id}`, access)).status).toBe(404);
    expect(brokenSince(after)).toEqual([]);
  });
});
