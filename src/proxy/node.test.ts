// The forwarding itself, against a small target of our own that answers what
// a real environment may: compressed bodies, several cookies, redirects to its
// own address, HEAD. The client must get the target's answer as it was sent;
// only what forwarding needs may change, and the proxy's own pages keep the
// mock's guard.
import { createServer, get, type IncomingHttpHeaders, type Server } from "node:http";
import { type AddressInfo, connect, createServer as createTcpServer, type Server as TcpServer } from "node:net";
import { gzipSync } from "node:zlib";
import { Pool } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contractInUse } from "../contract/index.ts";
import { freePort } from "../mock/node/listen.ts";
import { type RunningProxy, startProxy } from "./node.ts";
import { serveOnLoopback } from "./testing.ts";

let target: Server;
let base: string;
let proxy: RunningProxy;
const seen: Array<{ method: string; url: string; headers: IncomingHttpHeaders; body: string }> = [];
const CUSTOMER = JSON.stringify({ CustomerId: "1001", Name: "Gzip B.V." });

beforeAll(async () => {
  target = createServer((req, res) => {
    if (req.url === "/v1/early") {
      // Refuses a body at once, without reading it, and closes: as the mock does past 1 MiB.
      res.shouldKeepAlive = false;
      res.writeHead(413, { "content-type": "text/plain" }).end("too large");
      req.resume();
      return;
    }
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      if (req.url === "/v1/api/DEMO/Customer/1001") {
        res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
        res.end(gzipSync(CUSTOMER));
      } else if (req.url === "/v1/api/DEMO/Customer/1002") {
        // Uncompressed, a page on another origin allowed to read a header, and the wrong object.
        res.writeHead(200, [
          ["Content-Type", "application/json"],
          ["Access-Control-Allow-Origin", "http://app.example"],
          ["Access-Control-Expose-Headers", "X-Target"],
          ["X-Target", "yes"],
        ]);
        res.end(CUSTOMER);
      } else if (req.url?.startsWith("/v1/OAuth/Authorize")) {
        res.writeHead(302, [
          ["Location", `${base}/v1/OAuth/Login?request=r1`],
          ["Set-Cookie", "a=1; Path=/; Domain=127.0.0.1; HttpOnly"],
          ["Set-Cookie", "b=2; Path=/"],
        ]);
        res.end();
      } else {
        res.writeHead(404, { "content-type": "text/plain", "x-target": "yes" });
        res.end(req.method === "HEAD" ? undefined : "nothing here");
      }
    });
  });
  base = await serveOnLoopback(target);
  proxy = await startProxy({ target: base, host: "127.0.0.1", port: 0, contract: contractInUse() });
});
afterAll(async () => {
  await proxy?.close();
  target?.close();
});

describe("bawa proxy forwards", () => {
  it("a request as it came, setting only Host and X-Forwarded-*", async () => {
    seen.length = 0;
    const res = await fetch(`${proxy.url}/v1/api/DEMO/Unknown?x=1`, {
      method: "POST",
      headers: { "content-type": "text/plain", "x-custom": "kept", authorization: "Bearer t" },
      body: "hello",
    });
    expect(res.status).toBe(404);
    expect(res.headers.get("x-target")).toBe("yes");
    expect(await res.text()).toBe("nothing here");
    const got = seen[0]!;
    expect(got).toMatchObject({ method: "POST", url: "/v1/api/DEMO/Unknown?x=1", body: "hello" });
    expect(got.headers).toMatchObject({
      host: new URL(base).host,
      "x-custom": "kept",
      authorization: "Bearer t",
      "x-forwarded-host": new URL(proxy.url).host,
      "x-forwarded-proto": "http",
      "x-forwarded-for": "127.0.0.1",
    });
  });

  it("every cookie but its own dashboard's (the proxy's control token stays with the proxy)", async () => {
    seen.length = 0;
    await fetch(`${proxy.url}/v1/api/DEMO/Unknown`, { headers: { cookie: "a=1; bawa_control=secret; b=2" } });
    expect(seen[0]!.headers.cookie).toBe("a=1; b=2");
    // A request without a body goes on without one, and without framing.
    expect(seen[0]).toMatchObject({ method: "GET", body: "" });
    expect(seen[0]!.headers["content-length"]).toBeUndefined();
    expect(seen[0]!.headers["transfer-encoding"]).toBeUndefined();
    await fetch(`${proxy.url}/v1/api/DEMO/Unknown`, { headers: { cookie: "bawa_control=secret" } });
    expect(seen[1]!.headers.cookie).toBeUndefined();
  });

  it("a request in the absolute form, as a client with HTTP_PROXY sends it, by its path", async () => {
    seen.length = 0;
    const { port } = new URL(proxy.url);
    const raw = await new Promise<string>((done, fail) => {
      const socket = connect(Number(port), "127.0.0.1", () =>
        socket.write(
          `GET http://127.0.0.1:${port}/v1/api/DEMO/Unknown?y=2 HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`,
        ),
      );
      let text = "";
      socket.on("data", (d) => (text += d));
      socket.on("end", () => done(text));
      socket.on("error", fail);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 404/);
    expect(seen[0]!.url).toBe("/v1/api/DEMO/Unknown?y=2");
    // The proxy is still up.
    expect((await fetch(`${proxy.url}/v1/api/DEMO/Unknown`)).status).toBe(404);
  });

  it("a compressed answer as it was sent, and judges what it says", async () => {
    const res = await fetch(`${proxy.url}/v1/api/DEMO/Customer/1001`, {
      headers: { "accept-encoding": "gzip", authorization: "Bearer t" },
    });
    expect(res.headers.get("content-encoding")).toBe("gzip");
    expect(await res.text()).toBe(CUSTOMER);
    // The judge read the decompressed body: a customer of two fields breaks CUST-FIELDS.
    expect(res.headers.get("x-bawa-violations")).not.toBeNull();
    const last = proxy.log.since(0).at(-1)!;
    expect(last.violations?.map((v) => v.requirement)).toContain("CUST-FIELDS");
  });

  it("an answer as it came, its length counted, and the count of violations readable where the target's headers are", async () => {
    const res = await fetch(`${proxy.url}/v1/api/DEMO/Customer/1002`, { headers: { authorization: "Bearer t" } });
    expect(await res.text()).toBe(CUSTOMER);
    expect(res.headers.get("content-length")).toBe(String(Buffer.byteLength(CUSTOMER)));
    expect(res.headers.get("x-target")).toBe("yes");
    // The body's CustomerId is not the path's, and two fields are not a customer.
    const last = proxy.log.since(0).at(-1)!;
    expect(last.violations?.map((v) => v.requirement)).toEqual(
      expect.arrayContaining(["SVC-RESOURCE-ADDRESS", "CUST-FIELDS"]),
    );
    expect(res.headers.get("x-bawa-violations")).toBe(String(last.violations?.length));
    expect(res.headers.get("access-control-expose-headers")).toBe("X-Target, X-Bawa-Violations");
  });

  it("redirects to the target's own address at the proxy's, every cookie, a target's Domain dropped", async () => {
    const res = await fetch(`${proxy.url}/v1/OAuth/Authorize?client_id=c`, { redirect: "manual" });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe(`${proxy.url}/v1/OAuth/Login?request=r1`);
    expect(res.headers.getSetCookie()).toEqual(["a=1; Path=/; HttpOnly", "b=2; Path=/"]);
  });

  it("the answer of a target that refuses a body before reading it", async () => {
    const body = "x".repeat(1_100_000);
    for (let i = 0; i < 10; i++) {
      const res = await fetch(`${proxy.url}/v1/early`, { method: "POST", body });
      expect(res.status).toBe(413);
      expect(await res.text()).toBe("too large");
    }
  });

  it("a streamed (chunked) body whole, with its length", async () => {
    seen.length = 0;
    const stream = new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode("part one, "));
        c.enqueue(new TextEncoder().encode("part two"));
        c.close();
      },
    });
    await fetch(`${proxy.url}/v1/chunks`, { method: "POST", body: stream, duplex: "half" } as RequestInit);
    expect(seen[0]).toMatchObject({ body: "part one, part two" });
    expect(seen[0]!.headers).toMatchObject({ "content-length": "18" });
    expect(seen[0]!.headers["transfer-encoding"]).toBeUndefined();
  });

  it("HEAD with the target's headers and no body", async () => {
    const res = await fetch(`${proxy.url}/v1/nothing`, { method: "HEAD" });
    expect(res.status).toBe(404);
    expect(res.headers.get("x-target")).toBe("yes");
  });

  it("nothing when the target is down: 502 saying so", async () => {
    const down = await startProxy({
      target: `http://127.0.0.1:${await freePort()}`,
      host: "127.0.0.1",
      port: 0,
      contract: proxy.judge.contract,
    });
    const res = await fetch(`${down.url}/v1/api/DEMO/CustomerInfoList`);
    expect(res.status).toBe(502);
    expect((await res.json()).Message).toMatch(
      /^bawa proxy: the target http:\/\/127\.0\.0\.1:\d+ did not answer: ECONNREFUSED/,
    );
    await down.close();
  });

  it("nothing in time from the target: 504 saying so, and the log line", async () => {
    const silent = createServer(() => {});
    const slow = await startProxy({
      target: await serveOnLoopback(silent),
      host: "127.0.0.1",
      port: 0,
      contract: proxy.judge.contract,
      targetTimeoutMs: 300,
    });
    try {
      const res = await fetch(`${slow.url}/v1/api/DEMO/CustomerInfoList`);
      expect(res.status).toBe(504);
      expect(res.headers.get("x-bawa-proxy")).toBe("no answer");
      const message = /^bawa proxy: the target http:\/\/127\.0\.0\.1:\d+ did not answer: no answer within 0\.3 s$/;
      expect((await res.json()).Message).toMatch(message);
      expect(slow.log.since(0).at(-1)).toMatchObject({ status: 504, problem: expect.stringMatching(message) });
    } finally {
      await slow.close();
      silent.closeAllConnections();
      silent.close();
    }
  });
});

/** A target that answers every request with the same bytes, as written: answers node:http would never write. */
async function rawTarget(answer: Buffer): Promise<{ url: string; server: TcpServer }> {
  const server = createTcpServer((socket) => {
    socket.on("error", () => {});
    let head = "";
    socket.on("data", (d) => {
      head += d.toString("latin1");
      // The connection stays open: what the proxy does with the answer is its own doing.
      for (let end = head.indexOf("\r\n\r\n"); end >= 0; end = head.indexOf("\r\n\r\n")) {
        head = head.slice(end + 4);
        socket.write(answer);
      }
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** The bytes a client gets for a GET through the proxy, as they came. */
function rawGet(proxyUrl: string, path: string): Promise<Buffer> {
  const { port } = new URL(proxyUrl);
  return new Promise((done, fail) => {
    const socket = connect(Number(port), "127.0.0.1", () =>
      socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`),
    );
    const chunks: Buffer[] = [];
    socket.on("data", (d) => chunks.push(d));
    socket.on("close", () => done(Buffer.concat(chunks)));
    socket.on("error", fail);
  });
}

describe("bawa proxy passes on answers its HTTP libraries find odd", () => {
  async function through(answer: Buffer, test: (proxy: RunningProxy) => Promise<void>): Promise<void> {
    const target = await rawTarget(answer);
    const proxy = await startProxy({ target: target.url, host: "127.0.0.1", port: 0, contract: contractInUse() });
    try {
      await test(proxy);
    } finally {
      await proxy.close();
      target.server.close();
    }
  }

  it("a 304 with the Content-Length of what it stands for and no body (RFC 9110 8.6), as it came", async () => {
    // undici 7 takes the 5 bytes that never come for a broken answer (UND_ERR_RES_CONTENT_LENGTH_MISMATCH).
    await through(
      Buffer.from('HTTP/1.1 304 Not Modified\r\nETag: "v1"\r\nContent-Length: 5\r\n\r\n'),
      async (proxy) => {
        for (const _ of [1, 2]) {
          const raw = (await rawGet(proxy.url, "/v1/api/DEMO/Customer/1001")).toString("latin1");
          expect(raw).toMatch(/^HTTP\/1\.1 304 Not Modified\r\n/);
          expect(raw).toMatch(/\r\nETag: "v1"\r\n/);
          expect(raw).toMatch(/\r\ncontent-length: 5\r\n/i);
          expect(raw.endsWith("\r\n\r\n")).toBe(true);
        }
        await expect.poll(() => proxy.log.since(0).map((e) => e.status)).toEqual([304, 304]);
      },
    );
  });

  it("no header the target's Connection lists: they are its connection's (RFC 9110 7.6.1)", async () => {
    const answer = Buffer.from(
      "HTTP/1.1 200 OK\r\nConnection: X-Secret, x-hop\r\nConnection: X-Other\r\nX-Secret: 1\r\nX-Hop: 2\r\nX-Other: 3\r\nX-Kept: 4\r\nContent-Length: 2\r\n\r\nhi",
    );
    await through(answer, async (proxy) => {
      const raw = (await rawGet(proxy.url, "/v1/nothing")).toString("latin1");
      const names = raw
        .split("\r\n\r\n")[0]!
        .split("\r\n")
        .slice(1)
        .map((line) => line.split(":")[0]!.toLowerCase());
      expect(names).toContain("x-kept");
      for (const listed of ["x-secret", "x-hop", "x-other"]) expect(names).not.toContain(listed);
    });
  });

  it("a reason phrase in UTF-8 with the very bytes the target sent", async () => {
    const answer = Buffer.from("HTTP/1.1 200 OK \u2713\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nhi");
    await through(answer, async (proxy) => {
      const raw = await rawGet(proxy.url, "/v1/nothing");
      expect(raw.subarray(0, raw.indexOf("\r\n")).equals(Buffer.from("HTTP/1.1 200 OK \u2713"))).toBe(true);
      expect(raw.toString("latin1").endsWith("\r\n\r\nhi")).toBe(true);
      await expect.poll(() => proxy.log.since(0)).toMatchObject([{ status: 200, problem: undefined }]);
    });
  });

  it.each([
    ["not UTF-8", Buffer.from("caf\xe9", "latin1")],
    ["a control character", Buffer.from("O\x01K")],
  ])("a reason phrase HTTP can not carry (%s): the standard one instead, and the log says so", async (_n, phrase) => {
    const answer = Buffer.concat([
      Buffer.from("HTTP/1.1 200 "),
      phrase,
      Buffer.from("\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nhi"),
    ]);
    await through(answer, async (proxy) => {
      const raw = (await rawGet(proxy.url, "/v1/nothing")).toString("latin1");
      expect(raw).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
      expect(raw.endsWith("\r\n\r\nhi")).toBe(true);
      await expect
        .poll(() => proxy.log.since(0))
        .toMatchObject([
          {
            status: 200,
            problem: expect.stringMatching(
              /^the target's reason phrase ".*" can not be sent on \(.*\): the client got "200 OK"$/,
            ),
          },
        ]);
    });
  });
});

describe("the proxy's own pages", () => {
  it("are the request log and the dashboard, behind the mock's guard; other /__mock calls go to the target", async () => {
    const log = await fetch(`${proxy.url}/__mock/requests`);
    expect(log.status).toBe(200);
    expect((await log.json()).entries.length).toBeGreaterThan(0);
    const page = await (await fetch(`${proxy.url}/__mock/`)).text();
    expect(page).toContain('data-mode="proxy"');
    // A page of another name (DNS rebinding) is refused; fetch() can not send another Host, node:http can.
    const foreign = await new Promise<number>((done, fail) =>
      get(`${proxy.url}/__mock/requests`, { headers: { host: "evil.example" } }, (res) => {
        res.resume();
        done(res.statusCode!);
      }).on("error", fail),
    );
    expect(foreign).toBe(403);
    seen.length = 0;
    expect((await fetch(`${proxy.url}/__mock/clock`)).status).toBe(404);
    expect(seen.map((s) => s.url)).toEqual(["/__mock/clock"]);
  });

  it("need the control token when one is set", async () => {
    const guarded = await startProxy({
      target: base,
      host: "127.0.0.1",
      port: await freePort(),
      contract: proxy.judge.contract,
      controlToken: "a-control-token-of-the-proxy",
    });
    expect((await fetch(`${guarded.url}/__mock/requests`)).status).toBe(401);
    const ok = await fetch(`${guarded.url}/__mock/requests`, {
      headers: { "x-bawa-control-token": "a-control-token-of-the-proxy" },
    });
    expect(ok.status).toBe(200);
    await guarded.close();
  });
});

describe("stopping", () => {
  it("judges, counts and passes on an answer that ended in the turn the proxy stops in", async () => {
    // Answers wait for the end of the turn (turn.ts); a signal read in the same poll phase closes
    // the proxy meanwhile. The answer is still judged, in the report and passed on, before the
    // connections go: not judged after the report was written, its client answered by a reset.
    const stopped = await startProxy({ target: base, host: "127.0.0.1", port: 0, contract: contractInUse() });
    let counted: number | undefined;
    // Close the proxy in the very event the end of its answer from the target is read in: the
    // proxy asks the target through undici's Pool (fetch is Node.js's own copy of undici).
    const dispatch = Pool.prototype.dispatch;
    Pool.prototype.dispatch = function (this: Pool, opts, handler) {
      const end = handler.onResponseEnd;
      handler.onResponseEnd = function (this: typeof handler, ...args) {
        end?.apply(this, args);
        if (counted !== undefined) return;
        counted = -1;
        void stopped.close().then(() => (counted = stopped.report.exchanges));
      };
      return dispatch.call(this, opts, handler);
    };
    try {
      const res = await fetch(`${stopped.url}/v1/nothing`);
      expect(res.status).toBe(404);
      expect(res.headers.get("x-target")).toBe("yes");
      expect(await res.text()).toBe("nothing here");
    } finally {
      Pool.prototype.dispatch = dispatch;
    }
    await expect.poll(() => counted).toBeGreaterThanOrEqual(0);
    expect(counted).toBe(1);
  });
});

describe("what the proxy's request log says it judged (GET /__mock/requests)", () => {
  const totals = async (p: RunningProxy) => {
    const { judged, violated } = (await (await fetch(`${p.url}/__mock/requests?after=1000000`)).json()) as {
      judged: number;
      violated: number;
    };
    return { judged, violated };
  };

  it("counts an answer of the API read whole; not a page outside it, not one passed on unread", async () => {
    const counting = await startProxy({ target: base, host: "127.0.0.1", port: 0, contract: contractInUse() });
    const small = await startProxy({
      target: base,
      host: "127.0.0.1",
      port: 0,
      contract: contractInUse(),
      judgeLimitBytes: 30,
    });
    try {
      // A customer (read whole; it lacks fields, so it broke a rule) and an unknown data path (ERR-1-PATH
      // is judged on it) count; a favicon of no rule does not.
      for (const path of ["/v1/api/DEMO/Customer/1002", "/v1/api/DEMO/Nothing/1", "/favicon.ico"])
        await (await fetch(`${counting.url}${path}`)).arrayBuffer();
      expect(await totals(counting)).toEqual({ judged: 2, violated: 1 });
      // The same customer over the judge's limit is passed on unjudged: no answer judged.
      await (await fetch(`${small.url}/v1/api/DEMO/Customer/1002`)).arrayBuffer();
      expect(small.log.since(0).at(-1)?.problem).toBe("the answer is larger than 30 bytes: passed on unjudged");
      expect((await totals(small)).judged).toBe(0);
    } finally {
      await counting.close();
      await small.close();
    }
  });

  it("an exchange the judge broke on is not counted, and its log entry says it was not judged", async () => {
    const broken = await startProxy({ target: base, host: "127.0.0.1", port: 0, contract: contractInUse() });
    const judge = broken.judge.judge.bind(broken.judge);
    broken.judge.judge = () => {
      throw new Error("a bug planted by the test");
    };
    const errors: unknown[] = [];
    const error = console.error;
    console.error = (...args: unknown[]) => errors.push(args);
    try {
      const res = await fetch(`${broken.url}/v1/api/DEMO/Customer/1002`);
      expect(res.status).toBe(200);
      expect(await res.text()).toBe(CUSTOMER);
      expect(broken.log.since(0).at(-1)?.problem).toBe(
        "not judged: an internal error of bawa (the proxy's output shows it)",
      );
      expect(errors).toHaveLength(1);
      expect(await totals(broken)).toEqual({ judged: 0, violated: 0 });
      broken.judge.judge = judge;
      await (await fetch(`${broken.url}/v1/api/DEMO/Customer/1002`)).arrayBuffer();
      expect((await totals(broken)).judged).toBe(1);
    } finally {
      console.error = error;
      await broken.close();
    }
  });
});
