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

  advance(seconds: number): void {
    this.#offsetMs += seconds * 1000;
  }
}
