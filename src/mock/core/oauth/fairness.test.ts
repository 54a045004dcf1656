// The second round of hardening of the authorization server (issue 21, items
// 5 to 7), in process: a pending application unlocks nothing, one client or
// source flooding the stores is refused by its own cap and pushes out no one
// else, wrong passwords are throttled on the mock's clock, and the browser
// cookie is always one the server minted.
import { describe, expect, it } from "vitest";
import { contractInUse } from "../../../contract/index.ts";
import { buildMock } from "../../index.ts";
import {
  call,
  codeFlowTokens,
  control,
  DEMO_APP,
  expectContract,
  portalPost,
  type Reply,
  SCOPE,
  SECOND_APP,
  SEED,
  tokenRequest,
} from "../../testing.ts";
import { MovableClock } from "../clock.ts";
import {
  LOGIN_DECAY_SECONDS,
  LOGIN_LOCK_AFTER_PER_BROWSER,
  LOGIN_LOCK_AFTER_PER_SOURCE,
  LOGIN_LOCK_AFTER_PER_USER,
  LOGIN_LOCK_SECONDS,
  MAX_ACCESS_TOKENS_PER_CLIENT,
  MAX_CODES_PER_CLIENT,
  MAX_LOGIN_THROTTLE_ENTRIES,
  MAX_PENDING_AUTHORIZATIONS_PER_BROWSER,
  MAX_PENDING_AUTHORIZATIONS_PER_CLIENT,
  MAX_PENDING_AUTHORIZATIONS_PER_SOURCE,
  MAX_REFRESH_TOKENS_PER_CLIENT,
} from "../limits.ts";
import { KEPT_AFTER_END_MS } from "./tokens.ts";

type Mock = ReturnType<typeof buildMock>;
/** A mock whose clock stands still unless a test moves it, so every Retry-After is exact. */
const contract = contractInUse();
const stillMock = () => buildMock({ contract, clock: new MovableClock(() => Date.UTC(2030, 0, 1)) });
type App = Pick<typeof DEMO_APP, "clientId" | "clientSecret" | "redirectUri">;
const FORM = { "content-type": "application/x-www-form-urlencoded" };
const cookieOf = (res: Reply) => res.headers["set-cookie"]?.split(";")[0];
const advance = (mock: Mock, seconds: number) =>
  expect(control(mock, "/__mock/clock", JSON.stringify({ advanceSeconds: seconds })).status).toBe(200);

const authorize = (mock: Mock, app: App, source?: string, headers: Record<string, string> = {}) =>
  call(
    mock,
    "GET",
    `/v1/OAuth/Authorize?${new URLSearchParams({ client_id: app.clientId, redirect_uri: app.redirectUri, scope: SCOPE, response_type: "code" })}`,
    { headers, ...(source ? { remoteAddress: source } : {}) },
  );

/** A browser halfway through logging in: the authorization request opened and the login screen shown. */
function startLogin(mock: Mock, app: App = DEMO_APP, source?: string) {
  const started = authorize(mock, app, source);
  expect(started.status, started.text).toBe(302);
  const cookie = cookieOf(started)!;
  const screen = call(mock, "GET", started.headers.location!, { headers: { cookie } });
  expect(screen.status).toBe(200);
  return {
    cookie,
    request: /name="request" value="([^"]+)"/.exec(screen.text)![1]!,
    csrf: /name="csrf" value="([^"]+)"/.exec(screen.text)![1]!,
    source,
  };
}
type Login = ReturnType<typeof startLogin>;

const logIn = (mock: Mock, login: Login, username: string, password: string, source = login.source) =>
  call(mock, "POST", "/v1/OAuth/Login", {
    headers: { ...FORM, cookie: login.cookie },
    body: new URLSearchParams({ request: login.request, csrf: login.csrf, username, password }).toString(),
    ...(source ? { remoteAddress: source } : {}),
  });

/** Logs in with the right password and allows: the redirect back to the client. */
function finishLogin(mock: Mock, login: Login): Reply {
  const loggedIn = logIn(mock, login, SEED.user.username, SEED.user.password);
  expect(loggedIn.status, loggedIn.text).toBe(303);
  return allow(mock, login, cookieOf(loggedIn)!);
}

const allow = (mock: Mock, login: Login, cookie: string) =>
  call(mock, "POST", "/v1/OAuth/Permission", {
    headers: { ...FORM, cookie },
    body: new URLSearchParams({ request: login.request, csrf: login.csrf, decision: "allow" }).toString(),
  });

const refreshGrant = (mock: Mock, app: App, refreshToken: string) =>
  tokenRequest(mock, {
    grant_type: "refresh_token",
    refresh_token: refreshToken,
    client_id: app.clientId,
    client_secret: app.clientSecret,
    redirect_uri: app.redirectUri,
  });

const readWith = (mock: Mock, accessToken: string) =>
  call(mock, "GET", "/v1/api/DEMO/Customer/1001", { headers: { authorization: `Bearer ${accessToken}` } }).status;

const retryAfter = (res: Reply) => Number(res.headers["retry-after"]);

describe("only active applications are trusted", () => {
  const origin = new URL(SEED.pending.redirectUri).origin;
  const preflight = (mock: Mock, path: string, from: string) =>
    call(mock, "OPTIONS", path, {
      headers: {
        origin: from,
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type",
      },
    });

  it("a pending application's origin is no CORS origin of the control calls or the API, until it is activated", () => {
    const mock = stillMock();
    const registered = portalPost(mock, "/portal", "/portal/applications", {
      name: "Lure",
      redirect_uri: "http://localhost:9000/cb",
    });
    expect(registered.status).toBe(303);
    const clientId = registered.headers.location!.split("/").pop()!;
    for (const from of [origin, "http://localhost:9000"]) {
      expect(preflight(mock, "/__mock/rules", from).status, from).toBe(403);
      expect(preflight(mock, "/v1/api/DEMO/CustomerInfoList", from).status, from).toBe(403);
      const secrets = call(mock, "GET", "/__mock/applications", { headers: { origin: from } });
      expect(secrets.headers["access-control-allow-origin"], from).toBeUndefined();
      const switched = call(mock, "POST", "/__mock/rules", {
        headers: { origin: from, "content-type": "application/json" },
        body: JSON.stringify({ checkClientSecret: false }),
      });
      expect(switched.status, from).toBe(403);
      expect(switched.text).toContain("A page of another site");
    }
    expect(mock.ctx.rules.checkClientSecret).toBe(true);
    // Nor is anything redirected to a pending application's redirect URI.
    const sent = authorize(mock, { ...DEMO_APP, clientId, redirectUri: "http://localhost:9000/cb" });
    expect(sent.status).toBe(400);
    expect(sent.headers.location).toBeUndefined();

    // Activated, the same origin may call: the refusals above were for the status, not the origin.
    expect(control(mock, `/__mock/applications/${clientId}/activate`).status).toBe(200);
    expect(preflight(mock, "/__mock/rules", "http://localhost:9000").status).toBe(204);
    const read = call(mock, "GET", "/__mock/applications", { headers: { origin: "http://localhost:9000" } });
    expect(read.headers["access-control-allow-origin"]).toBe("http://localhost:9000");
    expect(authorize(mock, { ...DEMO_APP, clientId, redirectUri: "http://localhost:9000/cb" }).status).toBe(302);
  });
});

describe("fair caps of pending logins (A-LIMITS)", () => {
  it("a source flooding the authorization endpoint displaces its own unseen requests, never a login under way", () => {
    const mock = stillMock();
    const halfway = startLogin(mock, SECOND_APP, "192.0.2.7");
    const mine = startLogin(mock, DEMO_APP, "198.51.100.1");
    // A page firing requests (an <img> follows the redirect, without the cookie): no screen is shown.
    let last = authorize(mock, DEMO_APP, "198.51.100.1");
    for (let i = 2; i < MAX_PENDING_AUTHORIZATIONS_PER_SOURCE + 50; i++)
      last = authorize(mock, DEMO_APP, "198.51.100.1");
    expect(last.status).toBe(302);
    expect(mock.counts().pendingAuthorizations).toBe(MAX_PENDING_AUTHORIZATIONS_PER_SOURCE + 1);
    // Everyone goes on: the login halfway through, a new one from elsewhere, the source's own login
    // under way, and a new login from the flooded source itself.
    expect(new URL(finishLogin(mock, halfway).headers.location!).searchParams.get("code")).toBeTruthy();
    expect(authorize(mock, DEMO_APP, "192.0.2.8").status).toBe(302);
    expect(new URL(finishLogin(mock, mine).headers.location!).searchParams.get("code")).toBeTruthy();
    const fresh = startLogin(mock, DEMO_APP, "198.51.100.1");
    expect(new URL(finishLogin(mock, fresh).headers.location!).searchParams.get("code")).toBeTruthy();
  });

  it("a source with its cap full of logins under way gets 429 naming its cap, until they expire", () => {
    const mock = stillMock();
    const halfway = startLogin(mock, SECOND_APP, "192.0.2.7");
    for (let i = 0; i < MAX_PENDING_AUTHORIZATIONS_PER_SOURCE; i++) startLogin(mock, DEMO_APP, "198.51.100.1");
    const last = authorize(mock, DEMO_APP, "198.51.100.1");
    expect(last.status).toBe(429);
    expect(last.text).toContain(
      `The address 198.51.100.1 has ${MAX_PENDING_AUTHORIZATIONS_PER_SOURCE.toLocaleString("en")} authorization requests waiting for login`,
    );
    expect(retryAfter(last)).toBeGreaterThan(0);
    expect(retryAfter(last)).toBeLessThanOrEqual(600);
    expectContract(mock, "/OAuth/Authorize", "get", last);
    expect(mock.counts().pendingAuthorizations).toBe(MAX_PENDING_AUTHORIZATIONS_PER_SOURCE + 1);
    expect(new URL(finishLogin(mock, halfway).headers.location!).searchParams.get("code")).toBeTruthy();
    // Once they expired, the source may start logins again.
    advance(mock, retryAfter(last));
    expect(authorize(mock, DEMO_APP, "198.51.100.1").status).toBe(302);
  });

  it("one client's requests from many sources stop at the cap per client; other clients are not refused", () => {
    const mock = stillMock();
    const other = startLogin(mock, SECOND_APP, "192.0.2.1");
    let last: Reply | undefined;
    for (let i = 0; i < MAX_PENDING_AUTHORIZATIONS_PER_CLIENT + 10; i++) {
      last = authorize(mock, DEMO_APP, `203.0.113.${i % 7}`);
    }
    expect(last!.status).toBe(429);
    expect(last!.text).toContain(`The client ${DEMO_APP.clientId} has 2,500 authorization requests waiting for login`);
    expect(authorize(mock, SECOND_APP, "203.0.113.1").status).toBe(302);
    expect(new URL(finishLogin(mock, other).headers.location!).searchParams.get("code")).toBeTruthy();
  });
});

describe("fair caps of codes and tokens (A-LIMITS)", () => {
  const grant = { user: "demo", databases: ["DEMO"], scope: SCOPE };

  it("refresh grants of one client stop at its cap with 429; another client's token keeps working", () => {
    const mock = stillMock();
    const theirs = codeFlowTokens(mock, "demo", SECOND_APP);
    const mine = codeFlowTokens(mock);
    // The store filled almost to the cap as a long flood of refresh grants would, then the real grants.
    const now = mock.clock.now();
    for (let i = 0; i < MAX_ACCESS_TOKENS_PER_CLIENT - 10; i++) {
      mock.tokens.issueAccessToken({ ...grant, clientId: DEMO_APP.clientId }, now);
    }
    const answers = Array.from({ length: 20 }, () => refreshGrant(mock, DEMO_APP, mine.refresh_token));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(9);
    const refused = answers.at(-1)!;
    expect(refused.status).toBe(429);
    expect(refused.json()).toEqual({
      error: "temporarily_unavailable",
      error_description: `The client ${DEMO_APP.clientId} has 100,000 access tokens, the most one client may have (A-LIMITS); try again in ${retryAfter(refused).toLocaleString("en")} s, when the oldest is dropped.`,
    });
    expectContract(mock, "/OAuth/Token", "post", refused);
    // The oldest ends with its 7200 s lifetime and is dropped KEPT_AFTER_END_MS later.
    expect(retryAfter(refused)).toBe(7200 + KEPT_AFTER_END_MS / 1000);
    expect(readWith(mock, theirs.access_token)).toBe(200);
    expect(readWith(mock, mine.access_token)).toBe(200);
    const theirsRefreshed = refreshGrant(mock, SECOND_APP, theirs.refresh_token);
    expect(theirsRefreshed.status).toBe(200);
    expect(readWith(mock, theirsRefreshed.json().access_token)).toBe(200);
    // After the wait the client is served again, without a sweep having run.
    advance(mock, retryAfter(refused));
    expect(refreshGrant(mock, DEMO_APP, mine.refresh_token).status).toBe(200);
  });

  it("a cap that waiting does not free (live refresh tokens) is 400 naming it, and the code is not used up", () => {
    const mock = stillMock();
    for (let i = 0; i < MAX_REFRESH_TOKENS_PER_CLIENT; i++) {
      mock.tokens.issueRefreshToken({ ...grant, clientId: DEMO_APP.clientId });
    }
    const login = startLogin(mock);
    const code = new URL(finishLogin(mock, login).headers.location!).searchParams.get("code")!;
    const exchange = () =>
      tokenRequest(mock, {
        grant_type: "authorization_code",
        code,
        client_id: DEMO_APP.clientId,
        client_secret: DEMO_APP.clientSecret,
        redirect_uri: DEMO_APP.redirectUri,
      });
    const refused = exchange();
    expect(refused.status).toBe(400);
    expect(refused.headers["retry-after"]).toBeUndefined();
    expectContract(mock, "/OAuth/Token", "post", refused);
    expect(refused.json().error).toBe("invalid_request");
    expect(refused.json().error_description).toMatch(
      /^The client demo-client has 50,000 refresh tokens, the most one client may have \(A-LIMITS\); refresh tokens do not expire: revoke some/,
    );
    // Revoked, the tokens go once they have been kept KEPT_AFTER_END_MS; the code, unused, still works.
    expect(control(mock, "/__mock/tokens/revoke", '{"all": true}').status).toBe(200);
    advance(mock, 60);
    expect(exchange().status).toBe(429);
    advance(mock, KEPT_AFTER_END_MS / 1000 - 60);
    expect(exchange().status, "the code expired meanwhile, as codes do").toBe(400);
  });

  it("codes of one client stop at its cap: Allow answers 429 and works again once there is room", () => {
    const mock = stillMock();
    for (let i = 0; i < MAX_CODES_PER_CLIENT; i++) {
      mock.tokens.issueCode(
        { ...grant, clientId: DEMO_APP.clientId, redirectUri: DEMO_APP.redirectUri },
        mock.clock.now(),
      );
    }
    // Codes end after 300 s and are dropped KEPT_AFTER_END_MS later: a minute before that, log in.
    advance(mock, 300 + KEPT_AFTER_END_MS / 1000 - 60);
    const login = startLogin(mock);
    const loggedIn = logIn(mock, login, "demo", "demo");
    const refused = allow(mock, login, cookieOf(loggedIn)!);
    expect(refused.status).toBe(429);
    expect(refused.headers.location).toBeUndefined();
    expect(refused.text).toContain("The client demo-client has 20,000 authorization codes");
    expect(retryAfter(refused)).toBe(60);
    expectContract(mock, "/OAuth/Permission", "post", refused);
    const theirs = startLogin(mock, SECOND_APP);
    expect(new URL(finishLogin(mock, theirs).headers.location!).searchParams.get("code")).toBeTruthy();
    advance(mock, 60);
    const granted = allow(mock, login, cookieOf(loggedIn)!);
    expect(granted.status).toBe(303);
    expect(new URL(granted.headers.location!).searchParams.get("code")).toBeTruthy();
  });
});

describe("login throttling (A-LIMITS)", () => {
  it("3,000 wrong passwords slow down, then get 429 with Retry-After; the right one works after the wait", () => {
    const mock = stillMock();
    const login = startLogin(mock);
    const answers = Array.from({ length: 3_000 }, () => logIn(mock, login, "demo", "guess"));
    expect(answers.slice(0, 3).map((a) => [a.status, a.meta?.delayMs])).toEqual(Array(3).fill([200, undefined]));
    expect(answers.slice(3, 9).map((a) => [a.status, a.meta?.delayMs])).toEqual(Array(6).fill([200, 1_000]));
    expect(answers[9]!.status).toBe(429);
    expect(retryAfter(answers[9]!)).toBe(LOGIN_LOCK_SECONDS);
    expect(answers[9]!.text).toContain("Too many wrong passwords for this user name; try again in 60 s.");
    expectContract(mock, "/OAuth/Login", "post", answers[9]!);
    expect(answers.slice(10).every((a) => a.status === 429 && retryAfter(a) > 0)).toBe(true);
    // While locked the right password is refused too: the lock says nothing about the password.
    expect(logIn(mock, login, "demo", "demo").status).toBe(429);
    advance(mock, LOGIN_LOCK_SECONDS);
    const loggedIn = logIn(mock, login, "demo", "demo");
    expect(loggedIn.status).toBe(303);
    expect(new URL(allow(mock, login, cookieOf(loggedIn)!).headers.location!).searchParams.get("code")).toBeTruthy();
  });

  it("locks again for twice as long after the lock, and forgets after a quiet while", () => {
    const mock = stillMock();
    const login = startLogin(mock);
    for (let i = 0; i < 10; i++) logIn(mock, login, "demo", "guess");
    advance(mock, LOGIN_LOCK_SECONDS);
    const again = logIn(mock, login, "demo", "guess");
    expect(again.status).toBe(429);
    expect(retryAfter(again)).toBe(2 * LOGIN_LOCK_SECONDS);
    advance(mock, 900);
    const fresh = startLogin(mock);
    expect(logIn(mock, fresh, "demo", "guess").meta?.delayMs).toBeUndefined();
  });

  it("wrong passwords for many user names from one address off this machine lock that address, not others", () => {
    const mock = stillMock();
    // A new browser every few tries: the address is what they share.
    const answers = Array.from({ length: LOGIN_LOCK_AFTER_PER_SOURCE }, (_, i) =>
      logIn(mock, startLogin(mock, DEMO_APP, "198.51.100.9"), `user${i}`, "guess"),
    );
    expect(answers.slice(0, -1).every((a) => a.status === 200)).toBe(true);
    expect(answers.at(-1)!.status).toBe(429);
    expect(answers.at(-1)!.text).toContain("Too many wrong passwords for this address");
    expect(logIn(mock, startLogin(mock, DEMO_APP, "198.51.100.9"), "demo", "demo").status).toBe(429);
    const elsewhere = startLogin(mock, DEMO_APP, "192.0.2.50");
    expect(logIn(mock, elsewhere, "demo", "demo").status).toBe(303);
  });

  it("an address's count drops with time: after its lock one typo is no new lock, and a steady trickle never locks", () => {
    const mock = stillMock();
    const source = "198.51.100.9";
    for (let i = 0; i < LOGIN_LOCK_AFTER_PER_SOURCE; i++) logIn(mock, startLogin(mock, DEMO_APP, source), `u${i}`, "x");
    advance(mock, LOGIN_LOCK_SECONDS);
    // Before: the count never dropped, so this typo locked every login from the address for 120 s.
    const typo = logIn(mock, startLogin(mock, DEMO_APP, source), "someone", "typo");
    expect(typo.status, typo.headers["retry-after"]).toBe(200);
    // A wrong password every LOGIN_DECAY_SECONDS, for an hour: slowed at most, never locked.
    for (let i = 0; i < 3600 / LOGIN_DECAY_SECONDS; i++) {
      advance(mock, LOGIN_DECAY_SECONDS);
      expect(logIn(mock, startLogin(mock, DEMO_APP, source), `t${i}`, "typo").status, `try ${i}`).toBe(200);
    }
    expect(finishLogin(mock, startLogin(mock, DEMO_APP, source)).status).toBe(303);
  });

  it("from loopback, wrong passwords for many user names lock that browser only: other browsers there log in", () => {
    const mock = stillMock();
    const attacker = startLogin(mock, DEMO_APP, "127.0.0.1");
    const answers = Array.from({ length: LOGIN_LOCK_AFTER_PER_BROWSER }, (_, i) =>
      logIn(mock, attacker, `random${i}`, "guess"),
    );
    expect(answers.slice(0, -1).every((a) => a.status === 200)).toBe(true);
    const locked = answers.at(-1)!;
    expect(locked.status).toBe(429);
    expect(locked.text).toContain("Too many wrong passwords for this browser; try again in 60 s.");
    expectContract(mock, "/OAuth/Login", "post", locked);
    expect(logIn(mock, attacker, "demo", "demo").status).toBe(429);
    // Before: every login from the address was locked for a minute, the next typo for two, ...
    for (const address of ["127.0.0.1", "::1", "::ffff:127.0.0.1"]) {
      const developer = startLogin(mock, DEMO_APP, address);
      expect(logIn(mock, developer, "demo", "typo").status, address).toBe(200);
      expect(finishLogin(mock, developer).status, address).toBe(303);
    }
  });

  it("a flood of new user names from loopback fills no shared count that locks the others", () => {
    const mock = stillMock();
    // More user names than the throttle tracks, each once, a new browser before each one's lock.
    let login = startLogin(mock, DEMO_APP, "127.0.0.1");
    for (let i = 0; i < MAX_LOGIN_THROTTLE_ENTRIES + 50; i++) {
      if (i % (LOGIN_LOCK_AFTER_PER_BROWSER - 1) === 0) login = startLogin(mock, DEMO_APP, "127.0.0.1");
      expect(logIn(mock, login, `flood${i}`, "guess").status).toBe(200);
    }
    // Before: past the table's size new user names shared one count, which ten more tries locked.
    for (let i = 0; i < LOGIN_LOCK_AFTER_PER_USER; i++) logIn(mock, startLogin(mock), `late${i}`, "guess");
    const developer = startLogin(mock, DEMO_APP, "127.0.0.1");
    expect(finishLogin(mock, developer).status).toBe(303);
  });
});

describe("requests waiting for login, per browser (A-LIMITS)", () => {
  it("999 requests a same-site page sends with a browser's cookie lock no one out: the browser keeps its newest", () => {
    const mock = stillMock();
    const source = "127.0.0.1";
    const victim = startLogin(mock, DEMO_APP, source);
    // An <img> on any page of the site follows the redirect with the cookie: each screen is shown.
    for (let i = 0; i < 999; i++) {
      const sent = authorize(mock, DEMO_APP, source, { cookie: victim.cookie });
      expect(sent.status, `request ${i}`).toBe(302);
      expect(call(mock, "GET", sent.headers.location!, { headers: { cookie: victim.cookie } }).status).toBe(200);
    }
    expect(mock.counts().pendingAuthorizations).toBe(MAX_PENDING_AUTHORIZATIONS_PER_BROWSER);
    // Before: the address's cap held 1,000 logins under way, and new logins waited 10 minutes.
    const other = startLogin(mock, DEMO_APP, source);
    expect(new URL(finishLogin(mock, other).headers.location!).searchParams.get("code")).toBeTruthy();
    const again = startLogin(mock, DEMO_APP, source);
    expect(again.cookie).not.toBe(victim.cookie);
    expect(new URL(finishLogin(mock, again).headers.location!).searchParams.get("code")).toBeTruthy();
    // The flooded browser itself starts a new login, displacing its own oldest.
    const sameBrowser = authorize(mock, DEMO_APP, source, { cookie: victim.cookie });
    expect(sameBrowser.status).toBe(302);
  });

  it("a browser's flood displaces its own requests not logged in yet, never one waiting for permission", () => {
    const mock = stillMock();
    const login = startLogin(mock);
    const loggedIn = logIn(mock, login, "demo", "demo");
    expect(loggedIn.status).toBe(303);
    const cookie = cookieOf(loggedIn)!;
    const theirs = startLogin(mock, SECOND_APP);
    for (let i = 0; i < 3 * MAX_PENDING_AUTHORIZATIONS_PER_BROWSER; i++) {
      expect(authorize(mock, DEMO_APP, undefined, { cookie }).status).toBe(302);
    }
    expect(mock.counts().pendingAuthorizations).toBe(MAX_PENDING_AUTHORIZATIONS_PER_BROWSER + 1);
    expect(new URL(allow(mock, login, cookie).headers.location!).searchParams.get("code")).toBeTruthy();
    expect(new URL(finishLogin(mock, theirs).headers.location!).searchParams.get("code")).toBeTruthy();
  });
});

describe("the browser cookie bawa_authz", () => {
  it("is replaced when the client chose it, and kept when the server minted it", () => {
    const mock = stillMock();
    const chosen = authorize(mock, DEMO_APP, undefined, { cookie: "bawa_authz=fixated-by-someone" });
    expect(chosen.status).toBe(302);
    const minted = cookieOf(chosen)!;
    expect(minted).toMatch(/^bawa_authz=[A-Za-z0-9_-]{32}\.[A-Za-z0-9_-]{43}$/);
    // The chosen value reaches nothing; the minted one does, and a second request keeps it.
    const location = chosen.headers.location!;
    expect(call(mock, "GET", location, { headers: { cookie: "bawa_authz=fixated-by-someone" } }).status).toBe(400);
    expect(call(mock, "GET", location, { headers: { cookie: minted } }).status).toBe(200);
    expect(cookieOf(authorize(mock, DEMO_APP, undefined, { cookie: minted }))).toBe(minted);
    const forgedMac = `${minted.slice(0, -1)}${minted.endsWith("A") ? "B" : "A"}`;
    expect(cookieOf(authorize(mock, DEMO_APP, undefined, { cookie: forgedMac }))).not.toBe(forgedMac);
  });

  it("is minted anew at login, so whoever planted the old one can not finish the request", () => {
    const mock = stillMock();
    // The attacker opens a request and plants its cookie in the victim's browser; the victim logs in.
    const planted = startLogin(mock);
    const loggedIn = logIn(mock, planted, "demo", "demo");
    expect(loggedIn.status).toBe(303);
    const victims = cookieOf(loggedIn)!;
    expect(victims).not.toBe(planted.cookie);
    const permission = loggedIn.headers.location!;
    expect(call(mock, "GET", permission, { headers: { cookie: planted.cookie } }).status).toBe(400);
    const stolen = allow(mock, planted, planted.cookie);
    expect(stolen.status).toBe(400);
    expect(stolen.headers.location).toBeUndefined();
    expect(call(mock, "GET", permission, { headers: { cookie: victims } }).status).toBe(200);
    expect(allow(mock, planted, victims).status).toBe(303);
  });
});
