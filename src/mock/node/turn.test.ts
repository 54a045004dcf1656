import { describe, expect, it } from "vitest";
import { TurnQueue } from "./turn.ts";

describe("TurnQueue", () => {
  it("runs what it was given after the current turn, in the order given", async () => {
    const turn = new TurnQueue();
    const ran: string[] = [];
    turn.later(
      () => ran.push("a"),
      () => ran.push("a failed"),
    );
    turn.later(
      () => ran.push("b"),
      () => ran.push("b failed"),
    );
    ran.push("turn goes on");
    expect(ran).toEqual(["turn goes on"]);
    await new Promise((done) => setImmediate(done));
    expect(ran).toEqual(["turn goes on", "a", "b"]);
    // A later turn's work waits for that turn's end again.
    turn.later(
      () => ran.push("c"),
      () => ran.push("c failed"),
    );
    expect(ran).toHaveLength(3);
    await new Promise((done) => setImmediate(done));
    expect(ran.at(-1)).toBe("c");
  });

  it("fails only the work that threw: the rest of the turn still runs", async () => {
    const turn = new TurnQueue();
    const ran: unknown[] = [];
    const boom = new TypeError("a bug of one exchange");
    turn.later(
      () => {
        throw boom;
      },
      (err) => ran.push(err),
    );
    turn.later(
      () => ran.push("next"),
      () => ran.push("next failed"),
    );
    await new Promise((done) => setImmediate(done));
    expect(ran).toEqual([boom, "next"]);
  });
});
