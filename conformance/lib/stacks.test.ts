import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { formatStepStacksPlainly, plainStack } from "./stacks.ts";

type Prepare = typeof Error.prepareStackTrace;

// The source-map-support Playwright's workers install (a module of playwright-core without types).
const { sourceMapSupport } = createRequire(import.meta.url)("playwright-core/lib/utilsBundle") as {
  sourceMapSupport: { wrapCallSite(frame: NodeJS.CallSite): { toString(): string } };
};

/** Runs `fn` with `prepare` as the stack formatter, and puts the one before back. */
function withPrepare<T>(prepare: Prepare, fn: () => T): T {
  const before = Error.prepareStackTrace;
  Error.prepareStackTrace = prepare;
  try {
    return fn();
  } finally {
    Error.prepareStackTrace = before;
  }
}

// Named as Playwright's function that captures a step's stack; the frames as V8 hands them over.
function captureRawStack(): Error {
  return new Error();
}
const framesOf = (error: Error) =>
  withPrepare(
    (_e, f) => f,
    () => error.stack as unknown as NodeJS.CallSite[],
  );

class Check {
  made: { error: Error; frames: NodeJS.CallSite[] };
  constructor() {
    const error = captureRawStack();
    this.made = { error, frames: framesOf(error) };
  }
  async awaiting() {
    await Promise.resolve();
    const error = captureRawStack();
    return { error, frames: framesOf(error) };
  }
}

// Named as the methods of Playwright's scope that capture a stack at each wait on the browser.
class Scope {
  race(): Error {
    return this._race();
  }
  safeRace(): Error {
    return this._race();
  }
  elsewhere(): Error {
    return this._race();
  }
  _race(): Error {
    return new Error();
  }
}

describe("a step's stack", () => {
  it("reads as source-map-support writes it, frame for frame, where no frame has a source map", async () => {
    // Frames of a method, of an async function after an await, of Node.js itself; of a constructor.
    const check = new Check();
    // And a frame of no file, V8's own (`Promise.all (index 0)`).
    const [all] = await Promise.all([check.awaiting()]);
    for (const { error, frames } of [await check.awaiting(), check.made, all!]) {
      expect(frames.length).toBeGreaterThan(2);
      const mapped = `Error: ${frames.map((f) => `\n    at ${sourceMapSupport.wrapCallSite(f)}`).join("")}`;
      expect(plainStack(error, frames)).toBe(mapped);
    }
    expect((await check.awaiting()).frames.some((f) => f.isAsync())).toBe(true);
    expect(check.made.frames.some((f) => f.isConstructor())).toBe(true);
    expect(all!.frames.some((f) => f.isPromiseAll())).toBe(true);
  });

  it("is formatted plainly only when Playwright captures it, in the compiled suite", () => {
    const marker: Prepare = () => "formatted before";
    const stackOf = (capture: () => Error) => capture().stack;
    withPrepare(marker, () => {
      formatStepStacksPlainly(false);
      expect(Error.prepareStackTrace).toBe(marker);
      formatStepStacksPlainly(true);
      const installed = Error.prepareStackTrace;
      expect(installed).not.toBe(marker);
      // Installed once, whoever imports it again.
      formatStepStacksPlainly(true);
      expect(Error.prepareStackTrace).toBe(installed);
      expect(stackOf(() => captureRawStack())).toMatch(/^Error: \n {4}at captureRawStack \(/);
      // The scope's, at a wait on the browser, from either of its races.
      const scope = new Scope();
      expect(stackOf(() => scope.race())).toMatch(/^Error: \n {4}at Scope\._race \(.*\n {4}at Scope\.race \(/);
      expect(stackOf(() => scope.safeRace())).toMatch(/^Error: \n {4}at Scope\._race \(.*\n {4}at Scope\.safeRace \(/);
      // Any other error (one a person reads) goes to the formatter before, also one of a
      // function of that name called from elsewhere.
      expect(stackOf(() => scope.elsewhere())).toBe("formatted before");
      expect(stackOf(() => new Error("a failure"))).toBe("formatted before");
    });
  });
});
