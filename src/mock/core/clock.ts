/** Time as the mock sees it. Everything that expires reads this, never Date.now(). */
export interface Clock {
  now(): number;
}

/** The real time plus an offset that tests move forward (POST /__mock/clock). */
export class MovableClock implements Clock {
  #offsetMs = 0;
  #named = false;
  constructor(private readonly source: () => number = Date.now) {}

  now(): number {
    return this.source() + this.#offsetMs;
  }

  /**
   * Whether answers name the clock (X-Bawa-Clock): from its first move on, a reset included, so a
   * judge in front follows the clock back as well.
   */
  get named(): boolean {
    return this.#named;
  }

  /**
   * Whether the clock can move this far and still leave room, before the end of the calendar,
   * for the longest lifetime of anything the mock hands out (LONGEST_LIFETIME_MS): everything
   * issued later still has an expiry that is a date.
   */
  canAdvance(seconds: number): boolean {
    return Number.isFinite(seconds) && seconds >= 0 && this.now() + seconds * 1000 + LONGEST_LIFETIME_MS <= MAX_DATE_MS;
  }

  advance(seconds: number): void {
    this.#offsetMs += seconds * 1000;
    this.#named = true;
  }

  /** Back to the real time (POST /__mock/reset). */
  reset(): void {
    this.#offsetMs = 0;
  }
}

/** The largest time a JavaScript Date can hold (ECMAScript 21.4.1.1). */
export const MAX_DATE_MS = 8.64e15;

/**
 * The longest anything the mock issues may live, with room to spare: an access token lives at
 * most ten years (the bound of the rule accessTokenSeconds), codes, logins and lockouts far less,
 * and what ended is kept ten minutes more. A day on top.
 */
export const LONGEST_LIFETIME_MS = (10 * 365 + 3 + 1) * 24 * 3600 * 1000;

/** A time as ISO text, or words for one past the calendar's end (never a RangeError). */
export function isoTime(ms: number): string {
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? "(beyond the calendar)" : d.toISOString();
}
