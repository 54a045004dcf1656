// What a bawa mock's answers say of state changed by its control calls, for a judge in front of
// it (bawa proxy) or behind it (the suite) that did not see the call: the dashboard, another
// tool or a test moved the clock, ended tokens or reset objects at the mock itself.
// - X-Bawa-Clock: once the clock was moved, the time on it the answer was decided at; each
//   exchange is judged at that time (decision 0039).
// - X-Bawa-Changes: once a control call may have ended tokens (tokens/expire or revoke, a rule,
//   a scenario) or reset objects, how many of each; a judge forgets what it kept of either when
//   the count differs from the one it saw last.

/** The clock's header (lower case, as node:http gives it). */
export const CLOCK_HEADER = "x-bawa-clock";

/** The clock header's value: the time the mock decided the answer, to the millisecond (ISO 8601, UTC). */
export const clockHeader = (at: number): string => new Date(at).toISOString();

const CLOCK_VALUE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** The clock header read back (ms); undefined for any other text. */
export function readClockHeader(value: string): number | undefined {
  if (!CLOCK_VALUE.test(value)) return undefined;
  const at = Date.parse(value);
  return Number.isFinite(at) ? at : undefined;
}

/** The changes' header. */
export const CHANGES_HEADER = "x-bawa-changes";

/** How often control calls may have ended tokens, and reset objects. */
export interface Changes {
  tokens: number;
  objects: number;
}

/**
 * What a successful control call of a bawa mock changed that a judge must forget, by its path in
 * lower case: tokens it may have ended (tokens expired or revoked, a rule, a scenario), or objects
 * it reset (all, or a database's). The mock counts these (X-Bawa-Changes); the judge forgets on
 * the ones it sees itself.
 */
export function controlChange(path: string): keyof Changes | undefined {
  if (path.startsWith("/__mock/tokens/") || path === "/__mock/rules" || path.startsWith("/__mock/scenarios/"))
    return "tokens";
  if (path === "/__mock/reset" || /^\/__mock\/databases\/[^/]+\/reset$/.test(path)) return "objects";
  return undefined;
}

/** The changes header's value (`tokens=2; objects=1`). */
export const changesHeader = (c: Changes): string => `tokens=${c.tokens}; objects=${c.objects}`;

const CHANGES_VALUE = /^tokens=(\d{1,15}); objects=(\d{1,15})$/;

/** The changes header read back; undefined for any other text. */
export function readChangesHeader(value: string): Changes | undefined {
  const m = CHANGES_VALUE.exec(value);
  return m ? { tokens: Number(m[1]), objects: Number(m[2]) } : undefined;
}
