// Each hostile input that once crashed, poisoned or reconfigured the mock,
// over a real port: now a clean 4xx (or the documented behaviour), and the
// mock keeps serving.
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BawaMock, buildMock } from "../index.ts";
import { codeFlowTokens, DEMO_APP, portalPostHttp, SCOPE, tokenRequest } from "../testing.ts";
import { type Listening, listen } from "./listen.ts";

let mock: BawaMock;
let server: Listening;
let auth: Record<string, string>;

beforeAll(async () => {
  mock = buildMock();
  auth = { authorization: `Bearer ${codeFlowTokens(mock).access_token}` };
  server = await listen(mock, { host: "127.0.0.1", port: 0, headersTimeoutMs: 1_000, requestTimeoutMs: 1_500 });
});
afterAll(() => server.close());

const url = (path: string) => `${server.url}${path}`;
const alive = async () => expect((await fetch(url("/v1/api/DEMO/Customer/1001"), { headers: auth })).status).toBe(200);
const json = { "content-type": "application/json" };
const post = (body: unknown, headers: Record<string, string> = json) =>
  fetch(url("/v1/api/DEMO/Customer"), {
    method: "POST",
    headers: { ...auth, ...headers },
    body: Buffer.isBuffer(body) ? new Uint8Array(body) : typeof body === "string" ? body : JSON.stringify(body),
  });
const messageOf = async (res: Response) => (await res.json()) as { Message: string; ModelState?: object };

/** Raw bytes in; resolves with what came back before the server closed the connection. */
function raw(request: string | Buffer, keepOpenMs = 0): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(new URL(server.url).port), "127.0.0.1", () => {
      if (keepOpenMs > 0) socket.write(request);
      else socket.end(request);
    });
    let data = "";
    socket.on("data", (d) => (data += d));
    socket.on("close", () => resolve(data));
    socket.on("error", reject);
  });
}

describe("values that go into headers", () => {
  it.each([
    ["a euro sign", "%E2%82%AC"],
    ["CR LF and a header", "A%0D%0AX:%201"],
    ["a quote and a backslash", "%22%5C"],
  ])("a database id with %s gets 401 with a well-formed challenge", async (_name, db) => {
    const res = await fetch(url(`/v1/api/${db}/CustomerInfoList`), { headers: auth });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toMatch(/^Bearer realm="bawa", error="insufficient_scope"/);
    expect(res.headers.get("x")).toBeNull();
    await alive();
  });

  it.each([
    ["a euro sign", "http://localhost:9000/pay€", "http://localhost:9000/pay%E2%82%AC"],
    ["an IDN host", "http://例え.jp/cb", "http://xn--r8jz45g.jp/cb"],
    ["a u with umlaut", "http://localhost:9000/über", "http://localhost:9000/%C3%BCber"],
  ])(
    "a redirect URI with %s is stored percent-encoded and the authorization redirects there",
    async (_n, uri, stored) => {
      const registered = await portalPostHttp(server.url, "/portal", "/portal/applications", {
        name: "IRI",
        redirect_uri: uri,
      });
      expect(registered.status).toBe(303);
      const clientId = registered.headers.get("location")!.split("/").pop()!;
      expect(mock.registry.application(clientId)?.redirectUri).toBe(stored);
      mock.registry.activate(clientId);
      const q = new URLSearchParams({ client_id: clientId, redirect_uri: stored, scope: SCOPE, response_type: "nope" });
      const res = await fetch(url(`/v1/OAuth/Authorize?${q}`), { redirect: "manual" });
      expect(res.status).toBe(302);
      expect(res.headers.get("location")).toMatch(new RegExp(`^${stored.replace(/[.?]/g, "\\$&")}\\?error=`));
      await alive();
    },
  );

  it.each([
    ["CR LF", "http://localhost:9000/cb\r\nSet-Cookie: x=1"],
    ["a space", "http://localhost:9000/a b"],
    ["a tab", "http://localhost:9000/a\tb"],
    ["a quote", 'http://localhost:9000/"x"'],
  ])("a redirect URI with %s is refused at registration", async (_n, uri) => {
    const res = await portalPostHttp(server.url, "/portal", "/portal/applications", { name: "Bad", redirect_uri: uri });
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/which a URI can not hold \(RFC 3986\)/);
  });
});

describe("the portal and the control calls from another site", () => {
  const form = { "content-type": "application/x-www-form-urlencoded" };

  it("a portal form posted without the portal's own token, or from another Origin, is refused", async () => {
    const before = mock.registry.application(DEMO_APP.clientId)!.redirectUri;
    const crossSite = await fetch(url(`/portal/applications/${DEMO_APP.clientId}/redirect-uri`), {
      method: "POST",
      redirect: "manual",
      headers: { ...form, origin: "http://attacker.example" },
      body: "redirect_uri=http%3A%2F%2Fattacker.example%2Fcb",
    });
    expect(crossSite.status).toBe(403);
    const noToken = await fetch(url("/portal/applications"), {
      method: "POST",
      redirect: "manual",
      headers: form,
      body: "name=X&redirect_uri=http%3A%2F%2Fattacker.example%2Fcb",
    });
    expect(noToken.status).toBe(403);
    expect(mock.registry.application(DEMO_APP.clientId)!.redirectUri).toBe(before);
  });

  it.each([
    ["/__mock/reset", ""],
    ["/__mock/clock", '{"advanceSeconds": 7200}'],
    ["/__mock/applications/pending-client/activate", ""],
    ["/__mock/refresh-tokens", JSON.stringify({ clientId: DEMO_APP.clientId, clientSecret: DEMO_APP.clientSecret })],
  ])("POST %s as a simple cross-site request (text/plain) is 415, from a foreign Origin 403", async (path, body) => {
    const simple = await fetch(url(path), { method: "POST", headers: { "content-type": "text/plain" }, body });
    expect(simple.status).toBe(415);
    const foreign = await fetch(url(path), {
      method: "POST",
      headers: { ...json, origin: "http://attacker.example" },
      body,
    });
    expect(foreign.status).toBe(403);
    expect(mock.registry.application("pending-client")!.status).toBe("pending");
  });

  it("a foreign Host (DNS rebinding) can neither read nor change the portal and the control calls", async () => {
    const host = `attacker.example:${new URL(server.url).port}`;
    for (const path of [
      `/portal/applications/${DEMO_APP.clientId}`,
      "/portal",
      "/__mock/clock",
      "/__mock/applications",
    ]) {
      const text = await raw(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
      expect(text, path).toMatch(/^HTTP\/1.1 403 /);
      expect(text).not.toContain(DEMO_APP.clientSecret);
    }
    const posts: Array<[string, string, string]> = [
      ["/portal/applications", "application/x-www-form-urlencoded", "name=X&redirect_uri=http%3A%2F%2Fa.example%2Fcb"],
      [
        `/portal/applications/${DEMO_APP.clientId}/redirect-uri`,
        "application/x-www-form-urlencoded",
        "redirect_uri=http%3A%2F%2Fa.example%2Fcb",
      ],
      ["/__mock/reset", "application/json", "{}"],
      ["/__mock/clock", "application/json", '{"advanceSeconds":1}'],
      ["/__mock/applications/pending-client/activate", "application/json", "{}"],
      [
        "/__mock/refresh-tokens",
        "application/json",
        JSON.stringify({ clientId: DEMO_APP.clientId, clientSecret: DEMO_APP.clientSecret }),
      ],
    ];
    for (const [path, type, body] of posts) {
      const text = await raw(
        `POST ${path} HTTP/1.1\r\nHost: ${host}\r\nContent-Type: ${type}\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      );
      expect(text, path).toMatch(/^HTTP\/1.1 403 /);
    }
    expect(mock.registry.application("pending-client")!.status).toBe("pending");
    expect(mock.registry.application(DEMO_APP.clientId)!.redirectUri).toBe(DEMO_APP.redirectUri);
  });
});

describe("nothing stored that can not be read back", () => {
  it("an Addresses item nested 5,000 levels deep is 400 and nothing is stored", async () => {
    const deep = `${'{"x":'.repeat(5000)}{}${"}".repeat(5000)}`;
    const before = (await (await fetch(url("/v1/api/DEMO/CustomerInfoList"), { headers: auth })).json()) as unknown[];
    const res = await post(`{"Name":"Diep","Addresses":[${deep}]}`);
    expect(res.status).toBe(400);
    expect((await messageOf(res)).Message).toMatch(/nested more than 10 levels/);
    const after = (await (await fetch(url("/v1/api/DEMO/CustomerInfoList"), { headers: auth })).json()) as unknown[];
    expect(after).toHaveLength(before.length);
  });

  it.each([
    ["NUL and SOH in JSON", { Name: "ctl\u0000\u0001" }, json, "customer.Name"],
    [
      "a control character in an address",
      { Name: "Ok", Addresses: [{ City: "a\u0007b" }] },
      json,
      "customer.Addresses.0.City",
    ],
    ["a lone surrogate", '{"Name":"half \\ud800 pair"}', json, "customer.Name"],
    // Written as itself, not escaped: the text is not ASCII, so each string is read.
    ["U+FFFF written raw", { Name: "raw \uffff here" }, json, "customer.Name"],
    [
      "a control character in XML text",
      "<Customer><Name>ctl\u0001</Name></Customer>",
      { "content-type": "application/xml" },
      "customer.Name",
    ],
  ])("%s is 400 naming the field", async (_n, body, headers, field) => {
    const res = await post(body, headers);
    expect(res.status).toBe(400);
    const message = await messageOf(res);
    expect(Object.keys(message.ModelState ?? {})).toEqual([field]);
    expect(JSON.stringify(message)).toMatch(/which XML can not carry/);
  });

  it("XML character references are decoded; an undefined entity or a reference to a control character is 400", async () => {
    const xml = { "content-type": "application/xml" };
    const created = await post("<Customer><Name>Caf&#233; &#x263A; &amp; Zn.</Name></Customer>", xml);
    expect(created.status).toBe(200);
    expect(((await created.json()) as { Name: string }).Name).toBe("Café ☺ & Zn.");
    for (const body of ["<Customer><Name>&foo;</Name></Customer>", "<Customer><Name>&#1;</Name></Customer>"]) {
      const res = await post(body, xml);
      expect(res.status, body).toBe(400);
      expect((await messageOf(res)).Message).toMatch(
        /entity &foo; which is not defined|not a character XML 1.0 allows/,
      );
    }
  });

  it.each([
    [
      "Latin-1 by its charset",
      Buffer.from('{"Name":"Caf\u00e9"}', "latin1"),
      "application/json; charset=iso-8859-1",
      415,
      /charset iso-8859-1/,
    ],
    [
      "Latin-1 bytes claimed as UTF-8",
      Buffer.from('{"Name":"Caf\u00e9"}', "latin1"),
      "application/json",
      400,
      /not valid UTF-8 \(byte 12\)/,
    ],
    [
      "UTF-16 with a byte order mark",
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('{"Name":"X"}', "utf16le")]),
      "application/json",
      415,
      /UTF-16/,
    ],
    [
      "an XML declaration of another encoding",
      '<?xml version="1.0" encoding="ISO-8859-1"?><Customer><Name>X</Name></Customer>',
      "application/xml",
      415,
      /encoding ISO-8859-1/,
    ],
    [
      "an XML document in its declared Latin-1, bytes UTF-8 can not read",
      Buffer.from('<?xml version="1.0" encoding="ISO-8859-1"?><Customer><Name>Caf\u00e9</Name></Customer>', "latin1"),
      "application/xml",
      415,
      /^The XML declaration names the encoding ISO-8859-1: send UTF-8/,
    ],
  ])("%s is refused naming the charset", async (_n, body, type, status, message) => {
    const res = await post(body, { "content-type": type });
    expect(res.status).toBe(status);
    expect((await messageOf(res)).Message).toMatch(message);
  });

  it.each([
    ["JSON", '\ufeff{"Name":"Met BOM"}', "application/json"],
    ["XML", "\ufeff<Customer><Name>Met BOM</Name></Customer>", "application/xml"],
  ])("%s with a UTF-8 byte order mark is accepted", async (_n, body, type) => {
    const res = await post(body, { "content-type": type });
    expect(res.status).toBe(200);
  });
});

describe("customer ids", () => {
  it("automatic ids never collide with chosen ones and never overwrite", async () => {
    const fresh = buildMock({ contract: mock.ctx.contract });
    const token = { authorization: `Bearer ${codeFlowTokens(fresh).access_token}`, ...json };
    const create = (CustomerId: string, Name: string) =>
      fresh.handle({
        method: "POST",
        url: "/v1/api/DEMO/Customer",
        headers: token,
        body: Buffer.from(JSON.stringify({ CustomerId, Name })),
      });
    const ids: string[] = [];
    for (const chosen of ["1e21", "99999999", "ABC", "1007", ""]) {
      const res = create(chosen, `Gekozen ${chosen}`);
      expect(res.status, chosen).toBe(200);
      ids.push(JSON.parse(res.body!).CustomerId);
    }
    for (let i = 0; i < 5; i++) ids.push(JSON.parse(create("", `Automatisch ${i}`).body!).CustomerId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.slice(0, 4)).toEqual(["1e21", "99999999", "ABC", "1007"]);
    expect(ids.slice(4)).toEqual(["1008", "1009", "1010", "1011", "1012", "1013"]);
    for (const id of ids) {
      const read = fresh.handle({ method: "GET", url: `/v1/api/DEMO/Customer/${id}`, headers: token });
      expect(JSON.parse(read.body!).Name, id).toMatch(/^(Gekozen|Automatisch)/);
    }
  });

  it.each([[".."], ["a/b"], [" "], ["123456789"], ["x.json"]])("the id %j is refused (A-CUSTOMER-IDS)", async (id) => {
    const res = await post({ CustomerId: id, Name: "Vreemd" });
    expect(res.status).toBe(400);
    expect(Object.keys((await messageOf(res)).ModelState ?? {})).toEqual(["customer.CustomerId"]);
  });
});

describe("caps (A-LIMITS)", () => {
  it("330,000 empty Addresses are 400 naming the limit, not a 51 MiB answer", async () => {
    const res = await post(`{"Name":"Veel","Addresses":[${Array(330_000).fill("{}").join(",")}]}`);
    expect(res.status).toBe(400);
    expect(JSON.stringify(await messageOf(res))).toMatch(/Addresses.*(more than 50|fewer than 51)/i);
  });

  it("names longer than the real family's limits are 400 naming the field", async () => {
    const res = await post({ Name: "N".repeat(41), ShortName: "S".repeat(9) });
    expect(res.status).toBe(400);
    expect(Object.keys((await messageOf(res)).ModelState ?? {}).sort()).toEqual([
      "customer.Name",
      "customer.ShortName",
    ]);
  });

  it.each([[1_000_000], [101]])("an application name of %i characters is refused by the portal", async (length) => {
    const res = await portalPostHttp(server.url, "/portal", "/portal/applications", {
      name: "x".repeat(length),
      redirect_uri: "http://localhost:9000/cb",
    });
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/longer than 100 characters/);
  });

  it("a body that goes over the limit is refused before it ends, and a stalled one is dropped", async () => {
    const head = `POST /v1/api/DEMO/Customer HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth.authorization}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`;
    const chunk = "x".repeat(64 * 1024);
    const over = Array.from({ length: 20 }, () => `${chunk.length.toString(16)}\r\n${chunk}\r\n`).join("");
    // No final chunk: the body never ends, yet the answer comes.
    const started = Date.now();
    const answer = await raw(`${head}${over}`, 1);
    expect(answer).toMatch(/^HTTP\/1.1 413 /);
    expect(Date.now() - started).toBeLessThan(3_000);
    const stalled = await raw(`${head}5\r\n{"Nam`, 1);
    expect(stalled).toMatch(/^(HTTP\/1.1 408 |$)/);
    expect(Date.now() - started).toBeLessThan(6_000);
    await alive();
  }, 10_000);

  it("pending authorization requests stay bounded", () => {
    const fresh = buildMock({ contract: mock.ctx.contract });
    const q = new URLSearchParams({
      client_id: DEMO_APP.clientId,
      redirect_uri: DEMO_APP.redirectUri,
      scope: SCOPE,
      response_type: "code",
    });
    const authorize = () => fresh.handle({ method: "GET", url: `/v1/OAuth/Authorize?${q}`, headers: {} });
    const first = authorize();
    const cookie = first.headers["set-cookie"]!.split(";")[0]!;
    const screen = () => fresh.handle({ method: "GET", url: first.headers.location!, headers: { cookie } });
    expect(screen().status).toBe(200);
    let last = first;
    for (let i = 0; i < 10_050; i++) last = authorize();
    // A full address displaces its own requests no browser has seen (A-LIMITS): the count stays
    // bounded, and the login under way (its screen shown) still works.
    expect(last.status).toBe(302);
    expect(fresh.counts().pendingAuthorizations).toBeLessThanOrEqual(1_000);
    expect(screen().status).toBe(200);
  });
});

describe("the clock and OAuth", () => {
  it("advanceSeconds beyond the clock's range is 400 and the clock keeps working", async () => {
    for (const seconds of [9e12, 1e300]) {
      const res = await fetch(url("/__mock/clock"), {
        method: "POST",
        headers: json,
        body: JSON.stringify({ advanceSeconds: seconds }),
      });
      expect(res.status).toBe(400);
    }
    expect((await fetch(url("/__mock/clock"))).status).toBe(200);
    expect((await fetch(url("/__mock/reset"), { method: "POST", headers: json })).status).toBe(200);
  });

  it("replaying a code revokes the tokens it gave and those refreshed from them", () => {
    const fresh = buildMock({ contract: mock.ctx.contract });
    const tokens = codeFlowTokens(fresh);
    const creds = {
      client_id: DEMO_APP.clientId,
      client_secret: DEMO_APP.clientSecret,
      redirect_uri: DEMO_APP.redirectUri,
    };
    const refreshed = tokenRequest(fresh, {
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
      ...creds,
    }).json();
    const works = (token: string) =>
      fresh.handle({
        method: "GET",
        url: "/v1/api/DEMO/CustomerInfoList",
        headers: { authorization: `Bearer ${token}` },
      }).status;
    expect(works(refreshed.access_token)).toBe(200);
    const replay = tokenRequest(fresh, { grant_type: "authorization_code", code: tokens.code, ...creds });
    expect(replay.json().error).toBe("invalid_grant");
    expect(works(tokens.access_token)).toBe(401);
    expect(works(refreshed.access_token)).toBe(401);
    expect(
      tokenRequest(fresh, { grant_type: "refresh_token", refresh_token: tokens.refresh_token, ...creds }).status,
    ).toBe(400);
  });
});

describe("methods", () => {
  it("HEAD on a customer answers as GET would, without the body", async () => {
    const get = await fetch(url("/v1/api/DEMO/Customer/1001"), { headers: auth });
    const head = await fetch(url("/v1/api/DEMO/Customer/1001"), { method: "HEAD", headers: auth });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe(get.headers.get("content-length"));
    expect(await head.text()).toBe("");
  });
});
