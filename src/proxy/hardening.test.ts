// An attacker's requests through bawa proxy, each the reproduction of a finding
// of issue 33: a request hidden in a body too large to judge, bodies on GET and
// DELETE, the mock's control calls and portal reached through the proxy with
// another Host, one client holding the whole upstream pool, a compressed answer
// that expands a thousandfold, and paths that leave the target's prefix.
import { createServer, type IncomingHttpHeaders, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileContract } from "../contract/index.ts";
import { type BawaMock, buildMock } from "../mock/index.ts";
import { backgroundTokens } from "../mock/node/client.ts";
import { type Listening, listen } from "../mock/node/listen.ts";
import { JUDGE_LIMIT_BYTES, type RunningProxy, startProxy } from "./node.ts";
import { fullCustomer } from "./testing.ts";

const contract = compileContract();

/** A raw request through node:http (fetch() can send neither another Host nor a body on GET). */
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
  beforeAll(async () => {
    mock = buildMock();
    server = await listen(mock, { host: "127.0.0.1", port: 0 });
    proxy = await startProxy({ target: server.url, host: "127.0.0.1", port: 0, contract: mock.ctx.contract });
  });
  afterAll(async () => {
    await proxy?.close();
    await server?.close();
  });

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
    await new Promise<void>((done) => target.listen(0, "127.0.0.1", done));
    const base = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
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
