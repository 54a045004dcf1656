// An attacker's requests through bawa proxy, each the reproduction of a finding
// of issue 33: a request hidden in a body too large to judge, bodies on GET and
// DELETE, the mock's control calls and portal reached through the proxy with
// another Host, one client holding the whole upstream pool, a compressed answer
// that expands a thousandfold, and paths that leave the target's prefix.
import { createServer, type IncomingHttpHeaders, request, type Server } from "node:http";
import { connect } from "node:net";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contractInUse } from "../contract/index.ts";
import type { BawaMock } from "../mock/index.ts";
import { backgroundTokens } from "../mock/node/client.ts";
import type { Listening } from "../mock/node/listen.ts";
import { SEED } from "../mock/testing.ts";
import { PER_CLIENT, POOL_SIZE } from "./fair.ts";
import { JUDGE_LIMIT_BYTES, type RunningProxy, startProxy } from "./node.ts";
import { fullCustomer, mockBehindProxy, serveOnLoopback } from "./testing.ts";

const contract = contractInUse();

/** A raw request through node:http (fetch() can send neither another Host nor a body on GET). */
/** What a client that writes `request` as it stands reads until the proxy closes the connection. */
function rawExchange(url: string, request: string): Promise<string> {
  return new Promise<string>((done, fail) => {
    const socket = connect(Number(new URL(url).port), "127.0.0.1");
    let text = "";
    socket.on("data", (c) => (text += c));
    socket.on("close", () => done(text));
    socket.on("error", fail);
    socket.write(request);
  });
}

function send(
  url: string,
  init: {
    method?: string;
    headers?: Record<string, string>;
    body?: Buffer | string | Array<Buffer | string>;
    localAddress?: string;
  } = {},
): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((done, fail) => {
    const req = request(
      url,
      {
        method: init.method ?? "GET",
        headers: init.headers ?? {},
        ...(init.localAddress ? { localAddress: init.localAddress } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => done({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on("error", fail);
      },
    );
    req.on("error", fail);
    const parts = init.body === undefined ? [] : Array.isArray(init.body) ? init.body : [init.body];
    for (const p of parts) req.write(p);
    req.end();
  });
}

describe("bawa proxy in front of the mock", () => {
  let mock: BawaMock;
  let server: Listening;
  let proxy: RunningProxy;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ mock, server, proxy, close } = await mockBehindProxy());
  });
  afterAll(() => close?.());

  const named = (name: string) => mock.ctx.store.list("Customer", "DEMO").filter((c) => c.Name === name);

  it("smuggles no request in a body past the judge's limit: it goes on with its real length", async () => {
    const { access } = await backgroundTokens(server.url);
    const hidden = JSON.stringify(fullCustomer("Smuggled B.V."));
    const smuggled = [
      "POST /v1/api/DEMO/Customer HTTP/1.1",
      `Host: ${new URL(server.url).host}`,
      `Authorization: Bearer ${access}`,
      "Content-Type: application/json",
      `Content-Length: ${Buffer.byteLength(hidden)}`,
      "",
      hidden,
    ].join("\r\n");
    const body = Buffer.alloc(JUDGE_LIMIT_BYTES + 1024, " ");
    body.write(smuggled);
    const before = proxy.log.since(0).length;
    const res = await send(`${proxy.url}/v1/api/DEMO/Customer`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "content-length": String(body.length),
        authorization: `Bearer ${access}`,
      },
      body,
    });
    // The mock reads the length, refuses a body over its 1 MiB, and the hidden request is never parsed.
    expect(named("Smuggled B.V.")).toEqual([]);
    expect(res.status).toBe(413);
    const logged = proxy.log.since(0).slice(before);
    expect(logged.map((e) => [e.method, e.path, e.status])).toEqual([["POST", "/v1/api/DEMO/Customer", 413]]);
    expect(logged[0]!.problem).toMatch(/request body is larger than 67108864 bytes: forwarded, not read/);
  }, 60_000);

  it("keeps the mock's guard: another Host reads no secret and mints no token, by any spelling", async () => {
    const secrets = [SEED.app.clientSecret, SEED.second.clientSecret];
    const json = { "content-type": "application/json" };
    const mint = JSON.stringify({ clientId: SEED.app.clientId, clientSecret: SEED.app.clientSecret });
    for (const path of ["/__mock/applications", "/%5F%5Fmock/applications", "/__MOCK//applications/"]) {
      const read = await send(`${proxy.url}${path}`, { headers: { host: "attacker.test" } });
      expect(read.status).toBe(403);
      expect(JSON.parse(read.body.toString()).Message).toMatch(/^Host attacker\.test is not an address of this mock/);
      for (const secret of secrets) expect(read.body.toString()).not.toContain(secret);
    }
    const minted = await send(`${proxy.url}/__mock/refresh-tokens`, {
      method: "POST",
      headers: { host: "attacker.test:80", ...json },
      body: mint,
    });
    expect(minted.status).toBe(403);
    expect(minted.body.toString()).not.toContain("refresh_token");
    const portal = await send(`${proxy.url}/portal/applications/${SEED.app.clientId}`, {
      headers: { host: "attacker.test" },
    });
    expect(portal.status).toBe(403);
    for (const secret of secrets) expect(portal.body.toString()).not.toContain(secret);
    // A page of another site may not change the mock through the proxy either.
    const foreign = await send(`${proxy.url}/__mock/clock`, {
      method: "POST",
      headers: { origin: "http://attacker.test", ...json },
      body: JSON.stringify({ advanceSeconds: 1 }),
    });
    expect(foreign.status).toBe(403);
  });

  it("forwards the control calls from its own address: the clock moves, the portal answers", async () => {
    const before = mock.clock.now();
    const moved = await fetch(`${proxy.url}/__mock/clock`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ advanceSeconds: 60 }),
    });
    expect(moved.status).toBe(200);
    expect(mock.clock.now() - before).toBeGreaterThanOrEqual(60_000);
    const portal = await fetch(`${proxy.url}/portal`);
    expect(portal.status).toBe(200);
    expect(await portal.text()).toContain(SEED.app.clientId);
    await fetch(`${proxy.url}/__mock/reset`, { method: "POST", headers: { "content-type": "application/json" } });
  });

  it("needs its own control token for them when it has one, and has one off loopback", async () => {
    const guarded = await startProxy({
      target: server.url,
      host: "127.0.0.1",
      port: 0,
      contract,
      controlToken: "the-proxy-control-token",
    });
    try {
      const clock = (headers: Record<string, string>) =>
        fetch(`${guarded.url}/__mock/clock`, { headers }).then((r) => r.status);
      expect(await clock({})).toBe(401);
      expect(await clock({ "x-bawa-control-token": "the-proxy-control-token" })).toBe(200);
      expect((await fetch(`${guarded.url}/portal`)).status).toBe(401);
    } finally {
      await guarded.close();
    }
    await expect(startProxy({ target: server.url, host: "0.0.0.0", port: 0, contract })).rejects.toThrow(
      "a proxy on the non-loopback address 0.0.0.0 needs a control token (--control-token)",
    );
  });
});

describe("bawa proxy forwards a body on any method with its framing", () => {
  let target: Server;
  let proxy: RunningProxy;
  const seen: Array<{ method: string; url: string; headers: IncomingHttpHeaders; body: string }> = [];
  beforeAll(async () => {
    target = createServer((req, res) => {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
        res.writeHead(200, { "content-type": "text/plain" }).end(req.method === "HEAD" ? undefined : "ok");
      });
    });
    const base = await serveOnLoopback(target);
    proxy = await startProxy({ target: base, host: "127.0.0.1", port: 0, contract, judgeLimitBytes: 1024 });
  });
  afterAll(async () => {
    await proxy?.close();
    target?.close();
  });

  it.each(["GET", "DELETE", "HEAD", "POST"])("a chunked %s body, kept or streamed, arrives framed", async (method) => {
    for (const size of [100, 5000]) {
      seen.length = 0;
      const parts = [`${"a".repeat(size / 2 - 1)}\n`, `${"b".repeat(size / 2 - 1)}\n`];
      const res = await send(`${proxy.url}/v1/framed/${method}/${size}`, {
        method,
        headers: { "transfer-encoding": "chunked" },
        body: parts,
      });
      expect(res.status).toBe(200);
      // One request arrived, with the whole body as its body (nothing of it read as a request of its own).
      expect(seen).toMatchObject([{ method, url: `/v1/framed/${method}/${size}`, body: parts.join("") }]);
      if (size > 1024) expect(seen[0]!.headers["transfer-encoding"]).toBe("chunked");
      else expect(seen[0]!.headers["content-length"]).toBe(String(size));
    }
  });

  it("a body with a length past the judge's limit keeps that length, and the log says it was not read", async () => {
    seen.length = 0;
    const body = "c".repeat(4000);
    const res = await send(`${proxy.url}/v1/framed/length`, {
      method: "DELETE",
      body,
      headers: { "content-length": "4000" },
    });
    expect(res.status).toBe(200);
    expect(seen).toMatchObject([{ method: "DELETE", body, headers: { "content-length": "4000" } }]);
    expect(proxy.log.since(0).at(-1)?.problem).toBe(
      "the request body is larger than 1024 bytes: forwarded, not read (the exchange is not judged)",
    );
  });
});

describe("bawa proxy sends on what undici can send, and keeps its time limit", () => {
  let target: Server;
  let base: string;
  const seen: Array<{ url: string; headers: IncomingHttpHeaders }> = [];
  /** Answers of /v1/big/ the target could not finish: the proxy ended them. */
  const cut: string[] = [];
  beforeAll(async () => {
    target = createServer((req, res) => {
      seen.push({ url: req.url!, headers: req.headers });
      if (req.url?.startsWith("/v1/big/")) {
        // 64 MiB in 64 KiB parts, as fast as the proxy takes them.
        const part = Buffer.alloc(64 * 1024, "x");
        let left = 1024;
        res.writeHead(200, { "content-type": "text/plain", "content-length": String(part.length * left) });
        const more = () => {
          while (left > 0) {
            left--;
            if (!res.write(part)) return void res.once("drain", more);
          }
          res.end();
        };
        res.on("close", () => {
          if (!res.writableFinished) cut.push(req.url!);
        });
        more();
        return;
      }
      if (req.url === "/v1/broken") {
        // Headers and part of the body, then the connection goes: a target that crashed mid-answer.
        res.writeHead(200, { "content-type": "application/json", "content-length": "100" });
        res.write('{"Name":"cut');
        setTimeout(() => res.socket?.destroy(), 20);
        return;
      }
      // The rest answer once the whole body is in: a body that stops is never answered.
      req.resume();
      req.on("end", () => res.writeHead(200, { "content-type": "text/plain" }).end("ok"));
    });
    base = await serveOnLoopback(target);
  });
  afterAll(() => {
    target?.closeAllConnections();
    target?.close();
  });
  const proxyWith = (more: { targetTimeoutMs?: number } = {}) =>
    startProxy({ target: base, host: "127.0.0.1", port: 0, contract, judgeLimitBytes: 1024, ...more });

  it("leaves out every header undici refuses to send, and the request goes on", async () => {
    const proxy = await proxyWith();
    try {
      seen.length = 0;
      const res = await send(`${proxy.url}/v1/refused`, {
        method: "POST",
        headers: {
          "keep-alive": "timeout=5",
          upgrade: "websocket",
          connection: "keep-alive, upgrade, x-hop",
          "x-hop": "a header the Connection header names",
          te: "trailers",
          "proxy-connection": "keep-alive",
          expect: "100-continue",
          "content-type": "text/plain",
          "content-length": "5",
        },
        body: "hello",
      });
      expect(res.status).toBe(200);
      expect(res.headers["x-bawa-proxy"]).toBeUndefined();
      expect(seen).toHaveLength(1);
      for (const name of ["keep-alive", "upgrade", "x-hop", "te", "proxy-connection", "expect"]) {
        expect(seen[0]!.headers[name]).toBeUndefined();
      }
      expect(seen[0]!.headers["content-length"]).toBe("5");
    } finally {
      await proxy.close();
    }
  });

  it("a streamed body that stops coming: 504 once the limit passes, and the connection closed", async () => {
    const proxy = await proxyWith({ targetTimeoutMs: 300 });
    try {
      // 2,000 of 10,000 bytes: past the judge's 1,024, so streamed; then nothing more.
      const answer = await rawExchange(
        proxy.url,
        `POST /v1/stalled HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\nContent-Length: 10000\r\n\r\n${"s".repeat(2000)}`,
      );
      expect(answer).toMatch(/^HTTP\/1\.1 504 /);
      expect(answer).toMatch(/\r\nconnection: close\r\n/i);
      expect(answer).toContain("did not answer: no answer within 0.3 s");
      expect(proxy.log.since(0).at(-1)).toMatchObject({ method: "POST", path: "/v1/stalled", status: 504 });
    } finally {
      await proxy.close();
    }
  });

  it("an answer passed on to a client that stopped reading ends once the limit passes", async () => {
    const proxy = await proxyWith({ targetTimeoutMs: 300 });
    const socket = connect(Number(new URL(proxy.url).port), "127.0.0.1");
    try {
      cut.length = 0;
      socket.write("GET /v1/big/stalled HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
      // The client reads nothing: the proxy holds the target back, then gives up the exchange.
      socket.pause();
      await expect.poll(() => cut, { timeout: 10_000 }).toEqual(["/v1/big/stalled"]);
      await expect
        .poll(() => proxy.log.since(0).at(-1)?.problem, { timeout: 10_000 })
        .toBe(
          `bawa proxy: the answer of the target ${base} was not whole within 0.3 s (the target stopped sending, or the client took it slower than it came); the client's connection was closed`,
        );
    } finally {
      socket.destroy();
      await proxy.close();
    }
  });

  it("an answer the target breaks off closes the client's connection, and the log says why", async () => {
    const proxy = await proxyWith();
    try {
      const got = await rawExchange(proxy.url, "GET /v1/broken HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
      // Judged whole or not at all: nothing of a broken answer held for the judge reaches the client.
      expect(got).not.toMatch(/^HTTP\/1\.1 50[24]/);
      const logged = proxy.log.since(0).at(-1)!;
      expect(logged).toMatchObject({ method: "GET", path: "/v1/broken", status: 200 });
      expect(logged.problem).toMatch(
        new RegExp(
          `^bawa proxy: the answer of the target ${base} broke off: \\S.*; the client's connection was closed$`,
        ),
      );
    } finally {
      await proxy.close();
    }
  });
});

describe("bawa proxy shares its work", () => {
  let target: Server;
  let proxy: RunningProxy;
  const held: Array<() => void> = [];
  let slowAtOnce = 0;
  let slowMost = 0;
  // Four gzip members of 64 MiB of zeros each: 256 KiB that expand to 256 MiB.
  const bomb = Buffer.concat(Array(4).fill(gzipSync(Buffer.alloc(64 * 1024 * 1024))));
  beforeAll(async () => {
    target = createServer((req, res) => {
      req.resume();
      if (req.url?.startsWith("/v1/slow/")) {
        slowAtOnce++;
        slowMost = Math.max(slowMost, slowAtOnce);
        held.push(() => {
          slowAtOnce--;
          res.writeHead(200, { "content-type": "text/plain" }).end("slow");
        });
      } else if (req.url === "/v1/api/DEMO/CustomerInfoList") {
        res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" }).end(bomb);
      } else {
        res.writeHead(200, { "content-type": "text/plain" }).end("fast");
      }
    });
    const base = await serveOnLoopback(target);
    proxy = await startProxy({ target: base, host: "127.0.0.1", port: 0, contract });
  });
  afterAll(async () => {
    for (const release of held.splice(0)) release();
    await proxy?.close();
    target?.close();
  });

  it("among its clients: one with the whole pool's worth of slow requests does not hold up another", async () => {
    // Two clients by their addresses: 127.0.0.2 sends as many slow requests as the pool has sockets.
    const slow = Array.from({ length: POOL_SIZE }, (_, i) =>
      send(`${proxy.url}/v1/slow/${i}`, { localAddress: "127.0.0.2" }),
    );
    await expect.poll(() => slowAtOnce, { timeout: 10_000 }).toBeGreaterThanOrEqual(PER_CLIENT);
    const other = send(`${proxy.url}/v1/fast`, { localAddress: "127.0.0.3" });
    const first = await Promise.race([
      other.then((r) => `answered ${r.status}`),
      new Promise((done) => setTimeout(() => done("still waiting after 10 s"), 10_000)),
    ]);
    expect(first).toBe("answered 200");
    expect(slowMost).toBe(PER_CLIENT);
    // The rest of the slow client's requests waited in the proxy, and are all answered in turn.
    let answered = 0;
    for (const r of slow) void r.then(() => answered++);
    while (answered < POOL_SIZE) {
      for (const release of held.splice(0)) release();
      await new Promise((done) => setTimeout(done, 10));
    }
    expect((await Promise.all(slow)).map((r) => r.status)).toEqual(Array(POOL_SIZE).fill(200));
  }, 30_000);

  it("decompresses an answer for the judge only up to its limit, and passes the answer on as it came", async () => {
    const res = await send(`${proxy.url}/v1/api/DEMO/CustomerInfoList`, {
      headers: { authorization: "Bearer t", "accept-encoding": "gzip" },
    });
    expect(res.status).toBe(200);
    expect(res.headers["content-encoding"]).toBe("gzip");
    expect(res.body.equals(bomb)).toBe(true);
    const logged = proxy.log.since(0).at(-1)!;
    expect(logged.problem).toBe(
      `the answer decompresses to more than ${JUDGE_LIMIT_BYTES} bytes: passed on as it came, its body not read`,
    );
    expect(logged.violations).toBeUndefined();
  }, 30_000);
});

describe("bawa proxy keeps to its target's path", () => {
  let target: Server;
  let proxy: RunningProxy;
  const seen: string[] = [];
  beforeAll(async () => {
    target = createServer((req, res) => {
      req.resume();
      seen.push(req.url ?? "");
      res.writeHead(200, { "content-type": "text/plain" }).end("ok");
    });
    const base = `${await serveOnLoopback(target)}/env/a`;
    proxy = await startProxy({ target: base, host: "127.0.0.1", port: 0, contract });
  });
  afterAll(async () => {
    await proxy?.close();
    target?.close();
  });

  /** A request target exactly as written: node:http given a path sends it unparsed. */
  const raw = (path: string) =>
    new Promise<{ status: number; text: string }>((done, fail) => {
      const { hostname, port } = new URL(proxy.url);
      request({ hostname, port, path }, (res) => {
        let text = "";
        res.on("data", (c) => (text += c));
        res.on("end", () => done({ status: res.statusCode!, text }));
      })
        .on("error", fail)
        .end();
    });

  it.each([
    ["/v1/../../secret", /has a dot segment/],
    ["/v1/%2e%2E/%2E%2e/secret", /has a dot segment/],
    ["/v1/.%2E/x/../../secret", /has a dot segment/],
    ["/v1/%252e%252e/%252e%252e/secret", /has a dot segment/],
    ["/v1/..%2F..%2Fsecret", /has a dot segment/],
    ["/v1\\..\\..\\secret", /has a backslash/],
    ["/v1/..%5C..%5Csecret", /has a backslash/],
    ["/v1/api/DEMO/Customer/1001#x", /carries a fragment/],
  ])("refuses %s, naming why, and sends the target nothing", async (path, why) => {
    seen.length = 0;
    const res = await raw(path);
    expect(res.status).toBe(400);
    expect(res.text).toMatch(why);
    expect(seen).toEqual([]);
    expect(proxy.log.since(0).at(-1)).toMatchObject({ status: 400, problem: expect.stringMatching(why) });
  });

  it("forwards every other path below its prefix, as sent", async () => {
    seen.length = 0;
    for (const path of ["/v1/api/DEMO/Customer/a..b", "/v1/api/DEMO/Customer/%2e%2ex", "/v1//api/.x"]) {
      expect((await raw(path)).status).toBe(200);
    }
    expect(seen).toEqual([
      "/env/a/v1/api/DEMO/Customer/a..b",
      "/env/a/v1/api/DEMO/Customer/%2e%2ex",
      "/env/a/v1//api/.x",
    ]);
  });
});
