// `bawa conformance` as a team uses it against an environment: read-only runs
// that change nothing, cleanup of what runs left behind, retries of busy
// answers, shards merged into one verdict. Each runs the compiled command line
// against a mock in its own process.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writeCopy } from "../../scripts/copy-resource.mjs";
import { backgroundTokens } from "../mock/node/client.ts";
import { spawnMock } from "../mock/testing.ts";
import { ownMockSettings } from "./conformance.ts";
import { conformanceHarness, verdicts } from "./conformance-testing.ts";

const h = conformanceHarness();

/**
 * A rate-limiting gateway in front of the mock, as real environments have: every `every`-th API
 * request is answered busy without reaching the mock, alternately 429 with Retry-After in seconds
 * and 503 with Retry-After as an HTTP-date, up to `most` busy answers (each
 * retried answer costs the run a second of waiting: a few show the retries as well as many).
 */
async function busyGateway(every: number, most: number) {
  let apiRequests = 0;
  const state = { busy: 0, url: "", server: undefined as unknown as Server, most };
  state.server = createServer((req, res) => {
    if (/\/api\//i.test(req.url ?? "") && ++apiRequests % every === 0 && state.busy < state.most) {
      state.busy++;
      const seconds429 = state.busy % 2 === 1;
      req.resume();
      res
        .writeHead(seconds429 ? 429 : 503, {
          "retry-after": seconds429 ? "1" : new Date(Date.now() + 1000).toUTCString(),
        })
        .end();
      return;
    }
    const upstream = request(new URL(req.url ?? "/", h.url), { method: req.method, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((r) => state.server.listen(0, "127.0.0.1", r));
  state.url = `http://127.0.0.1:${(state.server.address() as AddressInfo).port}`;
  return state;
}

// A new token each time: the suite moves the mock's clock past the lifetime of earlier ones.
const fresh = async () => ({
  authorization: `Bearer ${(await backgroundTokens(h.url)).access}`,
  accept: "application/json",
});

async function customers(): Promise<Array<{ CustomerId: string; Name: string }>> {
  const res = await fetch(`${h.url}/v1/api/DEMO/CustomerInfoList`, { headers: await fresh() });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`CustomerInfoList answered ${res.status}: ${text}`);
  return JSON.parse(text);
}
const everyCustomer = async () => {
  const auth = await fresh();
  return Promise.all(
    (await customers()).map((c) =>
      fetch(`${h.url}/v1/api/DEMO/Customer/${c.CustomerId}`, { headers: auth }).then((r) => r.text()),
    ),
  );
};
const create = async (Name: string) =>
  fetch(`${h.url}/v1/api/DEMO/Customer`, {
    method: "POST",
    headers: { ...(await fresh()), "content-type": "application/json" },
    body: JSON.stringify({ Name }),
  }).then((r) => r.json() as Promise<{ CustomerId: string }>);
describe("bawa conformance against an environment", () => {
  it("--read-only creates, changes and deletes nothing, and still checks every rule that needs no write", async () => {
    const before = await everyCustomer();
    const { code, out } = await h.bawa(["--read-only", "--output", "read-only"]);
    expect(code, out).toBe(0);
    expect(await everyCustomer()).toEqual(before);
    const log = (await fetch(`${h.url}/__mock/requests`).then((r) => r.json())) as {
      entries: Array<{ method: string; path: string }>;
    };
    expect(
      log.entries.filter((r) => r.method !== "GET" && /\/api\//i.test(r.path)).map((r) => `${r.method} ${r.path}`),
    ).toEqual([]);
    const summary = JSON.parse(readFileSync(join(h.dir, "read-only/summary.json"), "utf8"));
    expect(summary.totals["not run (read-only)"]).toBeGreaterThan(0);
    expect(summary.totals.failed).toBe(0);
    expect(verdicts(join(h.dir, "read-only/summary.json"))).toMatchObject({
      "ERR-200": "passed",
      "CUST-FIELDS": "passed",
      "SVC-FORMATS": "passed",
      "CUST-CREATE-ID": "not run (read-only)",
    });
  }, 180_000);

  it("cleanup lists what runs left behind and with --yes removes exactly those", async () => {
    const left = [await create("Conformance 0a1b2c3d"), await create("Conformance ffee0011")];
    const kept = [
      await create("Conformance Ltd"),
      await create("Conformance 0a1b2c3d extra"),
      await create("Other 0a1b2c3d"),
    ];
    const before = (await customers()).map((c) => c.CustomerId);

    const listed = await h.bawa(["cleanup"]);
    expect(listed.code, listed.out).toBe(0);
    for (const c of left) expect(listed.out).toContain(c.CustomerId);
    expect((await customers()).map((c) => c.CustomerId)).toEqual(before);

    const removed = await h.bawa(["cleanup", "--yes"]);
    expect(removed.code, removed.out).toBe(0);
    const after = (await customers()).map((c) => c.CustomerId);
    expect(after).toEqual(before.filter((id) => !left.some((c) => c.CustomerId === id)));
    for (const c of kept) expect(after).toContain(c.CustomerId);
  }, 60_000);

  it("cleanup removes what runs left in every editable resource of the contract, saying so per resource", async () => {
    // The suite creates objects of each editable resource: a Supplier on a contract that has one too.
    const dir = mkdtempSync(join(tmpdir(), "bawa-cleanup-"));
    const contract = writeCopy({ from: "Customer", to: "Supplier", out: join(dir, "openapi.yaml") });
    const mock = await spawnMock(["--contract", contract]);
    try {
      const settings = ownMockSettings(mock.url, (await backgroundTokens(mock.url)).refresh);
      const auth = { authorization: `Bearer ${(await backgroundTokens(mock.url)).access}`, accept: "application/json" };
      const post = (resource: string, Name: string) =>
        fetch(`${mock.url}/v1/api/DEMO/${resource}`, {
          method: "POST",
          headers: { ...auth, "content-type": "application/json" },
          body: JSON.stringify({ Name }),
        }).then((r) => r.json() as Promise<Record<string, string>>);
      const ids = async (resource: string) =>
        (
          (await fetch(`${mock.url}/v1/api/DEMO/${resource}InfoList`, { headers: auth }).then((r) =>
            r.json(),
          )) as Array<Record<string, string>>
        ).map((o) => o[`${resource}Id`]);
      const supplier = (await post("Supplier", "Conformance 0a1b2c3d")).SupplierId!;
      const customer = (await post("Customer", "Conformance ffee0011")).CustomerId!;
      const kept = (await post("Supplier", "Conformance Ltd")).SupplierId!;

      const listed = await h.bawa(["cleanup", "--contract", contract], settings);
      expect(listed.code, listed.out).toBe(0);
      expect(listed.out).toMatch(new RegExp(`Customer: 1 left behind by runs\n +${customer} +Conformance ffee0011\n`));
      expect(listed.out).toMatch(new RegExp(`Supplier: 1 left behind by runs\n +${supplier} +Conformance 0a1b2c3d\n`));

      const removed = await h.bawa(["cleanup", "--yes", "--contract", contract], settings);
      expect(removed.code, removed.out).toBe(0);
      expect(removed.out).toContain("Customer: deleted 1 of 1");
      expect(removed.out).toContain("Supplier: deleted 1 of 1");
      expect(await ids("Supplier")).not.toContain(supplier);
      expect(await ids("Supplier")).toContain(kept);
      expect(await ids("Customer")).not.toContain(customer);
    } finally {
      mock.child.kill();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it("a config file with a key that is no setting is refused with exit 2, naming it and the nearest setting", async () => {
    const file = join(h.dir, "mistyped.yaml");
    writeFileSync(file, `BASE_URL: ${h.url}\nCLIENT_ID: c\nCLIENT_SECRT: s\n`);
    for (const args of [
      ["--config", file],
      ["cleanup", "--config", file],
    ]) {
      const run = await h.bawa(args, {});
      expect(run.code, run.out).toBe(2);
      expect(run.out).toContain(
        `CONFORMANCE_CONFIG ${file}: unknown setting CLIENT_SECRT (did you mean CLIENT_SECRET?)`,
      );
    }
  }, 30_000);

  it("answers 429 and 503 are retried as Retry-After says, and the summary counts the requests and the retries", async () => {
    const grep = ["--grep", "ERR-|CUST-FIELDS|INFO-LIST"];
    const gateway = await busyGateway(7, 4);
    try {
      const run = await h.bawa([...grep, "--output", "busy"], { ...h.settings, CONFORMANCE_BASE_URL: gateway.url });
      expect(run.code, run.out).toBe(0);
      expect(gateway.busy).toBe(4);
      const summary = JSON.parse(readFileSync(join(h.dir, "busy/summary.json"), "utf8"));
      expect(summary.requests).toMatchObject({ retried: gateway.busy, refused: 0 });
      expect(summary.requests.requests).toBeGreaterThan(gateway.busy * 6);
      expect(run.out).toContain(`requests: ${summary.requests.requests} sent, ${gateway.busy} retried after 429/503`);

      // Without retries every busy answer reaches the check, fails it, and is counted.
      const before = gateway.busy;
      gateway.most += 4;
      const strict = await h.bawa([...grep, "--output", "busy-strict"], {
        ...h.settings,
        CONFORMANCE_BASE_URL: gateway.url,
        CONFORMANCE_RETRIES: "0",
      });
      expect(strict.code, strict.out).toBe(1);
      const counted = JSON.parse(readFileSync(join(h.dir, "busy-strict/summary.json"), "utf8")).requests;
      expect(counted).toMatchObject({ retried: 0, refused: gateway.busy - before });
    } finally {
      gateway.server.close();
    }
  }, 180_000);

  it("two shards merged give the same matrix as one run", async () => {
    const grep = ["--grep", "ERR-|VER-|TOKEN-RESPONSE|CUST-NAMES"];
    const whole = await h.bawa([...grep, "--output", "whole"]);
    expect(whole.code, whole.out).toBe(0);
    for (const part of ["1/2", "2/2"]) {
      const run = await h.bawa([...grep, "--shard", part, "--output", `shard-${part[0]}`]);
      expect(run.code, run.out).toBe(0);
    }
    const merged = await h.bawa(["merge", "shard-1", "shard-2", "--output", "merged"]);
    expect(merged.code, merged.out).toBe(0);
    const one = verdicts(join(h.dir, "whole/summary.json"));
    expect(Object.values(one).filter((v) => v === "passed").length).toBeGreaterThan(5);
    expect(verdicts(join(h.dir, "merged/summary.json"))).toEqual(one);
  }, 180_000);
});
