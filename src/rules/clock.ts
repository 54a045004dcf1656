// The clock of a bawa mock, as its answers name it once it was moved (X-Bawa-Clock), and as a
// judge in front of it (bawa proxy) or behind it (the suite) reads it: each exchange is judged at
// the time on the mock's clock its answer names, however the clock was moved (decision 0039).

/** The header (lower case, as node:http gives it). */
export const CLOCK_HEADER = "x-bawa-clock";

/** The header's value: the time the mock decided the answer, to the millisecond (ISO 8601, UTC). */
export const clockHeader = (at: number): string => new Date(at).toISOString();

const VALUE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** The header read back (ms); undefined for any other text. */
export function readClockHeader(value: string): number | undefined {
  if (!VALUE.test(value)) return undefined;
  const at = Date.parse(value);
  return Number.isFinite(at) ? at : undefined;
}
