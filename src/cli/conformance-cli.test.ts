// `bawa conformance` as a team uses it against an environment: read-only runs
// that change nothing, cleanup of what runs left behind (retries of busy answers
// and shards merged into one verdict: conformance-runs.test.ts, a file of its own
// so vitest runs the two side by side). Each runs the compiled command line
// against a mock in its own process.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
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
 * A mock of its own on the project's contract with the customer copied as Supplier (a team's
 * contract with a resource of its own), its folder and its settings; stopped and removed after `use`.
 */
async function withSupplierMock(
  prefix: string,
  use: (m: {
    dir: string;
    contract: string;
    mock: Awaited<ReturnType<typeof spawnMock>>;
    settings: Record<string, string>;
  }) => Promise<void>,
): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const contract = writeCopy({ from: "Customer", to: "Supplier", out: join(dir, "openapi.yaml") });
  const mock = await spawnMock(["--contract", contract]);
  try {
    const settings = ownMockSettings(mock.url, (await backgroundTokens(mock.url)).refresh);
    await use({ dir, contract, mock, settings });
  } finally {
    mock.child.kill();
    rmSync(dir, { recursive: true, force: true });
  }
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
    await withSupplierMock("bawa-cleanup-", async ({ contract, mock, settings }) => {
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
    });
  }, 60_000);

  it("every setting of a config file takes effect as its flag does: contract, kinds, strict, reports, workers, address", async () => {
    // A new user's CI gate: each of these was shown or taken, then not used (the project's contract
    // checked, no assumption check run, a not-verified requirement passing a strict run, the
    // reports and workers the defaults, the target "(not set)").
    await withSupplierMock("bawa-config-file-", async ({ dir, contract, mock, settings }) => {
      // No pending application: AUTH-REGISTRATION is not verified, which fails a strict run.
      const shared = Object.entries(settings).filter(
        ([k]) => !k.startsWith("CONFORMANCE_PENDING_") && k !== "CONFORMANCE_KINDS",
      );
      const file = join(dir, "bawa.yaml");
      writeFileSync(
        file,
        [
          ...shared.map(([k, v]) => `${k.replace(/^CONFORMANCE_/, "")}: ${JSON.stringify(v)}`),
          `CONTRACT: ${contract}`,
          "KINDS: spec,oauth,assumption",
          "STRICT: 1",
          "REPORTS_DIR: from-file",
          "WORKERS: 2",
        ].join("\n"),
      );
      const run = await h.bawa(["--grep", "@SVC-METHODS|@AUTH-REGISTRATION|@A-INVALID-BODIES"], {
        CONFORMANCE_CONFIG: file,
      });
      expect(run.code, run.out).toBe(1);
      // Taken, then set back to one: the target is a mock whose clock the checks move.
      expect(run.out).toContain(
        `bawa conformance: ${mock.url}/__mock/clock moves the target's clock: one worker, not 2 (WORKERS: 2 in ${file}), so that a check that moves it expires no other worker's tokens`,
      );
      expect(run.out).toContain("using 1 worker");
      expect(run.out).toContain(`against ${mock.url}:`);
      expect(run.out).toContain("the run is strict");
      const summary = JSON.parse(readFileSync(join(h.dir, "from-file/summary.json"), "utf8"));
      expect(summary).toMatchObject({ target: mock.url, strict: true, kinds: ["spec", "oauth", "assumption"] });
      const rows = Object.fromEntries(
        (summary.requirements as Array<{ row?: string; id: string; verdict: string }>).map((r) => [
          r.row ?? r.id,
          r.verdict,
        ]),
      );
      expect(rows).toMatchObject({
        "SVC-METHODS · Supplier": "passed",
        "A-INVALID-BODIES · Supplier": "passed",
        "AUTH-REGISTRATION": "not verified",
      });
    });
  }, 120_000);

  it("an address that is not the API's stops the run before any check with exit 2, saying what to set", async () => {
    // Another service at the address (or the API under a path the base URL leaves out): 404 where
    // the token endpoint and the customer list stand.
    const other = createServer((req, res) => {
      req.resume();
      res.writeHead(404, { "content-type": "text/html" }).end("<h1>Not Found</h1>");
    });
    await new Promise<void>((done) => other.listen(0, "127.0.0.1", done));
    const url = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
    try {
      const run = await h.bawa(["--output", "not-the-api"], { ...h.settings, CONFORMANCE_BASE_URL: url });
      expect(run.code, run.out).toBe(2);
      expect(run.out).toContain(
        `bawa conformance: the target at ${url} does not look like the API: POST ${url}/v1/OAuth/Token and GET ${url}/v1/api/DEMO/CustomerInfoList both answered 404; CONFORMANCE_BASE_URL is the address the API's paths follow (the suite adds /v1/OAuth/Token and /v1/api/{database}/...). No check was run.`,
      );
      expect(run.out).not.toMatch(/\bat .*\.[jt]s:\d+/);
      expect(existsSync(join(h.dir, "not-the-api", "summary.json"))).toBe(false);
    } finally {
      other.close();
    }
  }, 30_000);

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
});
