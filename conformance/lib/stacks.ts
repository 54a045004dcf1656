// Playwright's workers format every stack through source-map-support, which
// wraps each frame of it in an object of closures before it reads the frame's
// place. Playwright captures a stack of up to 50 frames at every step (each API
// call, expect and fixture) only to find the check's line in it, and its driver
// one at every wait on the browser in case the page closes during it (formatting
// the steps' was about a quarter of a fault-matrix worker's CPU). The compiled
// suite has no source maps: for it those stacks are written here as
// source-map-support writes frames without one, read from the frames
// themselves; every other stack (an error a person reads) still goes through
// source-map-support.
import { createRequire } from "node:module";
import { dirname } from "node:path";

/** The function of Playwright's that captures the stack of a step (playwright-core, stackTrace.ts). */
const STEP_STACK = "captureRawStack";
/**
 * Playwright's driver, in the worker, also captures a stack at every wait on the browser (each
 * protocol call, evaluation, route and response read: `LongStandingScope._race`, called by its
 * `race` and `safeRace`, manualPromise.ts), kept for the error it throws if the page or browser
 * closes during the wait: about 570 in a run of the OAuth checks (24 requirements, one worker).
 */
const SCOPE_STACK = "_race";
const SCOPE_CALLERS = new Set(["race", "safeRace"]);

/**
 * The functions of Playwright's that read a step's stack only through `filteredStackTrace`: a
 * step's (TestInfoImpl._addStep, a fixture's, a hook's, test.step's) and an expect's. Its client's
 * `captureLibraryStackTrace` reads its own frames in the stack too (the API call's name).
 */
const STEP_STACK_READERS = new Set(["_addStep", "callMatcherAsStep"]);
/**
 * Where Playwright's own code is: every frame of it, and of Node.js itself, `filteredStackTrace`
 * drops (playwright-core's stackTrace.ts: frames of no file, node: and internal ones, and those
 * under the roots of playwright-core and playwright, compared as these prefixes; PWDEBUGIMPL keeps
 * them all).
 */
const PLAYWRIGHT_ROOTS = ((): string[] | undefined => {
  try {
    // Each through the package that depends on it (the project names only @playwright/test): a
    // layout that does not hoist them finds them too.
    const test = createRequire(import.meta.url).resolve("@playwright/test/package.json");
    const playwright = createRequire(test).resolve("playwright/package.json");
    const core = createRequire(playwright).resolve("playwright-core/package.json");
    return [dirname(core), dirname(playwright)];
  } catch {
    // Not found where Playwright itself is: stacks are written whole, as before.
    return undefined;
  }
})();

/** Whether Playwright keeps a frame of a step's stack (the check's own code and the suite's). */
const keptByPlaywright = (frame: NodeJS.CallSite): boolean => {
  const file = frame.getScriptNameOrSourceURL() || frame.getFileName();
  // V8's own frames (`Promise.all (index 0)`) have no file and no line, which Playwright drops; an
  // eval's (`eval at ...`) and a script's compiled without a name (`<anonymous>:1:8`) have a line,
  // and Playwright keeps them.
  if (!file) return frame.getLineNumber() != null;
  if (file.startsWith("node:") || file.startsWith("internal")) return false;
  return !PLAYWRIGHT_ROOTS?.some((root) => file.startsWith(root));
};

/** Whether a stack is one of those Playwright captures for itself (a step's, or a wait's). */
const capturedByPlaywright = (frames: readonly NodeJS.CallSite[]): boolean => {
  const first = frames[0]?.getFunctionName();
  return first === STEP_STACK || (first === SCOPE_STACK && SCOPE_CALLERS.has(frames[1]?.getFunctionName() ?? ""));
};

type Prepare = (error: Error, frames: NodeJS.CallSite[]) => unknown;

/** A stack as source-map-support writes it for frames without a source map. */
export function plainStack(error: Error, frames: readonly NodeJS.CallSite[]): string {
  let text = `${error.name || "Error"}: ${error.message || ""}`;
  for (const frame of frames) text += `\n    at ${asIs(frame) ? String(frame) : frameText(frame)}`;
  return text;
}

/** A frame source-map-support leaves to V8: native, or of no file and no eval (`Promise.all (index 0)`). */
const asIs = (frame: NodeJS.CallSite) =>
  frame.isNative() ||
  (!(frame.getFileName() || frame.getScriptNameOrSourceURL()) && !(frame.isEval() && frame.getEvalOrigin()));

/**
 * A frame's line as source-map-support's CallSiteToString writes it (its port of V8's own, which
 * V8 has changed since: an awaiting frame's `async `, a receiver's type before a function whose
 * name begins with it), read from the frame itself instead of from a copy of it.
 */
function frameText(frame: NodeJS.CallSite): string {
  let where = "";
  const file = frame.getScriptNameOrSourceURL();
  if (!file && frame.isEval()) where = `${frame.getEvalOrigin()}, `;
  where += file || "<anonymous>";
  const line = frame.getLineNumber();
  if (line != null) {
    where += `:${line}`;
    const column = frame.getColumnNumber();
    if (column) where += `:${column}`;
  }
  const fn = frame.getFunctionName();
  const isConstructor = frame.isConstructor();
  if (!(frame.isToplevel() || isConstructor)) {
    let typeName = frame.getTypeName();
    if (typeName === "[object Object]") typeName = "null";
    const method = frame.getMethodName();
    if (!fn) return `${typeName}.${method || "<anonymous>"} (${where})`;
    let name = typeName && fn.indexOf(typeName) !== 0 ? `${typeName}.${fn}` : fn;
    if (method && fn.indexOf(`.${method}`) !== fn.length - method.length - 1) name += ` [as ${method}]`;
    return `${name} (${where})`;
  }
  if (isConstructor) return `new ${fn || "<anonymous>"} (${where})`;
  return fn ? `${fn} (${where})` : where;
}

/**
 * Formats the stacks Playwright captures for its steps and its waits plainly (plainStack), and
 * hands every other stack to the formatter installed before (source-map-support's). Only for the
 * compiled suite: run from its TypeScript, the check's lines are read through the source maps of
 * Playwright's transform. Nothing installed, or Playwright's functions renamed: stacks stay as
 * they were.
 */
export function formatStepStacksPlainly(compiled: boolean): void {
  const before = Error.prepareStackTrace as Prepare | undefined;
  if (!compiled || !before || (before as { plain?: true }).plain) return;
  // A step's stack is written with only the frames Playwright keeps of it (the others, most of its
  // fifty, are its own and Node.js's, parsed only to be dropped): the same frames reach the step.
  const trim = process.env.PWDEBUGIMPL === undefined && PLAYWRIGHT_ROOTS !== undefined;
  const prepare: Prepare = (error, frames) => {
    if (!capturedByPlaywright(frames)) return before(error, frames);
    const filtered =
      frames[0]?.getFunctionName() === STEP_STACK && STEP_STACK_READERS.has(frames[1]?.getFunctionName() ?? "");
    return plainStack(error, trim && filtered ? frames.filter(keptByPlaywright) : frames);
  };
  Object.assign(prepare, { plain: true });
  Error.prepareStackTrace = prepare as typeof Error.prepareStackTrace;
}
