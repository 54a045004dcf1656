// Helpers for the mock's own tests: call the core in process, walk the OAuth
// flows through the real screens, and hold every answer to the contract.
import { type ChildProcess, spawn } from "node:child_process";
import { resolve } from "node:path";
import fc from "fast-check";
import { expect } from "vitest";
import { type Reply as Answer, checkResponse } from "../contract/responses.ts";
import { PROJECT_ROOT } from "../paths.ts";
import { DEFAULT_CONFIG } from "./core/app.ts";
import type { MockRequest, MockResponse } from "./core/http.ts";
import { type BawaMock, buildMock } from "./index.ts";
import { seedAccounts } from "./seed.ts";

/** The seed's accounts (mock-data/oauth.yaml) in their roles. */
export const SEED = seedAccounts();
export const DEMO_APP = SEED.app;
export const SECOND_APP = SEED.second;
export const SCOPE = DEFAULT_CONFIG.scope;

export interface Reply extends MockResponse, Answer {}

export function call(
  mock: BawaMock,
  method: string,
  url: string,
  init: { headers?: Record<string, string>; body?: string | Buffer | undefined; remoteAddress?: string } = {},
): Reply {
  const headers = Object.fromEntries(Object.entries(init.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
  const req: MockRequest = {
    method,
    url,
    headers,
    body: typeof init.body === "string" ? Buffer.from(init.body) : init.body,
    ...(init.remoteAddress ? { remoteAddress: init.remoteAddress } : {}),
  };
  const res = mock.handle(req);
  const text = res.body ?? "";
  return {
    ...res,
    text,
    json: () => {
      try {
        return JSON.parse(text);
      } catch {
        throw new Error(`${method} ${url} answered ${res.status} with a body that is not JSON: ${text.slice(0, 200)}`);
      }
    },
  };
}

/** A control call (JSON, as the mock requires of them), in process. */
export function control(mock: BawaMock, path: string, body = ""): Reply {
  return call(mock, "POST", path, { headers: { "content-type": "application/json" }, body });
}

/**
 * Posts a portal form as the portal's own page would: the page at `pagePath`
 * first, for the browser cookie and the form's anti-forgery token.
 */
export function portalPost(mock: BawaMock, pagePath: string, action: string, fields: Record<string, string>): Reply {
  const page = call(mock, "GET", pagePath);
  const cookie = page.headers["set-cookie"]?.split(";")[0] ?? "";
  const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? "";
  return call(mock, "POST", action, {
    headers: { "content-type": "application/x-www-form-urlencoded", cookie },
    body: new URLSearchParams({ ...fields, csrf }).toString(),
  });
}

/** The same over the network, against a mock at `base`; resolves to the answer, not followed. */
export async function portalPostHttp(
  base: string,
  pagePath: string,
  action: string,
  fields: Record<string, string>,
): Promise<Response> {
  const page = await fetch(`${base}${pagePath}`);
  const cookie = page.headers.get("set-cookie")?.split(";")[0] ?? "";
  const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? "";
  return fetch(`${base}${action}`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie },
    body: new URLSearchParams({ ...fields, csrf }).toString(),
  });
}

/** Fails the test when an answer of a contract operation does not fit the contract. */
export function expectContract(mock: BawaMock, path: string, method: string, res: Reply): void {
  const problems = checkResponse(mock.ctx.contract, path, method, {
    status: res.status,
    contentType: res.headers["content-type"],
    body: res.text,
  });
  expect(problems, `${method} ${path} -> ${res.status} breaks the contract`).toEqual([]);
}

const form = (params: Record<string, string>) => new URLSearchParams(params).toString();
const FORM = { "content-type": "application/x-www-form-urlencoded" };

/** Walks authorize → login → permission in process, as a browser would; returns the final redirect. */
export function authorizeThroughScreens(
  mock: BawaMock,
  opts: {
    responseType: "code" | "token";
    username?: string;
    password?: string;
    state?: string;
    decision?: "allow" | "deny";
    app?: typeof DEMO_APP;
    version?: string;
  },
): URL {
  const app = opts.app ?? DEMO_APP;
  const v = opts.version ?? "v1";
  const q = new URLSearchParams({
    client_id: app.clientId,
    redirect_uri: app.redirectUri,
    scope: SCOPE,
    response_type: opts.responseType,
  });
  if (opts.state !== undefined) q.set("state", opts.state);
  const start = call(mock, "GET", `/${v}/OAuth/Authorize?${q}`);
  expect(start.status, start.text).toBe(302);
  let cookie = start.headers["set-cookie"]!.split(";")[0]!;
  const loginUrl = start.headers.location!;
  const login = call(mock, "GET", loginUrl, { headers: { cookie } });
  expect(login.status).toBe(200);
  const request = /name="request" value="([^"]+)"/.exec(login.text)![1]!;
  const csrf = /name="csrf" value="([^"]+)"/.exec(login.text)![1]!;
  const posted = call(mock, "POST", loginUrl.split("?")[0]!, {
    headers: { ...FORM, cookie },
    body: form({ request, csrf, username: opts.username ?? "demo", password: opts.password ?? "demo" }),
  });
  expect(posted.status, posted.text).toBe(303);
  // Logging in mints a new browser cookie (no session fixation): a browser takes it up.
  cookie = posted.headers["set-cookie"]?.split(";")[0] ?? cookie;
  const permission = call(mock, "GET", posted.headers.location!, { headers: { cookie } });
  expect(permission.status).toBe(200);
  const decided = call(mock, "POST", posted.headers.location!.split("?")[0]!, {
    headers: { ...FORM, cookie },
    body: form({ request, csrf, decision: opts.decision ?? "allow" }),
  });
  expect(decided.status, decided.text).toBe(303);
  return new URL(decided.headers.location!);
}

export function tokenRequest(mock: BawaMock, params: Record<string, string>, version = "v1"): Reply {
  return call(mock, "POST", `/${version}/OAuth/Token`, { headers: FORM, body: form(params) });
}

/** A token response from the code flow through the real screens, and the code it came from. */
export function codeFlowTokens(mock: BawaMock, username = "demo", app = DEMO_APP) {
  const redirect = authorizeThroughScreens(mock, { responseType: "code", username, password: username, app });
  const code = redirect.searchParams.get("code")!;
  const res = tokenRequest(mock, {
    grant_type: "authorization_code",
    code,
    client_id: app.clientId,
    client_secret: app.clientSecret,
    redirect_uri: app.redirectUri,
  });
  expect(res.status, res.text).toBe(200);
  const tokens = res.json<{
    access_token: string;
    refresh_token: string;
    expires_in: number;
    token_type: string;
    scope: string;
  }>();
  return { ...tokens, code };
}

/** A fresh mock (the process's compiled contract: contractInUse), with a bearer header of the demo user obtained through the real flow. */
export function freshMock(): { mock: BawaMock; auth: { authorization: string } } {
  const mock = buildMock();
  return { mock, auth: { authorization: `Bearer ${codeFlowTokens(mock).access_token}` } };
}

/**
 * Starts `bawa mock` as its own process (port 0) and resolves with its address once it listens;
 * `--quiet` unless `log` (its request log is then on standard output, for the caller to read).
 */
export function spawnMock(
  args: string[] = [],
  { log = false }: { log?: boolean } = {},
): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    [resolve(PROJECT_ROOT, "bin/bawa.js"), "mock", "--port", "0", ...(log ? [] : ["--quiet"]), ...args],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  return new Promise((done, fail) => {
    let out = "";
    // Standard error is read all along: what a failed start says is there, and a pipe nobody
    // reads would stop a mock that writes much to it. Its first 4 KB are kept for the message.
    let err = "";
    child.stderr!.on("data", (d) => {
      if (err.length < 4096) err += d;
    });
    child.stdout!.on("data", (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) done({ child, url: m[1]! });
    });
    child.on("exit", (code, signal) =>
      fail(
        new Error(
          `mock exited with ${code ?? signal} before listening:\n${err.trim() || "(nothing on standard error)"}\n${out}`,
        ),
      ),
    );
  });
}

/**
 * An object of a seed file for the readers' properties: its first key comes back in nested objects,
 * so cuts land where JSON.parse refuses them, and its strings hold a boundary's text (escaped
 * there, so it is never one).
 */
const tricky = fc.oneof(
  fc.constant('},{"Name"'),
  fc.constant("}, {"),
  fc.constant("},"),
  fc.string({ maxLength: 12 }),
  fc.constantFrom("é", "€", "😀", "\\", '"'),
);
export const seedFileItem = fc.record({
  Name: fc.array(tricky, { maxLength: 3 }).map((parts) => parts.join("")),
  Addresses: fc.array(fc.record({ Name: tricky, City: fc.string({ maxLength: 5 }) }), { maxLength: 3 }),
  CreditLimit: fc.oneof(fc.integer(), fc.constant(null)),
});
