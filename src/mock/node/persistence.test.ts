// With a data directory the mock keeps customers across restarts: killed in
// the middle of writes, it comes back with every acknowledged write.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { spawnMock } from "../testing.ts";
import { backgroundTokens } from "./client.ts";

const dir = mkdtempSync(join(tmpdir(), "bawa-data-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const startMock = () => spawnMock(["--data-dir", dir]);

const token = async (url: string) => (await backgroundTokens(url)).access;

/** What a client knows of one customer: its last acknowledged state, and a change in flight when the mock died. */
interface Known {
  acked: string | null;
  inFlight?: string | null;
}

describe("a mock with a data directory", () => {
  it("comes back after SIGKILL in the middle of writes with every acknowledged write", async () => {
    const first = await startMock();
    const auth = { authorization: `Bearer ${await token(first.url)}`, "content-type": "application/json" };
    const known = new Map<string, Known>();
    let stop = false;
    const worker = async (w: number) => {
      for (let i = 0; !stop; i++) {
        try {
          const res = await fetch(`${first.url}/v1/api/DEMO/Customer`, {
            method: "POST",
            headers: auth,
            body: JSON.stringify({ Name: `W${w}-${i}`, City: "Eerst" }),
          });
          if (res.status !== 200) continue;
          const id = ((await res.json()) as { CustomerId: string }).CustomerId;
          const k: Known = { acked: "Eerst" };
          known.set(id, k);
          const change = i % 4 === 0 ? null : `Later ${w}-${i}`;
          k.inFlight = change;
          const second =
            change === null
              ? await fetch(`${first.url}/v1/api/DEMO/Customer/${id}`, { method: "DELETE", headers: auth })
              : await fetch(`${first.url}/v1/api/DEMO/Customer/${id}`, {
                  method: "PUT",
                  headers: auth,
                  body: JSON.stringify({ CustomerId: id, Name: `W${w}-${i}`, City: change }),
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
    await new Promise((r) => setTimeout(r, 1500));
    first.child.kill("SIGKILL");
    stop = true;
    await Promise.all(workers);
    expect(known.size).toBeGreaterThan(20);

    const again = await startMock();
    try {
      const auth2 = { authorization: `Bearer ${await token(again.url)}` };
      const lost: string[] = [];
      for (const [id, k] of known) {
        const res = await fetch(`${again.url}/v1/api/DEMO/Customer/${id}`, { headers: auth2 });
        const city = res.status === 200 ? ((await res.json()) as { City: string }).City : null;
        const allowed = [k.acked, ...("inFlight" in k ? [k.inFlight] : [])];
        if (!allowed.includes(city)) lost.push(`${id}: ${city} is neither ${allowed.map(String).join(" nor ")}`);
      }
      expect(lost, "acknowledged writes lost or changed").toEqual([]);
      // The seed is still there, and a reset is kept across a restart too.
      expect((await fetch(`${again.url}/v1/api/DEMO/Customer/1001`, { headers: auth2 })).status).toBe(200);
    } finally {
      again.child.kill("SIGTERM");
    }
  }, 60_000);

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
