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

  it("makes the writes the turn's work asks for once all of it has run, in order; others at once", async () => {
    const turn = new TurnQueue();
    const ran: string[] = [];
    const write = (name: string, n: number) => ran.push(`write ${name}${n}`);
    turn.send(write, "now", 0);
    expect(ran).toEqual(["write now0"]);
    for (const name of ["a", "b"]) {
      turn.later(
        () => {
          ran.push(`run ${name}`);
          turn.send(write, name, 1);
          turn.send(write, name, 2);
        },
        () => ran.push(`${name} failed`),
      );
    }
    turn.later(
      () => {
        turn.send(write, "c", 1);
        throw new Error("after asking for a write");
      },
      () => ran.push("c failed"),
    );
    await new Promise((done) => setImmediate(done));
    expect(ran).toEqual([
      "write now0",
      "run a",
      "run b",
      "c failed",
      "write a1",
      "write a2",
      "write b1",
      "write b2",
      "write c1",
    ]);
    // After the turn's work, a write is made at once again.
    turn.send(write, "after", 0);
    expect(ran.at(-1)).toBe("write after0");
  });

  it("makes the waiting writes when flushed, before a server drops its connections", () => {
    const turn = new TurnQueue();
    const ran: string[] = [];
    turn.later(
      () => turn.send((name: string) => ran.push(name), "written", undefined),
      () => ran.push("failed"),
    );
    turn.flush();
    expect(ran).toEqual(["written"]);
  });

  it("writes what the turn held so far when work flushes it (a handler closing its server)", async () => {
    const turn = new TurnQueue();
    const ran: string[] = [];
    const write = (name: string) => ran.push(`write ${name}`);
    turn.later(
      () => turn.send(write, "a", undefined),
      () => ran.push("a failed"),
    );
    turn.later(
      () => {
        turn.flush();
        ran.push("flushed");
        turn.send(write, "b", undefined);
      },
      () => ran.push("b failed"),
    );
    await new Promise((done) => setImmediate(done));
    // a's write before the flush returned (before a server's connections would go); b's with the turn's end.
    expect(ran).toEqual(["write a", "flushed", "write b"]);
  });

  it("makes the other writes when one throws, and says so", async () => {
    const turn = new TurnQueue();
    const ran: string[] = [];
    const errors: unknown[] = [];
    const said = console.error;
    console.error = (...args: unknown[]) => errors.push(args);
    try {
      turn.later(
        () => {
          turn.send(
            () => {
              throw new Error("a write's bug");
            },
            undefined,
            undefined,
          );
          turn.send((name: string) => ran.push(name), "second", undefined);
        },
        () => ran.push("failed"),
      );
      await new Promise((done) => setImmediate(done));
    } finally {
      console.error = said;
    }
    expect(ran).toEqual(["second"]);
    expect(String(errors[0])).toMatch(/internal error writing an answer/);
  });
});
