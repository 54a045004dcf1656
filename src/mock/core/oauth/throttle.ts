// Login throttling (A-LIMITS): wrong passwords are counted per user name, per
// browser (the login's bawa_authz cookie) and per source (the client's
// address). Past a few each answer is held back; past more, logins as that
// user name, from that browser or from that address are locked for a while
// (429, Retry-After), longer with each lock. A loopback address is every
// browser and process of the machine, so it only slows: what a page or a
// script there does locks its own browser or the user names it guessed, never
// the machine. All on the mock's clock, so tests move time instead of sleeping.
import { createHash } from "node:crypto";
import { Bounded } from "../../../bounded.ts";
import {
  LOGIN_DECAY_SECONDS,
  LOGIN_FAILURES_KEPT_SECONDS,
  LOGIN_LOCK_AFTER_PER_BROWSER,
  LOGIN_LOCK_AFTER_PER_SOURCE,
  LOGIN_LOCK_AFTER_PER_USER,
  LOGIN_LOCK_MAX_SECONDS,
  LOGIN_LOCK_SECONDS,
  LOGIN_SLOW_AFTER_PER_BROWSER,
  LOGIN_SLOW_AFTER_PER_SOURCE,
  LOGIN_SLOW_AFTER_PER_USER,
  LOGIN_SLOW_MS,
  MAX_LOGIN_THROTTLE_ENTRIES,
} from "../limits.ts";

interface Failures {
  /**
   * Wrong passwords counted: for a user name those in a row; for a browser or a source a level
   * that drops by one every LOGIN_DECAY_SECONDS and starts again at a lock.
   */
  count: number;
  /** Locks so far, for the doubling. */
  locks: number;
  lockedUntil: number;
  /** The last wrong password (the user name's), or when `count` was last brought up to date. */
  last: number;
}

/** Logins refused for now, and why in words. */
export interface Locked {
  retryAfter: number;
  why: string;
}

/** What to do with the answer to a wrong password: hold it back, or refuse as locked. */
export type AfterFailure = { delayMs: number } | Locked;

/** Who tries to log in: the user name typed, the browser of the login, the source it comes from. */
export interface Attempt {
  user: string;
  /** The login's browser cookie (bawa_authz), which the server minted. */
  browser: string;
  source: string;
  /** The source is a loopback address (or the process itself): one for every browser there. */
  sharedSource: boolean;
}

interface Kind {
  slow: number;
  lock: number;
  /** Whether the count drops with time (else it counts in a row until the right password). */
  decays: boolean;
  words: string;
}
const KINDS = {
  user: { slow: LOGIN_SLOW_AFTER_PER_USER, lock: LOGIN_LOCK_AFTER_PER_USER, decays: false, words: "this user name" },
  browser: {
    slow: LOGIN_SLOW_AFTER_PER_BROWSER,
    lock: LOGIN_LOCK_AFTER_PER_BROWSER,
    decays: true,
    words: "this browser",
  },
  source: { slow: LOGIN_SLOW_AFTER_PER_SOURCE, lock: LOGIN_LOCK_AFTER_PER_SOURCE, decays: true, words: "this address" },
  /** A loopback source: counted, so its wrong passwords are slowed, but never locked. */
  shared: { slow: LOGIN_SLOW_AFTER_PER_SOURCE, lock: Number.POSITIVE_INFINITY, decays: true, words: "this address" },
} as const satisfies Record<string, Kind>;
type KindName = keyof typeof KINDS;

const DECAY_MS = LOGIN_DECAY_SECONDS * 1000;
const KEPT_MS = LOGIN_FAILURES_KEPT_SECONDS * 1000;

export class LoginThrottle {
  /** In order of last use: a full table forgets the entry unused the longest. */
  #entries = new Bounded<string, Failures>(MAX_LOGIN_THROTTLE_ENTRIES);

  /** Whether this attempt's logins are locked now. */
  locked(attempt: Attempt, now: number): Locked | undefined {
    let worst: Locked | undefined;
    for (const [kind, key] of LoginThrottle.#keys(attempt)) {
      const f = this.#current(key, now);
      if (!f || f.lockedUntil <= now) continue;
      const retryAfter = Math.ceil((f.lockedUntil - now) / 1000);
      if (!worst || retryAfter > worst.retryAfter) worst = { retryAfter, why: KINDS[kind].words };
    }
    return worst;
  }

  /** Counts a wrong password for the user name, the browser and the source. */
  failed(attempt: Attempt, now: number): AfterFailure {
    let delayMs = 0;
    let locked: Locked | undefined;
    for (const [kind, key] of LoginThrottle.#keys(attempt)) {
      const limits: Kind = KINDS[kind];
      const f = this.#touch(key, now);
      if (limits.decays) f.count = LoginThrottle.#decayed(f, now);
      f.count++;
      f.last = now;
      if (f.count >= limits.lock) {
        const seconds = Math.min(LOGIN_LOCK_MAX_SECONDS, LOGIN_LOCK_SECONDS * 2 ** f.locks);
        f.locks++;
        f.lockedUntil = now + seconds * 1000;
        // A level starts again after its lock: one more typo later is no new lock.
        if (limits.decays) f.count = 0;
        if (!locked || seconds > locked.retryAfter) locked = { retryAfter: seconds, why: limits.words };
      } else if (f.count > limits.slow) {
        delayMs = LOGIN_SLOW_MS;
      }
    }
    return locked ?? { delayMs };
  }

  /** The right password: the user name's count starts again (the browser's and the source's drop by themselves). */
  succeeded(user: string): void {
    this.#entries.delete(LoginThrottle.#userKey(user));
  }

  /** Forgets failures that are old enough and not locking anything. */
  sweep(now: number): void {
    for (const [key, f] of this.#entries) if (LoginThrottle.#stale(key, f, now)) this.#entries.delete(key);
  }

  clear(): void {
    this.#entries.clear();
  }

  /** Tracked entries (the tests of the table's bound count them). */
  get size(): number {
    return this.#entries.size;
  }

  static #keys(a: Attempt): Array<[KindName, string]> {
    return [
      ["user", LoginThrottle.#userKey(a.user)],
      ["browser", `browser:${a.browser}`],
      a.sharedSource ? ["shared", `shared:${a.source}`] : ["source", `source:${a.source}`],
    ];
  }

  static #userKey(user: string): string {
    // A user name of any length may be typed; the table keeps a short key for it.
    return `user:${user.length <= 100 ? user : createHash("sha256").update(user).digest("base64url")}`;
  }

  /**
   * The key's entry, made the most recently used (a new one when it has none). A full table
   * forgets the entry unused the longest: never one shared by everyone, which a flood of new
   * names would lock for all, and a forgotten count only lets its owner start again.
   */
  #touch(key: string, now: number): Failures {
    const f = this.#current(key, now) ?? { count: 0, locks: 0, lockedUntil: 0, last: now };
    this.#entries.set(key, f);
    return f;
  }

  #current(key: string, now: number): Failures | undefined {
    const f = this.#entries.get(key);
    if (f && LoginThrottle.#stale(key, f, now)) {
      this.#entries.delete(key);
      return undefined;
    }
    return f;
  }

  /** A decaying level as it stands now. */
  static #decayed(f: Failures, now: number): number {
    return Math.max(0, f.count - Math.max(0, now - f.last) / DECAY_MS);
  }

  static #stale(key: string, f: Failures, now: number): boolean {
    if (f.lockedUntil > now) return false;
    if (key.startsWith("user:")) return now - f.last >= KEPT_MS;
    // A level that has dropped to nothing, with no lock in the last quarter of an hour to double.
    return LoginThrottle.#decayed(f, now) === 0 && now - f.lockedUntil >= KEPT_MS;
  }
}
