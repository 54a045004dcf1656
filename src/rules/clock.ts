// The clock of a bawa mock, as its answers name it once it was moved (X-Bawa-Clock), and as a
// judge in front of it (bawa proxy) or behind it (the suite) reads it: a token ages on the
// mock's clock however the clock was moved (decision 0039).

/** The header (lower case, as node:http gives it). */
export const CLOCK_HEADER = "x-bawa-clock";

/**
 * What an answer says of the clock: its time (ms), how often it had been moved or reset, and the
 * mock process that answered (a restarted mock counts its moves anew).
 */
export interface ClockShown {
  at: number;
  moves: number;
  run: string;
}

/** The header's value (`2026-11-30T09:00:00.000Z; moves=2; run=5f0c1a2b`). */
export const clockHeader = ({ at, moves, run }: ClockShown): string =>
  `${new Date(at).toISOString()}; moves=${moves}; run=${run}`;

const VALUE = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z); moves=(\d{1,15}); run=([0-9a-f]{1,32})$/;

/** The header read back; undefined for any other text. */
export function readClockHeader(value: string): ClockShown | undefined {
  const m = VALUE.exec(value);
  if (!m) return undefined;
  const at = Date.parse(m[1]!);
  return Number.isFinite(at) ? { at, moves: Number(m[2]), run: m[3]! } : undefined;
}
