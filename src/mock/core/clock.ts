/** Time as the mock sees it. Everything that expires reads this, never Date.now(). */
export interface Clock {
  now(): number;
}

/** The real time plus an offset that tests move forward (POST /__mock/clock). */
export class MovableClock implements Clock {
  #offsetMs = 0;
  constructor(private readonly source: () => number = Date.now) {}

  now(): number {
    return this.source() + this.#offsetMs;
  }

  /** Whether the clock can move this far and still be a valid date. */
  canAdvance(seconds: number): boolean {
    return Number.isFinite(seconds) && seconds >= 0 && this.now() + seconds * 1000 <= MAX_DATE_MS;
  }

  advance(seconds: number): void {
    this.#offsetMs += seconds * 1000;
  }
}

/** The largest time a JavaScript Date can hold (ECMAScript 21.4.1.1). */
const MAX_DATE_MS = 8.64e15;
