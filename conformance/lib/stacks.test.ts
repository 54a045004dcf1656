import { EventEmitter } from "node:events";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { compileFunction, runInThisContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { formatStepStacksPlainly, plainStack } from "./stacks.ts";

type Prepare = typeof Error.prepareStackTrace;

const require = createRequire(import.meta.url);
// The source-map-support Playwright's workers install (a module of playwright-core without types).
const { sourceMapSupport } = require("playwright-core/lib/utilsBundle") as {
  sourceMapSupport: { wrapCallSite(frame: NodeJS.CallSite): { toString(): string } };
};
// How Playwright reads a step's stack: the frames it keeps, each a file, line and column.
const pw = require("playwright-core/lib/coreBundle").utils as {
  filteredStackTrace(lines: string[]): Array<{ file: string; line: number; column: number; function?: string }>;
  setBoxedStackPrefixes(prefixes: string[]): void;
};
/** Playwright's reading of a step's stack in a worker, where its test runner has set what it drops. */
function filteredStackTrace(lines: string[]) {
  pw.setBoxedStackPrefixes([dirname(require.resolve("playwright/package.json"))]);
  try {
    return pw.filteredStackTrace(lines);
  } finally {
    pw.setBoxedStackPrefixes([]);
  }
}

/**
 * Functions compiled as if they were Playwright's: `captureRawStack` of playwright-core, called by
 * `reader` (`_addStep` of playwright's worker, say), which `calls` from playwright's files.
 */
function asPlaywright(reader: string) {
  const root = (p: string) => dirname(require.resolve(`${p}/package.json`));
  const capture = runInThisContext(
    `(function ${reader}() { return (function captureRawStack() { return new Error(); })(); })`,
    { filename: join(root("playwright-core"), "lib", "stackTrace.js") },
  ) as () => Error;
  const calls = runInThisContext("(function runTest(fn) { return fn(); })", {
    filename: join(root("playwright"), "lib", "worker", "workerMain.js"),
  }) as <T>(fn: () => T) => T;
  return { capture, calls };
}

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

  /** A stack as the formatter formatStepStacksPlainly installs writes it. */
  const writtenAsInstalled = (error: Error, frames: NodeJS.CallSite[]) =>
    withPrepare(
      () => "unused",
      () => {
        formatStepStacksPlainly(true);
        return Error.prepareStackTrace!(error, frames) as string;
      },
    );

  /** A step's stack captured under `reader`, through frames of every kind, written whole and as installed. */
  function stepStack(reader: string) {
    const { capture, calls } = asPlaywright(reader);
    // A check's helper, called from an eval's code and from a script compiled without a name,
    // under Playwright's runner and Node.js's EventEmitter.
    const helper = () => capture();
    const viaEval = new Function("f", "return f();") as <T>(f: () => T) => T;
    const nameless = compileFunction("return f();", ["f"]) as <T>(f: () => T) => T;
    const events = new EventEmitter();
    let error: Error | undefined;
    events.on("run", () => {
      error = calls(() => nameless(() => viaEval(helper)));
    });
    calls(() => events.emit("run"));
    const frames = framesOf(error!);
    return { whole: plainStack(error!, frames), written: writtenAsInstalled(error!, frames) };
  }

  it("read by a step or an expect is written with the frames Playwright keeps of it, and only those", () => {
    for (const reader of ["_addStep", "callMatcherAsStep"]) {
      const { whole, written } = stepStack(reader);
      const kept = filteredStackTrace(whole.split("\n"));
      expect(filteredStackTrace(written.split("\n"))).toEqual(kept);
      // The eval's frame and the nameless script's (`<anonymous>:1:8`) are kept, as Playwright keeps them.
      expect(kept.map((f) => f.file)).toContain("<anonymous>");
      expect(written).toMatch(/at eval \(eval at /);
      expect(written).toMatch(/at <anonymous>:1:\d+$/m);
      // Playwright's frames and Node.js's are not written at all.
      expect(whole).toMatch(/node:events/);
      expect(whole).toMatch(/stackTrace\.js/);
      expect(whole).toMatch(/workerMain\.js/);
      expect(written).not.toMatch(/node:events|stackTrace\.js|workerMain\.js/);
    }
  });

  it("is written whole where PWDEBUGIMPL asks Playwright to keep its own frames", () => {
    process.env.PWDEBUGIMPL = "1";
    try {
      const { whole, written } = stepStack("_addStep");
      expect(written).toBe(whole);
    } finally {
      delete process.env.PWDEBUGIMPL;
    }
  });

  it("read for an API call's name (its client's library stack) is written whole", () => {
    const { capture, calls } = asPlaywright("captureLibraryStackTrace");
    const error = calls(() => capture());
    const frames = framesOf(error);
    const written = writtenAsInstalled(error, frames);
    expect(written).toBe(plainStack(error, frames));
    expect(written).toMatch(/stackTrace\.js/);
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
