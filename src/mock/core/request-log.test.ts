import { describe, expect, it } from "vitest";
import { RequestLog } from "./request-log.ts";

const entry = (path: string) => ({ at: 0, mockAt: 8.64e15 + 1, method: "GET", path, status: 200, ms: 1 });

describe("the request log", () => {
  it("keeps the last entries in order as it wraps around, and forgets them on clear", () => {
    const log = new RequestLog(3);
    for (let i = 1; i <= 7; i++) log.record(entry(`/${i}`));
    expect(log.length).toBe(3);
    expect(log.since().map((e) => [e.id, e.path])).toEqual([
      [5, "/5"],
      [6, "/6"],
      [7, "/7"],
    ]);
    expect(log.since(6).map((e) => e.id)).toEqual([7]);
    expect(log.since(7)).toEqual([]);
    log.clear();
    expect(log.length).toBe(0);
    expect(log.since()).toEqual([]);
    log.record(entry("/8"));
    expect(log.since().map((e) => e.id)).toEqual([8]);
    expect(log.length).toBe(1);
  });

  it("cuts long texts and keeps absent fields out of its JSON", () => {
    const log = new RequestLog();
    const long = (c: string) => c.repeat(2_000_000);
    log.record({
      ...entry(`/${"x".repeat(400)}`),
      problem: "p".repeat(400),
      ignored: ["a", "b"],
      client: long("c"),
      user: long("u"),
      database: long("d"),
    });
    const [e] = log.since();
    for (const text of [e!.path, e!.problem, e!.client, e!.user, e!.database]) expect(text).toHaveLength(303);
    expect(e!.ignored).toEqual(["a", "b"]);
    expect(Object.keys(JSON.parse(JSON.stringify(e)))).not.toContain("route");
  });

  it("keeps times as numbers and writes them as ISO text when read, a time past the calendar's end too", () => {
    const log = new RequestLog();
    log.record(entry("/t"));
    expect(log.since()[0]).toMatchObject({ time: "1970-01-01T00:00:00.000Z", mockTime: "(beyond the calendar)" });
  });
});
