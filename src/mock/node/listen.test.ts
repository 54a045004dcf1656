// The adapter over a real port: what only the network shows.
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLOCK_HEADER, readClockHeader } from "../../rules/mock-state.ts";
import { BODY_LIMIT_BYTES, KEEP_ALIVE_MS } from "../core/limits.ts";
import { buildMock } from "../index.ts";
import { codeFlowTokens } from "../testing.ts";
import { type Listening, listen } from "./listen.ts";

let server: Listening;
let auth: { authorization: string };

beforeAll(async () => {
  const mock = buildMock();
  auth = { authorization: `Bearer ${codeFlowTokens(mock).access_token}` };
  server = await listen(mock, { host: "127.0.0.1", port: 0 });
});
afterAll(() => server.close());

/** Sends raw bytes and returns the raw answer (what fetch would refuse to send). */
function raw(request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const { port } = new URL(server.url);
    const socket = connect(Number(port), "127.0.0.1", () => socket.end(request));
    let data = "";
    socket.on("data", (d) => (data += d));
    socket.on("end", () => resolve(data));
    socket.on("error", reject);
  });
}

/** One HTTP/1.1 request as bytes, to pipeline several in one write: a JSON body, when given. */
function http1(
  line: string,
  { host, authorization, body, close = false }: { host: string; authorization: string; body?: string; close?: boolean },
): string {
  const bodyHeaders =
    body === undefined ? "" : `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n`;
  return `${line} HTTP/1.1\r\nHost: ${host}\r\nAuthorization: ${authorization}\r\n${bodyHeaders}${close ? "Connection: close\r\n" : ""}\r\n${body ?? ""}`;
}

describe("the mock over a real port", () => {
  it("sends a stored object's kept bytes as its text encodes them, on every read, in JSON and XML", async () => {
    // Beyond Latin-1 and beyond the BMP: bytes kept as any other encoding than UTF-8 differ.
    const name = "Zoë Ångström 😀 Œuvre";
    const created = await fetch(`${server.url}/v1/api/DEMO/Customer`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ CustomerId: "", Name: name }),
    });
    const { CustomerId } = (await created.json()) as { CustomerId: string };
    for (const accept of ["application/json", "application/json", "application/xml", "application/xml"]) {
      const read = await fetch(`${server.url}/v1/api/DEMO/Customer/${CustomerId}`, { headers: { ...auth, accept } });
      const bytes = Buffer.from(await read.arrayBuffer());
      expect(read.headers.get("content-length")).toBe(String(bytes.length));
      const text = bytes.toString("utf8");
      if (accept === "application/json") expect((JSON.parse(text) as { Name: string }).Name).toBe(name);
      else expect(text).toContain(`<Name>${name}</Name>`);
    }
  });

  it("serves the customer lifecycle in JSON and XML", async () => {
    const created = await fetch(`${server.url}/v1/api/DEMO/Customer`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({ CustomerId: "", Name: "Poort B.V." }),
    });
    expect(created.status).toBe(200);
    const { CustomerId } = (await created.json()) as { CustomerId: string };
    const xml = await fetch(`${server.url}/V1/api/DEMO/Customer/${CustomerId}`, {
      headers: { ...auth, accept: "application/xml" },
    });
    expect(xml.headers.get("content-type")).toBe("application/xml; charset=utf-8");
    expect(await xml.text()).toContain("<Name>Poort B.V.</Name>");
    const deleted = await fetch(`${server.url}/v1/api/DEMO/Customer/${CustomerId}`, {
      method: "DELETE",
      headers: auth,
    });
    expect(deleted.status).toBe(200);
    expect(deleted.headers.get("content-length")).toBe("0");
    expect((await fetch(`${server.url}/v1/api/DEMO/Customer/${CustomerId}`, { headers: auth })).status).toBe(404);
  });

  it("answers the requests of one connection in the order they came: a pipelined GET reads what a POST created", async () => {
    // A POST waits for its body and then for the end of the turn (turn.ts); a GET behind it on
    // the same connection waited for neither and was answered first, without the new customer.
    const count = async () =>
      ((await (await fetch(`${server.url}/v1/api/DEMO/CustomerInfoList`, { headers: auth })).json()) as unknown[])
        .length;
    const before = await count();
    const body = JSON.stringify({ CustomerId: "", Name: "Rij B.V." });
    const to = { host: new URL(server.url).host, authorization: auth.authorization };
    const post = http1("POST /v1/api/DEMO/Customer", { ...to, body });
    const get = http1("GET /v1/api/DEMO/CustomerInfoList", { ...to, close: true });
    const answers = (await raw(post + get)).split(/(?=HTTP\/1\.1 )/);
    expect(answers.map((a) => a.slice(0, 12))).toEqual(["HTTP/1.1 200", "HTTP/1.1 200"]);
    expect(answers[0]).toContain('"Name":"Rij B.V."');
    const listed = JSON.parse(answers[1]!.slice(answers[1]!.indexOf("\r\n\r\n") + 4)) as Array<{ Name: string }>;
    expect(listed).toHaveLength(before + 1);
    expect(listed.map((c) => c.Name)).toContain("Rij B.V.");
  });

  it("carries out nothing pipelined behind a 413: the connection closes, so no answer could say what was done", async () => {
    const created = await fetch(`${server.url}/v1/api/DEMO/Customer`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ CustomerId: "", Name: "Blijf B.V." }),
    });
    const { CustomerId } = (await created.json()) as { CustomerId: string };
    const to = { host: new URL(server.url).host, authorization: auth.authorization };
    const post = http1("POST /v1/api/DEMO/Customer", {
      ...to,
      body: JSON.stringify({ Name: "x".repeat(BODY_LIMIT_BYTES) }),
    });
    const del = http1(`DELETE /v1/api/DEMO/Customer/${CustomerId}`, to);
    const answers = (await raw(post + del)).split(/(?=HTTP\/1\.1 )/);
    expect(answers.map((a) => a.slice(0, 12))).toEqual(["HTTP/1.1 413"]);
    expect(answers[0]!.toLowerCase()).toContain("connection: close");
    // The DELETE behind it ran before (its answer lost with the connection): the customer was gone.
    expect((await fetch(`${server.url}/v1/api/DEMO/Customer/${CustomerId}`, { headers: auth })).status).toBe(200);
  });

  it("keeps an idle connection longer than a client keeps one, and says so, so the client closes first", async () => {
    // A connection the server closes while the client reuses it loses the client's request
    // (ECONNRESET): fetch keeps an idle one 4 s, and less than the server's Keep-Alive hint.
    const res = await fetch(`${server.url}/__mock/clock`);
    await res.arrayBuffer();
    expect(res.headers.get("keep-alive")).toBe(`timeout=${KEEP_ALIVE_MS / 1000}`);
    expect(KEEP_ALIVE_MS).toBeGreaterThan(4_000);
  });

  it("answers 401 with the Bearer challenge without a token", async () => {
    const res = await fetch(`${server.url}/v1/api/DEMO/CustomerInfoList`);
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe('Bearer realm="bawa"');
  });

  it("refuses a body over 1 MiB with 413 and keeps serving", async () => {
    const res = await fetch(`${server.url}/v1/api/DEMO/Customer`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ Name: "x".repeat(1024 * 1024) }),
    });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { Message: string }).Message).toMatch(/larger than the 1 MiB/);
    expect((await fetch(`${server.url}/v1/api/DEMO/Customer/1001`, { headers: auth })).status).toBe(200);
  });

  it("reads the whole of a body over the limit before its 413, so the client gets the answer", async () => {
    // Answered while the client still sent, the 413 was lost now and then: the connection closed
    // under the client's writes ("other side closed"), a race that a loaded machine won.
    const part = "x".repeat(512 * 1024);
    const head = `POST /v1/api/DEMO/Customer HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${auth.authorization}\r\nContent-Type: application/json\r\nContent-Length: ${part.length * 3}\r\n\r\n`;
    const seen = await new Promise<{ answer: string; answeredBeforeLastPart: boolean }>((resolve, reject) => {
      let answer = "";
      let lastPartSent = false;
      let answeredBeforeLastPart = false;
      const socket = connect(Number(new URL(server.url).port), "127.0.0.1", async () => {
        socket.write(head);
        for (let i = 0; i < 3; i++) {
          await new Promise((r) => setTimeout(r, 100));
          socket.write(part);
        }
        lastPartSent = true;
      });
      socket.on("data", (d) => {
        if (!lastPartSent) answeredBeforeLastPart = true;
        answer += d;
      });
      socket.on("close", () => resolve({ answer, answeredBeforeLastPart }));
      socket.on("error", reject);
    });
    expect(seen.answer).toMatch(/^HTTP\/1.1 413 /);
    expect(seen.answeredBeforeLastPart).toBe(false);
  });

  it("refuses a streamed body that grows over the limit without Content-Length", async () => {
    const chunk = "x".repeat(64 * 1024);
    const body = new ReadableStream({
      start(c) {
        for (let i = 0; i < 20; i++) c.enqueue(new TextEncoder().encode(chunk));
        c.close();
      },
    });
    const res = await fetch(`${server.url}/v1/api/DEMO/Customer`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body,
      duplex: "half",
    } as RequestInit);
    expect(res.status).toBe(413);
  });

  it("answers garbage and oversized headers with 4xx and keeps serving", async () => {
    expect(await raw("NOT HTTP AT ALL\r\n\r\n")).toMatch(/^HTTP\/1.1 400/);
    expect(
      await raw(`GET /v1/api/DEMO/Customer/1001 HTTP/1.1\r\nHost: x\r\nX-Long: ${"a".repeat(20_000)}\r\n\r\n`),
    ).toMatch(/^HTTP\/1.1 431/);
    expect((await fetch(`${server.url}/v1/api/DEMO/Customer/1001`, { headers: auth })).status).toBe(200);
  });

  it("answers a huge path segment with 404", async () => {
    const res = await fetch(`${server.url}/v1/api/DEMO/Customer/${"9".repeat(8000)}`, { headers: auth });
    expect(res.status).toBe(404);
  });
});

describe("stopping", () => {
  it("answers a write whose body ended in the turn the server stops in, before the connections go", async () => {
    // A signal read in the same poll phase as a body's end closes the server while the write waits
    // for the end of the turn (turn.ts): it is done and answered first, not after the server stopped.
    const mock = buildMock();
    const own = await listen(mock, { host: "127.0.0.1", port: 0 });
    const token = `Bearer ${codeFlowTokens(mock).access_token}`;
    let closing: Promise<void> | undefined;
    own.server.on("request", (req) => req.on("end", () => (closing ??= own.close())));
    const body = JSON.stringify({ CustomerId: "", Name: "Laatste B.V." });
    const answer = await new Promise<string>((resolve, reject) => {
      const { port } = new URL(own.url);
      const socket = connect(Number(port), "127.0.0.1", () =>
        socket.write(http1("POST /v1/api/DEMO/Customer", { host: `127.0.0.1:${port}`, authorization: token, body })),
      );
      let data = "";
      socket.on("data", (d) => (data += d));
      socket.on("close", () => resolve(data));
      socket.on("error", reject);
    });
    await closing;
    expect(answer.slice(0, 12)).toBe("HTTP/1.1 200");
    expect(answer).toContain('"Name":"Laatste B.V."');
    const listed = mock.handle({
      method: "GET",
      url: "/v1/api/DEMO/CustomerInfoList",
      headers: { authorization: token },
      body: undefined,
    });
    expect(String(listed.body)).toContain("Laatste B.V.");
  });
});

describe("a moved clock, as answers name it", () => {
  it("is named once moved, at the time each answer was decided (a delay and a 413 included), with Date to match", async () => {
    const mock = buildMock();
    const own = await listen(mock, { host: "127.0.0.1", port: 0 });
    try {
      const list = `${own.url}/v1/api/DEMO/CustomerInfoList`;
      expect((await fetch(list)).headers.get(CLOCK_HEADER)).toBeNull();
      mock.clock.advance(3_600);
      const asked = Date.now();
      const delayed = await fetch(list, { headers: { prefer: "delay=300" } });
      const shown = readClockHeader(delayed.headers.get(CLOCK_HEADER) ?? "");
      // Decided at once, written after its 300 ms: named when it was decided, on the moved clock.
      expect(shown).toBeGreaterThanOrEqual(asked + 3_600_000);
      expect(shown).toBeLessThan(Date.now() + 3_600_000 - 250);
      expect(Date.parse(delayed.headers.get("date") ?? "")).toBe(Math.floor(shown! / 1000) * 1000);
      const tooLarge = await fetch(`${own.url}/v1/api/DEMO/Customer`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "x".repeat(BODY_LIMIT_BYTES + 1),
      });
      expect(tooLarge.status).toBe(413);
      expect(readClockHeader(tooLarge.headers.get(CLOCK_HEADER) ?? "")).toBeGreaterThan(Date.now() + 3_500_000);
      // Back to the real time: still named, so a judge in front follows it back.
      mock.clock.reset();
      const after = readClockHeader((await fetch(list)).headers.get(CLOCK_HEADER) ?? "");
      expect(Math.abs(after! - Date.now())).toBeLessThan(5_000);
    } finally {
      await own.close();
    }
  });
});
