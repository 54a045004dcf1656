// The request log as `npm start` prints it: the lines, and none lost when the mock is stopped.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it, onTestFinished } from "vitest";
import { isoTime, MAX_DATE_MS } from "../mock/core/clock.ts";
import type { Entry } from "../mock/core/request-log.ts";
import { backgroundTokens } from "../mock/node/client.ts";
import { spawnMock } from "../mock/testing.ts";
import { PROJECT_ROOT } from "../paths.ts";
import { printable } from "../printable.ts";
import { requestLine } from "./request-lines.ts";

const AT = Date.UTC(2026, 10, 24, 9, 30);
const entry = { id: 1, at: AT, mockAt: AT, method: "POST", status: 400, ms: 1.25 };

describe("a request's line", () => {
  it("says when, what, the answer and its time; then the problem, the ignored properties and each broken rule", () => {
    expect(requestLine({ ...entry, path: "/v1/api/DEMO/Customer" })).toBe(
      "2026-11-24T09:30:00.000Z POST /v1/api/DEMO/Customer -> 400 (1.3 ms)",
    );
    expect(
      requestLine({
        ...entry,
        path: `/${"p".repeat(120)}`,
        problem: "x".repeat(200),
        ignored: ["Foo", "Bar"],
        violations: [
          { requirement: "DATA-JSON", where: "body", expected: "an object" },
          { requirement: "ERR-400", where: "status", expected: "400", found: "500" },
        ],
      }),
    ).toBe(
      `2026-11-24T09:30:00.000Z POST /${"p".repeat(99)}... -> 400 (1.3 ms) ${"x".repeat(160)} [ignored: Foo, Bar]` +
        "\n    ✗ DATA-JSON body: expected an object\n    ✗ ERR-400 status: expected 400, found 500",
    );
    // Once the mock's clock was moved: the time on it as well, what tokens age by.
    expect(requestLine({ ...entry, mockAt: AT + 7_260_000, path: "/" })).toBe(
      "2026-11-24T09:30:00.000Z POST / -> 400 (1.3 ms; mock clock 2026-11-24T11:31:00.000Z)",
    );
  });
});

describe("a line of what a request chose", () => {
  it("shows a terminal's control characters as escapes: a request can not clear the screen or forge a line", () => {
    const forged = "2026-11-30T01:00:00.000Z POST /__mock/reset -> 200 (0.1 ms)";
    const line = requestLine({
      ...entry,
      path: "/v1/api/\u001b[2J/CustomerInfoList",
      problem: `No application is registered with client_id \u001b]0;OWNED\u0007\n${forged}`,
      ignored: ["x\r\nSet-Cookie: evil=1", "\u202etxt.exe", "\u0085"],
      violations: [{ requirement: "DATA-JSON", where: "body.\u001bc", expected: "an object", found: "\u009b31m" }],
    });
    expect(line).toBe(
      "2026-11-24T09:30:00.000Z POST /v1/api/\\x1b[2J/CustomerInfoList -> 400 (1.3 ms) " +
        `No application is registered with client_id \\x1b]0;OWNED\\x07\\x0a${forged} ` +
        "[ignored: x\\x0d\\x0aSet-Cookie: evil=1, \\u202etxt.exe, \\x85]" +
        "\n    ✗ DATA-JSON body.\\x1bc: expected an object, found \\x9b31m",
    );
    // One line per request, and one more per broken rule: nothing the request sent breaks a line.
    expect(line.split("\n")).toHaveLength(2);
    expect(printable("Zeist é 東京 𝄞")).toBe("Zeist é 東京 𝄞");
  });
});

describe("a line's time", () => {
  it("is isoTime's text for every instant, though the line reuses the text of its second", () => {
    const at = (ms: number) =>
      requestLine({ ...entry, at: ms, path: "/" })
        .split(" -> ")[0]!
        .replace(" POST /", "");
    const instants = [0, 1, 9, 10, 99, 100, 999, 1000, 1001, 59_999, 60_000, Date.UTC(2026, 10, 24, 9, 30, 59, 7)];
    // Years past 9999 have a longer text; past the calendar's end, and fractions, take isoTime's own way.
    instants.push(253_402_300_799_999, 253_402_300_800_000, MAX_DATE_MS - 1, MAX_DATE_MS, -1, -1001, 1.5);
    for (let i = 0; i < 2_000; i++) instants.push(Math.floor(Math.random() * MAX_DATE_MS));
    // Twice in a row within one second, then back to an earlier one: the kept second must not leak.
    instants.push(5_000_123, 5_000_456, 4_999_999, 5_000_000);
    for (const ms of instants) expect(at(ms), String(ms)).toBe(isoTime(ms));
  });
});

describe("the printed request log", () => {
  it("holds the line of every answered request when the mock is stopped with SIGTERM under load", async () => {
    const { child, url } = await spawnMock([], { log: true });
    let out = "";
    child.stdout!.setEncoding("utf8").on("data", (d: string) => {
      out += d;
    });
    const exited = new Promise<number | null>((done) => child.on("exit", done));
    const { access } = await backgroundTokens(url);
    // Bounded load on loopback: 8 keep-alive connections, each asking until the mock goes away
    // (or 4,000 requests in all); every request has its own number in the query.
    const agent = new Agent({ keepAlive: true, maxSockets: 8 });
    const answered: number[] = [];
    let next = 0;
    const ask = (n: number) =>
      new Promise<boolean>((done) => {
        const req = request(`${url}/v1/api/DEMO/Customer/1001?n=${n}`, {
          agent,
          headers: { authorization: `Bearer ${access}` },
        });
        req.on("response", (res) => {
          res.resume();
          res.on("end", () => {
            if (res.statusCode === 200) answered.push(n);
            done(true);
          });
          res.on("error", () => done(false));
        });
        req.on("error", () => done(false));
        req.end();
      });
    const client = async () => {
      while (next < 4_000) if (!(await ask(next++))) return;
    };
    const clients = Array.from({ length: 8 }, client);
    // Stopped in the middle of the load: once some hundreds are answered.
    while (answered.length < 300 && next < 4_000) await new Promise((r) => setTimeout(r, 5));
    child.kill("SIGTERM");
    await Promise.all(clients);
    agent.destroy();
    expect(await exited).toBe(0);
    expect(answered.length).toBeGreaterThanOrEqual(300);
    const logged = new Set(
      [...out.matchAll(/ GET \/v1\/api\/DEMO\/Customer\/1001\?n=(\d+) -> 200 /g)].map((m) => m[1]),
    );
    expect(answered.filter((n) => !logged.has(String(n)))).toEqual([]);
    expect(out.trimEnd().endsWith("bawa mock stopped")).toBe(true);
  }, 60_000);

  it("shows a lone request's line while the mock goes on, not only when a batch fills or it stops", async () => {
    const { child, url } = await spawnMock([], { log: true });
    try {
      let out = "";
      child.stdout!.setEncoding("utf8").on("data", (d: string) => {
        out += d;
      });
      const res = await fetch(`${url}/v1/api/DEMO/Customer/1001?lone=1`);
      expect(res.status).toBe(401);
      // A person at a terminal sees it at once; a log that waited for a batch to fill, or for the
      // exit, would show it only when the mock stopped: never, here.
      const line = / GET \/v1\/api\/DEMO\/Customer\/1001\?lone=1 -> 401 /;
      const deadline = Date.now() + 5_000;
      while (!line.test(out) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(out).toMatch(line);
      expect(child.exitCode).toBeNull();
    } finally {
      child.kill();
    }
  });

  it("writes every line in order when the process exits: text beyond ASCII, lines too long for the batch's room or for any batch", async () => {
    // The entries are printed by a process of their own that exits after recording them (no signal:
    // what is gathered is written on exit). The long line, 400 broken rules of 100-odd characters
    // each, is longer than a batch of 64 KB can hold at 3 bytes a character: written on its own.
    const at = Date.UTC(2026, 10, 24, 9, 30);
    const one = (i: number | string, more: Partial<Entry> = {}): Entry => ({
      id: 0,
      at,
      mockAt: at,
      method: "GET",
      path: `/v1/api/DEMO/Customer/${i}?q=é€😀`,
      status: 200,
      ms: 0.5,
      ...more,
    });
    const broken = Array.from({ length: 400 }, (_, k) => ({
      requirement: "CUST-FIELDS",
      where: `${"€".repeat(100)}${k}`,
      expected: "a string",
    }));
    // A line that fits an empty batch but not the room left after 150 short ones (which stay under
    // the 16 KB that hands a batch over): the batch goes first, the line starts the next. Its bytes,
    // not only its bound of 3 a character, overflow that room: a batch written past its end would
    // lose the line's tail.
    const dense = Array.from({ length: 50 }, (_, k) => ({
      requirement: "CUST-FIELDS",
      where: `${"€".repeat(200)}${k}`,
      expected: "€".repeat(200),
    }));
    const middle = one("middle", { status: 400, violations: dense });
    const bytes = (e: Entry) => Buffer.byteLength(`${requestLine(e)}\n`);
    expect(150 * bytes(one(299))).toBeLessThan(16_384);
    expect(3 * (requestLine(middle).length + 1)).toBeLessThanOrEqual(65_536);
    expect(150 * bytes(one(299)) + bytes(middle)).toBeGreaterThan(65_536);
    const entries = [
      ...Array.from({ length: 150 }, (_, i) => one(i)),
      middle,
      ...Array.from({ length: 150 }, (_, i) => one(150 + i)),
      one("long", { status: 400, violations: broken }),
      ...Array.from({ length: 10 }, (_, i) => one(300 + i)),
    ];
    const module = (path: string) => JSON.stringify(pathToFileURL(resolve(PROJECT_ROOT, path)).href);
    const script = `import { RequestLog } from ${module("src/mock/core/request-log.ts")};
      import { printRequests } from ${module("src/cli/request-lines.ts")};
      const log = new RequestLog();
      printRequests(log, "test");
      for (const e of ${JSON.stringify(entries)}) log.record(e);`;
    const dir = mkdtempSync(join(tmpdir(), "bawa-request-lines-"));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, "print.mts"), script);
    const child = spawn(process.execPath, ["--import", "tsx", join(dir, "print.mts")], { cwd: PROJECT_ROOT });
    const chunks: Buffer[] = [];
    child.stdout.on("data", (d: Buffer) => chunks.push(d));
    let errors = "";
    child.stderr.on("data", (d) => (errors += d));
    expect(await new Promise((done) => child.on("close", done)), errors).toBe(0);
    const expected = entries.map((e) => `${requestLine(e)}\n`).join("");
    expect(expected.length * 3).toBeGreaterThan(65_536 + 16_384);
    expect(Buffer.concat(chunks).toString("utf8")).toBe(expected);
  }, 30_000);
});
