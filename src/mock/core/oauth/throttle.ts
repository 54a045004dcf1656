// Login throttling (A-LIMITS): wrong passwords are counted per user name and
// per source (the client's address). Past a few in a row each answer is held
// back; past more, logins for that user name or from that source are locked
// for a while (429, Retry-After), longer with each lock. All on the mock's
// clock, so tests move time instead of sleeping.
import { createHash } from "node:crypto";
import {
  LOGIN_FAILURES_KEPT_SECONDS,
  LOGIN_LOCK_AFTER_PER_SOURCE,
  LOGIN_LOCK_AFTER_PER_USER,
  LOGIN_LOCK_MAX_SECONDS,
  LOGIN_LOCK_SECONDS,
  LOGIN_SLOW_AFTER_PER_SOURCE,
  LOGIN_SLOW_AFTER_PER_USER,
  LOGIN_SLOW_MS,
  MAX_LOGIN_THROTTLE_ENTRIES,
} from "../limits.ts";

interface Failures {
  /** Wrong passwords in a row (never reset for a source; it may be many users). */
  count: number;
  /** Locks so far, for the doubling. */
  locks: number;
  lockedUntil: number;
  last: number;
}

/** Logins refused for now, and why in words. */
export interface Locked {
  retryAfter: number;
  why: string;
}

/** What to do with the answer to a wrong password: hold it back, or refuse as locked. */
export type AfterFailure = { delayMs: number } | Locked;

const KINDS = {
  user: { slow: LOGIN_SLOW_AFTER_PER_USER, lock: LOGIN_LOCK_AFTER_PER_USER, words: "this user name" },
  source: { slow: LOGIN_SLOW_AFTER_PER_SOURCE, lock: LOGIN_LOCK_AFTER_PER_SOURCE, words: "this address" },
} as const;
type Kind = keyof typeof KINDS;

export class LoginThrottle {
  #entries = new Map<string, Failures>();

  /** Whether logins as `user` from `source` are locked now. */
  locked(user: string, source: string, now: number): Locked | undefined {
    let worst: Locked | undefined;
    for (const [kind, key] of this.#keys(user, source)) {
      const f = this.#current(key, now);
      if (!f || f.lockedUntil <= now) continue;
      const retryAfter = Math.ceil((f.lockedUntil - now) / 1000);
      if (!worst || retryAfter > worst.retryAfter) worst = { retryAfter, why: KINDS[kind].words };
    }
    return worst;
  }

  /** Counts a wrong password for the user name and the source. */
  failed(user: string, source: string, now: number): AfterFailure {
    let delayMs = 0;
    let locked: Locked | undefined;
    for (const [kind, key] of this.#keys(user, source)) {
      const limits = KINDS[kind];
      const f = this.#current(key, now) ?? this.#add(key);
      f.count++;
      f.last = now;
      if (f.count >= limits.lock) {
        const seconds = Math.min(LOGIN_LOCK_MAX_SECONDS, LOGIN_LOCK_SECONDS * 2 ** f.locks);
        f.locks++;
        f.lockedUntil = now + seconds * 1000;
        if (!locked || seconds > locked.retryAfter) locked = { retryAfter: seconds, why: limits.words };
      } else if (f.count > limits.slow) {
        delayMs = LOGIN_SLOW_MS;
      }
    }
    return locked ?? { delayMs };
  }

  /** The right password: the user name's count starts again (the source's does not). */
  succeeded(user: string): void {
    this.#entries.delete(this.#userKey(user));
  }

  /** Forgets failures that are old enough and not locking anything. */
  sweep(now: number): void {
    for (const [key, f] of this.#entries) if (LoginThrottle.#stale(f, now)) this.#entries.delete(key);
  }

  clear(): void {
    this.#entries.clear();
  }

  #keys(user: string, source: string): Array<[Kind, string]> {
    return [
      ["user", this.#tracked(this.#userKey(user))],
      ["source", this.#tracked(`source:${source}`)],
    ];
  }

  #userKey(user: string): string {
    // A user name of any length may be typed; the table keeps a short key for it.
    return `user:${user.length <= 100 ? user : createHash("sha256").update(user).digest("base64url")}`;
  }

  /** The key itself while the table has room or already tracks it; else the shared key of its kind. */
  #tracked(key: string): string {
    if (this.#entries.has(key) || this.#entries.size < MAX_LOGIN_THROTTLE_ENTRIES) return key;
    return `${key.slice(0, key.indexOf(":"))}:(shared)`;
  }

  #current(key: string, now: number): Failures | undefined {
    const f = this.#entries.get(key);
    if (f && LoginThrottle.#stale(f, now)) {
      this.#entries.delete(key);
      return undefined;
    }
    return f;
  }

  #add(key: string): Failures {
    const f = { count: 0, locks: 0, lockedUntil: 0, last: 0 };
    this.#entries.set(key, f);
    return f;
  }

  static #stale(f: Failures, now: number): boolean {
    return f.lockedUntil <= now && now - f.last >= LOGIN_FAILURES_KEPT_SECONDS * 1000;
  }
}
