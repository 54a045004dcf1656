// With a data directory the mock keeps customers across restarts: killed in
// the middle of writes, it comes back with every acknowledged write.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { spawnMock } from "../testing.ts";
import { backgroundTokens } from "./client.ts";
import { SNAPSHOT_FILE } from "./data-dir.ts";

const dir = mkdtempSync(join(tmpdir(), "bawa-data-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const startMock = (args: string[] = []) => spawnMock(["--data-dir", dir, ...args]);

const token = async (url: string) => (await backgroundTokens(url)).access;

/** What a client knows of one customer: its last acknowledged state, and a change in flight when the mock died. */
interface Known {
  acked: string | null;
  inFlight?: string | null;
}

/** Every customer a client saw acknowledged is there as acknowledged (or as a change in flight made it). */
async function expectKnown(url: string, known: Map<string, Known>): Promise<void> {
  const auth = { authorization: `Bearer ${await token(url)}` };
  const lost: string[] = [];
  for (const [id, k] of known) {
    const res = await fetch(`${url}/v1/api/DEMO/Customer/${id}`, { headers: auth });
    const city = res.status === 200 ? ((await res.json()) as { City: string }).City : null;
    const allowed = [k.acked, ...("inFlight" in k ? [k.inFlight] : [])];
    if (!allowed.includes(city)) lost.push(`${id}: ${city} is neither ${allowed.map(String).join(" nor ")}`);
    // What the client learns now is what it knows from here on.
    k.acked = city;
    delete k.inFlight;
  }
  expect(lost, "acknowledged writes lost or changed").toEqual([]);
}

describe("a mock with a data directory", () => {
  it("comes back after SIGKILL at random moments of concurrent writes and compactions with every acknowledged write", async () => {
    const known = new Map<string, Known>();
    // A tiny compaction size: the journal is folded into a new snapshot every few writes,
    // so the kills land in the middle of writes and of compactions alike.
    const args = ["--compact-at", "4096"];
    for (let round = 0; round < 4; round++) {
      const mock = await startMock(args);
      await expectKnown(mock.url, known);
      const auth = { authorization: `Bearer ${await token(mock.url)}`, "content-type": "application/json" };
      let stop = false;
      const worker = async (w: number) => {
        for (let i = 0; !stop; i++) {
          try {
            const name = `R${round}-W${w}-${i}`;
            const res = await fetch(`${mock.url}/v1/api/DEMO/Customer`, {
              method: "POST",
              headers: auth,
              body: JSON.stringify({ Name: name, City: "Eerst" }),
            });
            if (res.status !== 200) continue;
            const id = ((await res.json()) as { CustomerId: string }).CustomerId;
            const k: Known = { acked: "Eerst" };
            known.set(id, k);
            const change = i % 4 === 0 ? null : `Later ${w}-${i}`;
            k.inFlight = change;
            const second =
              change === null
                ? await fetch(`${mock.url}/v1/api/DEMO/Customer/${id}`, { method: "DELETE", headers: auth })
                : await fetch(`${mock.url}/v1/api/DEMO/Customer/${id}`, {
                    method: "PUT",
                    headers: auth,
                    body: JSON.stringify({ CustomerId: id, Name: name, City: change }),
                  });
            if (second.status === 200) {
              k.acked = change;
              delete k.inFlight;
            }
          } catch {
            return; // the mock is gone
          }
        }
      };
      const workers = Array.from({ length: 8 }, (_, w) => worker(w));
      await new Promise((r) => setTimeout(r, 300 + Math.random() * 1200));
      mock.child.kill("SIGKILL");
      stop = true;
      await Promise.all(workers);
    }
    expect(known.size).toBeGreaterThan(40);
    expect(existsSync(join(dir, SNAPSHOT_FILE))).toBe(true);
    const last = await startMock(args);
    try {
      await expectKnown(last.url, known);
      // The seed is still there.
      const auth = { authorization: `Bearer ${await token(last.url)}` };
      expect((await fetch(`${last.url}/v1/api/DEMO/Customer/1001`, { headers: auth })).status).toBe(200);
    } finally {
      last.child.kill("SIGTERM");
    }
  }, 90_000);

  it("keeps a reset across a restart", async () => {
    const one = await startMock();
    await fetch(`${one.url}/__mock/reset`, { method: "POST", headers: { "content-type": "application/json" } });
    one.child.kill("SIGKILL");
    const two = await startMock();
    try {
      const auth = { authorization: `Bearer ${await token(two.url)}` };
      const list = (await (
        await fetch(`${two.url}/v1/api/DEMO/CustomerInfoList`, { headers: auth })
      ).json()) as unknown[];
      expect(list).toHaveLength(6);
    } finally {
      two.child.kill("SIGTERM");
    }
  }, 60_000);
});
