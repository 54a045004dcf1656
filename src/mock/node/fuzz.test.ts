// The one invariant of the adapter, tested by fuzzing a mock in its own
// process over a real port: whatever arrives, every connection gets an
// answer, no answer is a 5xx, and the process stays up and keeps serving.
import type { ChildProcess } from "node:child_process";
import { connect } from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedAccounts } from "../seed.ts";
import { spawnMock } from "../testing.ts";
import { backgroundTokens } from "./client.ts";

const SECONDS = Number(process.env.BAWA_FUZZ_SECONDS ?? 8);
const SEED = Number(process.env.BAWA_FUZZ_SEED ?? (process.env.CI ? 20261121 : Date.now() % 2 ** 31));
// In CI a fixed count on the fixed seed: the same requests every run, whatever the machine's
// load (an idle one sent about 11,500 in the 8 s, a busy one fewer), so a failure there replays;
// the time still bounds it. Elsewhere as many as the time allows, on a new seed each run.
const RUNS = Number(process.env.BAWA_FUZZ_RUNS ?? (process.env.CI ? 5_000 : 100_000));

let child: ChildProcess;
let base: string;
let token = "";

const freshToken = async () => (await backgroundTokens(base)).access;

beforeAll(async () => {
  ({ child, url: base } = await spawnMock());
  token = await freshToken();
}, 30_000);
afterAll(() => {
  if (child.exitCode === null) child.kill("SIGKILL");
});

/** Sends raw bytes; resolves with everything the server wrote before it closed the connection. */
function exchange(request: Buffer): Promise<string> {
  return new Promise((resolve) => {
    const { port } = new URL(base);
    const socket = connect(Number(port), "127.0.0.1", () => socket.end(request));
    let data = "";
    socket.setTimeout(10_000, () => socket.destroy());
    socket.on("data", (d) => (data += d.toString("latin1")));
    socket.on("close", () => resolve(data));
    socket.on("error", () => undefined);
  });
}

const word = fc.constantFrom(
  "v1",
  "V1",
  "v2",
  "api",
  "API",
  "DEMO",
  "OTHER",
  "Customer",
  "customer",
  "CustomerInfoList",
  "1001",
  "2001",
  "OAuth",
  "Authorize",
  "Token",
  "Login",
  "Permission",
  "portal",
  "applications",
  seedAccounts().app.clientId,
  "redirect-uri",
  "__mock",
  "clock",
  "reset",
  "refresh-tokens",
  "activate",
  "..",
  ".",
  "",
  "%00",
  "%E2%82%AC",
  "%0D%0A",
  "%zz",
  "1008.json",
  "x.xml",
  "%F0%9F%92%A5",
  "a%2Fb",
);
const segment = fc.oneof({ weight: 4, arbitrary: word }, fc.string({ maxLength: 12 }).map(encodeURIComponent));
const query = fc.oneof(
  fc.constant(""),
  fc
    .array(
      fc.tuple(
        fc.constantFrom(
          "client_id",
          "redirect_uri",
          "scope",
          "response_type",
          "state",
          "request",
          "$top",
          "$filter",
          "__code",
        ),
        fc.string({ maxLength: 20 }),
      ),
      { maxLength: 4 },
    )
    .map((pairs) => `?${new URLSearchParams(pairs)}`),
  fc.string({ maxLength: 30 }).map((s) => `?${encodeURIComponent(s)}`),
  // Filters nested or long enough to hold a parser for seconds, once: refused by their length,
  // depth or number of conditions before they are parsed.
  fc
    .tuple(fc.integer({ min: 0, max: 5_000 }), fc.integer({ min: 0, max: 5_000 }), fc.integer({ min: 1, max: 60 }))
    .map(
      ([open, close, terms]) =>
        `?${new URLSearchParams({ $filter: `${"(".repeat(open)}${Array.from({ length: terms }, (_, i) => `Name eq 'x${i}'`).join(" or ")}${")".repeat(close)}` })}`,
    ),
);
// Half the paths follow the API's own shapes with one slot or more filled at random, so
// the generator reaches the handlers behind routing; the rest are free.
const shaped = fc
  .tuple(
    fc.constantFrom("v1", "V1", "v9"),
    fc.constantFrom("api/{db}/CustomerInfoList", "api/{db}/Customer", "api/{db}/Customer/{id}", "OAuth/{oauth}"),
    segment,
    segment,
    fc.constantFrom("Authorize", "Token", "Login", "Permission"),
  )
  .map(
    ([v, shape, db, id, oauth]) => `/${v}/${shape.replace("{db}", db).replace("{id}", id).replace("{oauth}", oauth)}`,
  );
const free = fc.array(segment, { minLength: 1, maxLength: 6 }).map((s) => `/${s.join("/")}`);
// The mock's own paths spelled every way a client can: case, percent-encoding, dot segments, doubled slashes.
const spelled = fc
  .tuple(
    fc.constantFrom("__mock", "__MOCK", "%5f%5fmock", "%5F%5Fmock", "__Mock"),
    fc.constantFrom("", "/", "/.", "/x/..", "//", "/%2e"),
    fc.constantFrom("applications", "rules", "reset", "clock", "tokens", "scenarios/csrf-off", "", "dashboard.js"),
  )
  .map(([root, noise, rest]) => `/${root}${noise}/${rest}`);
const path = fc.tuple(fc.oneof(shaped, free, spelled), query).map(([p, q]) => `${p}${q}`);
const method = fc.constantFrom("GET", "POST", "PUT", "DELETE", "HEAD", "OPTIONS", "PATCH", "TRACE", "BREW");
// Header values as bytes a client could send: printable ASCII and bytes beyond it, never CR or LF.
const headerValue = fc.oneof(
  fc.string({ maxLength: 40 }).map((s) => s.replace(/[\r\n]/g, "")),
  fc
    .uint8Array({ maxLength: 20 })
    .map((a) => Buffer.from(a.map((b) => (b === 10 || b === 13 ? 32 : b))).toString("latin1")),
);
const headers = fc.record(
  {
    authorization: fc.oneof(
      fc.constant("VALID"),
      headerValue.map((v) => `Bearer ${v}`),
      headerValue,
    ),
    "content-type": fc.oneof(
      fc.constantFrom(
        "application/json",
        "application/xml",
        "text/xml",
        "application/x-www-form-urlencoded",
        "text/plain",
        "application/json; charset=latin1",
      ),
      headerValue,
    ),
    accept: fc.oneof(
      fc.constantFrom("application/json", "application/xml", "text/xml", "*/*", "image/png;q=0"),
      headerValue,
    ),
    origin: fc.oneof(fc.constantFrom("http://localhost:5173", "http://attacker.example", "null"), headerValue),
    cookie: headerValue,
    prefer: fc.oneof(fc.constantFrom("code=404", "code=500", "delay=10", "code=999"), headerValue),
  },
  { requiredKeys: [] },
);
const jsonValue = fc.jsonValue({ maxDepth: 4 });
const body = fc.oneof(
  fc.constant(Buffer.alloc(0)),
  fc
    .record(
      {
        Name: fc.oneof(fc.string({ maxLength: 50 }), jsonValue),
        City: jsonValue,
        Addresses: jsonValue,
        CocDate: fc.string({ maxLength: 12 }),
      },
      { requiredKeys: [] },
    )
    .map((o) => Buffer.from(JSON.stringify(o))),
  jsonValue.map((v) => Buffer.from(JSON.stringify(v))),
  fc.string({ maxLength: 200 }).map((s) => Buffer.from(`<Customer><Name>${s}</Name></Customer>`)),
  fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)),
  fc.string({ maxLength: 200 }).map((s) => Buffer.from(s)),
);

function request(m: string, p: string, h: Record<string, string>, b: Buffer): Buffer {
  const lines = [`${m} ${p} HTTP/1.1`, `Host: ${new URL(base).host}`, "Connection: close"];
  for (const [k, v] of Object.entries(h)) lines.push(`${k}: ${v === "VALID" ? `Bearer ${token}` : v}`);
  if (b.length > 0 || m === "POST" || m === "PUT") lines.push(`Content-Length: ${b.length}`);
  return Buffer.concat([Buffer.from(`${lines.join("\r\n")}\r\n\r\n`, "latin1"), b]);
}

describe("whatever arrives", () => {
  it(`every connection gets an answer, never a 5xx, and the mock stays up (${RUNS} generated requests, at most ${SECONDS} s)`, async () => {
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(method, path, headers, body, async (m, p, h, b) => {
        runs++;
        const answer = await exchange(request(m, p, h, b));
        const status = /^HTTP\/1\.1 (\d{3}) /.exec(answer)?.[1];
        expect(status, `no answer to ${m} ${p}`).toBeDefined();
        // A 5xx only when the client asked for one (Prefer: code=500), and then marked as forced.
        const asked = /\r\nx-bawa-forced: /i.test(answer.split("\r\n\r\n")[0] ?? "");
        if (!asked) expect(Number(status), `${m} ${p} -> ${answer.slice(0, 300)}`).toBeLessThan(500);
        expect(child.exitCode, "the mock exited").toBeNull();
      }),
      { seed: SEED, numRuns: RUNS, interruptAfterTimeLimit: SECONDS * 1000, markInterruptAsFailure: false },
    );
    expect(runs).toBeGreaterThan(100);
    // The clock may have moved and the seed been reset: a new token, then a normal call.
    token = await freshToken();
    const res = await fetch(`${base}/v1/api/DEMO/Customer/1001`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
  }, 60_000);
});
