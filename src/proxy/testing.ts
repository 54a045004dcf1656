// Helpers for the proxy's tests: a client session over HTTP, as a frontend and
// a background job would run it, that touches every rule an exchange can show.
// It never asserts: a target with a fault answers oddly, and the session goes on
// with what it got, so the proxy's judgement is what the tests look at.
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { contractInUse } from "../contract/index.ts";
import type { Application } from "../mock/core/oauth/registry.ts";
import { type BawaMock, buildMock } from "../mock/index.ts";
import { type Listening, listen } from "../mock/node/listen.ts";
import { SCOPE, SEED } from "../mock/testing.ts";
import { completeBody } from "../rules/bodies.ts";
import { type RunningProxy, startProxy } from "./node.ts";

export interface Account {
  app: Pick<Application, "clientId" | "clientSecret" | "redirectUri">;
  second: Pick<Application, "clientId" | "clientSecret" | "redirectUri">;
  username: string;
  password: string;
  database: string;
  scope: string;
}

/** Every secret value the session saw: tokens, codes, client secrets, passwords, cookies. */
export type Secrets = Set<string>;

const FORM = { "content-type": "application/x-www-form-urlencoded" };

/** A value of an object whatever the case of its name (a camelCase target). */
const field = (o: unknown, name: string): unknown =>
  typeof o === "object" && o !== null
    ? Object.entries(o).find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1]
    : undefined;

export class Session {
  readonly secrets: Secrets = new Set();
  /** Objects read through the proxy: `<database> <id>` → the object as its last GET answered it. */
  readonly read = new Map<string, Record<string, unknown>>();

  constructor(
    readonly base: string,
    readonly account: Account,
  ) {
    this.secrets.add(account.app.clientSecret).add(account.second.clientSecret).add(account.password);
  }

  get api() {
    return `${this.base}/v1/api/${this.account.database}`;
  }

  async call(method: string, path: string, init: { headers?: Record<string, string>; body?: string } = {}) {
    const res = await fetch(path.startsWith("http") ? path : `${this.base}${path}`, {
      method,
      redirect: "manual",
      headers: init.headers ?? {},
      ...(init.body === undefined ? {} : { body: init.body }),
    });
    const text = await res.text();
    for (const c of res.headers.getSetCookie()) this.secrets.add(c.split(";")[0]!.split("=").slice(1).join("="));
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, text, json };
  }

  /** The authorization request through the login and permission screens; the final Location. */
  async authorize(params: Record<string, string>, decision: "allow" | "deny" = "allow"): Promise<URL | undefined> {
    const url = `/v1/OAuth/Authorize?${new URLSearchParams(params)}`;
    let res = await this.call("GET", url);
    // A jar by name, as a browser keeps one: the login sets a new value of
    // the cookie the authorization request set (no session fixation).
    const jar = new Map<string, string>();
    const keep = (r: { headers: Headers }) => {
      for (const c of r.headers.getSetCookie()) {
        const pair = c.split(";")[0]!;
        jar.set(pair.split("=")[0]!, pair);
      }
      return [...jar.values()].join("; ");
    };
    let cookie = keep(res);
    for (let step = 0; step < 6; step++) {
      const location = res.headers.get("location");
      if (location && !location.startsWith("/")) return new URL(location);
      if (location) res = await this.call("GET", location, { headers: { cookie } });
      if (res.status !== 200) return undefined;
      const request = /name="request" value="([^"]+)"/.exec(res.text)?.[1];
      const csrf = /name="csrf" value="([^"]+)"/.exec(res.text)?.[1];
      const action = /<form method="post" action="([^"]+)"/.exec(res.text)?.[1];
      if (!request || !csrf || !action) return undefined;
      this.secrets.add(request).add(csrf);
      const fields = res.text.includes('name="password"')
        ? { request, csrf, username: this.account.username, password: this.account.password }
        : { request, csrf, decision };
      res = await this.call("POST", action.replaceAll("&amp;", "&"), {
        headers: { ...FORM, cookie },
        body: new URLSearchParams(fields).toString(),
      });
      cookie = keep(res);
    }
    return undefined;
  }

  /** A code of the code flow (from the query, or wherever a broken target put it). */
  async code(state = "state-1"): Promise<string | undefined> {
    const { app } = this.account;
    const to = await this.authorize({
      client_id: app.clientId,
      redirect_uri: app.redirectUri,
      scope: this.account.scope,
      response_type: "code",
      state,
    });
    const code = to?.searchParams.get("code") ?? new URLSearchParams(to?.hash.slice(1)).get("code") ?? undefined;
    if (code) this.secrets.add(code);
    return code;
  }

  async token(params: Record<string, string | undefined>, headers: Record<string, string> = {}) {
    const body = new URLSearchParams(Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined));
    const res = await this.call("POST", "/v1/OAuth/Token", { headers: { ...FORM, ...headers }, body: body.toString() });
    // A broken target may answer a form; read the tokens wherever they are.
    const answer = (res.json ?? Object.fromEntries(new URLSearchParams(res.text))) as Record<string, unknown>;
    for (const k of ["access_token", "refresh_token"])
      if (typeof answer[k] === "string") this.secrets.add(answer[k] as string);
    return {
      status: res.status,
      access: typeof answer.access_token === "string" ? answer.access_token : undefined,
      refresh: typeof answer.refresh_token === "string" ? answer.refresh_token : undefined,
    };
  }

  codeGrant(code: string | undefined, overrides: Record<string, string | undefined> = {}) {
    const { app } = this.account;
    return this.token({
      grant_type: "authorization_code",
      code,
      client_id: app.clientId,
      client_secret: app.clientSecret,
      redirect_uri: app.redirectUri,
      ...overrides,
    });
  }

  refreshGrant(refresh: string | undefined, overrides: Record<string, string | undefined> = {}, headers = {}) {
    const { app } = this.account;
    return this.token(
      {
        grant_type: "refresh_token",
        refresh_token: refresh,
        client_id: app.clientId,
        client_secret: app.clientSecret,
        redirect_uri: app.redirectUri,
        ...overrides,
      },
      headers,
    );
  }

  /** A data call with a token; GET answers of one object are kept in `read`. */
  async data(
    method: string,
    path: string,
    token: string | undefined,
    init: { headers?: Record<string, string>; body?: unknown } = {},
  ) {
    const headers: Record<string, string> = { accept: "application/json", ...init.headers };
    if (token) headers.authorization ??= `Bearer ${token}`;
    const body =
      init.body === undefined ? undefined : typeof init.body === "string" ? init.body : JSON.stringify(init.body);
    if (body !== undefined) headers["content-type"] ??= "application/json";
    const url = path.startsWith("/") ? `${this.base}${path}` : `${this.api}/${path}`;
    const res = await this.call(method, url, { headers, ...(body === undefined ? {} : { body }) });
    const id = field(res.json, "CustomerId");
    if (method === "GET" && res.status === 200 && typeof id === "string" && headers.accept === "application/json") {
      this.read.set(`${this.account.database} ${id}`, res.json as Record<string, unknown>);
    }
    return { ...res, id: typeof id === "string" ? id : undefined };
  }
}

/** A session through `base` as the seed's demo user, with its two applications. */
export const seedSession = (base: string): Session =>
  new Session(base, {
    app: SEED.app,
    second: SEED.second,
    username: SEED.user.username,
    password: SEED.user.password,
    database: SEED.database,
    scope: SCOPE,
  });

/**
 * A customer body with every property of the table, as a create sends it (rules/bodies.ts),
 * with values a frontend would fill in (a decimal with a fraction, dates); `leave` names
 * properties to leave out.
 */
export function fullCustomer(name: string, leave: readonly string[] = []): Record<string, unknown> {
  // Compiled once per process: compiling it at each call was half the CPU of the proxy's fault
  // tests, which make a session, and so a customer, per fault.
  const contract = contractInUse();
  const body: Record<string, unknown> = {
    ...completeBody(contract, contract.resources.collection("Customer")!, { name, nameProperty: "Name" }),
    City: "Utrecht",
    Street1: "Oudegracht 1",
    ZipCode: "3511 AA",
    Telephone: "030 1234567",
    Email: "proxy@example.invalid",
    CreditLimit: 1250.5,
    DiscountPercentage: 1.5,
    CocDate: "03/14/2011",
    VatVerificationDate: "12/01/2023",
  };
  for (const k of leave) delete body[k];
  return body;
}

/**
 * A session that gives every rule an exchange can show a chance to be broken:
 * the code flow, tokens refreshed and misused, the data calls of a frontend,
 * calls without a token or a database, the token flow, authorization errors,
 * and last the clock moved past a token's and a code's lifetime (a bawa mock
 * target's /__mock/clock, through the proxy).
 */
export async function everyRule(s: Session): Promise<void> {
  const { app, second, scope } = s.account;
  // The code flow and its tokens.
  const first = await s.codeGrant(await s.code("state-1"));
  const at = first.access;
  // A frontend's data calls.
  await s.data("GET", "/v1/api/AdministrationInfoList", at);
  await s.data("GET", "CustomerInfoList", at);
  await s.data("GET", "Customer/1001", at);
  await s.data("GET", "Customer/1001", at, { headers: { accept: "application/xml" } });
  await s.data("GET", `/V1/api/${s.account.database}/Customer/1001`, at);
  await s.data("GET", "Customer/1002", at, { headers: { authorization: `bearer ${at}` } });
  const created = await s.data("POST", "Customer", at, { body: fullCustomer("Proxy B.V.") });
  if (created.id) {
    await s.data("GET", `Customer/${created.id}`, at);
    await s.data("PUT", `Customer/${created.id}`, at, {
      body: { ...fullCustomer("Proxy B.V."), CustomerId: created.id, City: "Zeist" },
    });
    await s.data("GET", `Customer/${created.id}`, at);
    await s.data("DELETE", `Customer/${created.id}`, at);
    await s.data("GET", `Customer/${created.id}`, at);
  }
  const partial = await s.data("POST", "Customer", at, { body: fullCustomer("Deels B.V.", ["Fax", "Homepage"]) });
  if (partial.id) {
    await s.data("GET", `Customer/${partial.id}`, at);
    await s.data("DELETE", `Customer/${partial.id}`, at);
  }
  await s.data("GET", "Customer/NOPE", at);
  await s.data("POST", "Customer", at, { body: { Name: "Fout", CreditLimit: "veel" } });
  await s.data("POST", "Customer", at);
  await s.data("POST", "CustomerInfoList", at, { body: fullCustomer("Lijst") });
  await s.data("GET", "/v1/api/CustomerInfoList", at);
  await s.data("GET", "CustomerInfoList", undefined);
  await s.data("GET", "Customer/1001", undefined);
  await s.data("GET", `/api/${s.account.database}/CustomerInfoList`, at);

  // Refreshes, right and wrong.
  const refreshed = await s.refreshGrant(first.refresh);
  await s.data("GET", "CustomerInfoList", refreshed.access);
  await s.refreshGrant(first.refresh);
  await s.refreshGrant(first.refresh, { redirect_uri: undefined });
  await s.refreshGrant(first.refresh, {
    client_id: second.clientId,
    client_secret: second.clientSecret,
    redirect_uri: second.redirectUri,
  });
  const basic = Buffer.from(`${encodeURIComponent(app.clientId)}:${encodeURIComponent(app.clientSecret)}`).toString(
    "base64",
  );
  await s.refreshGrant(
    first.refresh,
    { client_id: undefined, client_secret: undefined },
    { authorization: `Basic ${basic}` },
  );
  await s.refreshGrant(first.refresh, { client_secret: "not-the-secret" });
  await s.codeGrant("no-such-code-0123456789");

  // Codes used by the wrong client, without redirect_uri, and twice.
  const bound = await s.code("state-2");
  await s.codeGrant(bound, {
    client_id: second.clientId,
    client_secret: second.clientSecret,
    redirect_uri: second.redirectUri,
  });
  await s.codeGrant(bound, { redirect_uri: "http://localhost:5173/other" });
  await s.codeGrant(await s.code("state-3"), { redirect_uri: undefined });
  const twice = await s.code("state-4");
  const once = await s.codeGrant(twice);
  await s.data("GET", "CustomerInfoList", once.access);
  await s.codeGrant(twice);
  await s.data("GET", "CustomerInfoList", once.access);

  // The token flow.
  const implicit = await s.authorize({
    client_id: app.clientId,
    redirect_uri: app.redirectUri,
    scope,
    response_type: "token",
    state: "state-5",
  });
  const fragment = new URLSearchParams(implicit?.hash.slice(1));
  const implicitToken = fragment.get("access_token") ?? implicit?.searchParams.get("access_token") ?? undefined;
  if (implicitToken) s.secrets.add(implicitToken);
  await s.data("GET", "CustomerInfoList", implicitToken);

  // Authorization errors.
  const authorize = (params: Record<string, string>) =>
    s.call("GET", `/v1/OAuth/Authorize?${new URLSearchParams(params)}`);
  await authorize({ client_id: app.clientId, redirect_uri: app.redirectUri, response_type: "code", state: "state-6" });
  await authorize({
    client_id: app.clientId,
    redirect_uri: app.redirectUri,
    scope,
    response_type: "bogus",
    state: "state-7",
  });
  await authorize({ client_id: app.clientId, redirect_uri: "http://evil.example/cb", scope, response_type: "code" });

  // Time passes: 7300 s on the target's clock, past the access token's and the code's lifetime.
  const late = await s.code("state-8");
  await s.call("POST", "/__mock/clock", {
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ advanceSeconds: 7300 }),
  });
  await s.data("GET", "CustomerInfoList", at);
  await s.codeGrant(late);
  // After expiry, over the other operations: the expired token on writes and on an unknown id, a
  // token that is no token, and the refresh grant's way back to a valid token (Tokens, rows 3-4).
  await s.data("POST", "Customer", at, { body: fullCustomer("Verlopen B.V.") });
  await s.data("PUT", "Customer/1001", at, { body: { ...fullCustomer("Verlopen B.V."), CustomerId: 1001 } });
  await s.data("DELETE", "Customer/NOPE", at);
  await s.data("PUT", "Customer/NOPE", "not-a-token!", { body: fullCustomer("Geen B.V.") });
  await s.data("DELETE", "Customer/NOPE", "not-a-token!");
  const renewed = await s.refreshGrant(first.refresh);
  await s.data("GET", "CustomerInfoList", renewed.access);
}

/** Starts a test's own target on loopback, on a free port; resolves with its base URL. */
export async function serveOnLoopback(server: Server): Promise<string> {
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** The mock on loopback and bawa proxy in front of it, as the tests that drive both start them. */
export async function mockBehindProxy(): Promise<{
  mock: BawaMock;
  server: Listening;
  proxy: RunningProxy;
  close(): Promise<void>;
}> {
  const mock = buildMock();
  const server = await listen(mock, { host: "127.0.0.1", port: 0 });
  const proxy = await startProxy({ target: server.url, host: "127.0.0.1", port: 0, contract: mock.ctx.contract });
  return {
    mock,
    server,
    proxy,
    close: async () => {
      await proxy.close();
      await server.close();
    },
  };
}
