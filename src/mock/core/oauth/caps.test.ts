// The fair cap itself, with small numbers: per owner before overall, a full cap
// refuses and drops no one, ended entries make room without a sweep, and the
// answer says when (or that waiting will not help).
import { describe, expect, it } from "vitest";
import { CappedMap, isLocalSource, sourceOf } from "./caps.ts";

interface Entry {
  client: string;
  end?: number;
}

const capped = (dropped: string[] = []) =>
  new CappedMap<Entry>({
    what: "things",
    overall: 4,
    per: [{ of: "client", limit: 2, owner: (e) => e.client }],
    droppableAt: (e) => e.end,
    whenNeverEnding: "they never end",
    onDrop: (key) => dropped.push(key),
  });

describe("a capped map", () => {
  it("refuses a client at its cap, names it and drops none of anyone's entries", () => {
    const map = capped();
    map.set("a1", { client: "a", end: 5_000 });
    map.set("a2", { client: "a", end: 9_000 });
    map.set("b1", { client: "b", end: 1_000 });
    expect(map.room(["a"], 0)).toEqual({
      cap: "things per client",
      limit: 2,
      retryAfter: 5,
      message:
        "The client a has 2 things, the most one client may have (A-LIMITS); try again in 5 s, when the oldest is dropped.",
    });
    expect(map.room(["b"], 0)).toBeUndefined();
    expect([...map.keys()]).toEqual(["a1", "a2", "b1"]);
  });

  it("refuses everyone once the overall cap is full, though each is under its own", () => {
    const map = capped();
    for (const [key, client] of [
      ["a1", "a"],
      ["b1", "b"],
      ["c1", "c"],
      ["d1", "d"],
    ]) {
      map.set(key!, { client: client!, end: 3_000 });
    }
    expect(map.room(["e"], 1_000)).toMatchObject({
      cap: "things overall",
      retryAfter: 2,
      message: "The mock holds 4 things, the most it keeps (A-LIMITS); try again in 2 s, when the oldest is dropped.",
    });
  });

  it("makes room from what has ended, without waiting for the sweep, and tells who was dropped", () => {
    const dropped: string[] = [];
    const map = capped(dropped);
    map.set("a1", { client: "a", end: 1_000 });
    map.set("a2", { client: "a", end: 9_000 });
    expect(map.room(["a"], 999)?.retryAfter).toBe(1);
    expect(map.room(["a"], 1_000)).toBeUndefined();
    expect(dropped).toEqual(["a1"]);
    expect(map.size).toBe(1);
  });

  it("answers without Retry-After when nothing it counts ends by itself", () => {
    const map = capped();
    map.set("a1", { client: "a" });
    map.set("a2", { client: "a" });
    const full = map.room(["a"], 0);
    expect(full?.retryAfter).toBeUndefined();
    expect(full?.message).toBe("The client a has 2 things, the most one client may have (A-LIMITS); they never end.");
  });

  it("scans a full cap again only after a second, so a flood of refusals costs no scans", () => {
    const map = capped();
    const a1 = { client: "a", end: 60_000 };
    map.set("a1", a1);
    map.set("a2", { client: "a", end: 60_000 });
    expect(map.room(["a"], 0)?.retryAfter).toBe(60);
    // An entry that now ends sooner is seen at the next scan, not before.
    map.set("a1", { ...a1, end: 2_000 });
    expect(map.room(["a"], 500)?.retryAfter).toBe(60);
    expect(map.room(["a"], 1_000)?.retryAfter).toBe(1);
  });

  it("counts an entry once, however often it is set, and forgets an owner with its last entry", () => {
    const map = capped();
    map.set("a1", { client: "a", end: 1 });
    map.set("a1", { client: "a", end: 2 });
    map.set("a2", { client: "a", end: 3 });
    expect(map.room(["a"], 0)).toBeDefined();
    map.delete("a1");
    expect(map.room(["a"], 0)).toBeUndefined();
    map.clear();
    expect(map.size).toBe(0);
  });

  it("names an owner no one may read (a browser's cookie) in its own words", () => {
    const map = new CappedMap<Entry>({
      what: "things",
      overall: 4,
      per: [{ of: "browser", named: "This browser", limit: 1, owner: (e) => e.client }],
      droppableAt: (e) => e.end,
    });
    map.set("a1", { client: "secret-cookie", end: 5_000 });
    const full = map.room(["secret-cookie"], 0);
    expect(full?.message).toBe(
      "This browser has 1 things, the most one browser may have (A-LIMITS); try again in 5 s, when the oldest is dropped.",
    );
  });
});

describe("the source of a request", () => {
  it.each([
    [undefined, "(in process)"],
    ["127.0.0.1", "127.0.0.1"],
    ["::ffff:192.0.2.7", "192.0.2.7"],
    ["::1", "0:0:0:0::/64"],
    ["2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"],
    ["2001:db8:1:2::9", "2001:db8:1:2::/64"],
    ["2001:0db8::1%eth0", "2001:db8:0:0::/64"],
  ])("%s is counted as %s", (remoteAddress, source) => {
    expect(sourceOf(remoteAddress === undefined ? {} : { remoteAddress })).toBe(source);
  });

  it.each([
    [undefined, true],
    ["127.0.0.1", true],
    ["127.3.2.1", true],
    ["::ffff:127.0.0.1", true],
    ["::1", true],
    ["0:0:0:0:0:0:0:1", true],
    ["::2", false],
    ["192.0.2.1", false],
    ["::ffff:192.0.2.1", false],
    ["fe80::1%lo0", false],
  ])("%s is this machine (one source for all its browsers): %s", (remoteAddress, local) => {
    expect(isLocalSource(remoteAddress === undefined ? {} : { remoteAddress })).toBe(local);
  });
});
