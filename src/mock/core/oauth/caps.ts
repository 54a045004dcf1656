// Fair caps (A-LIMITS): a map of what the authorization server keeps for its
// clients (pending logins, codes, tokens), counted overall and per owner (the
// client, the source). A full cap refuses the newcomer and says when the oldest
// entry it counts will be dropped; it never drops someone else's entry to make
// room. Entries that have ended are dropped as the sweep would, only sooner.
import type { MockRequest } from "../http.ts";

/** A cap that is full: which, and when waiting makes room. */
export interface CapReached {
  /** What is counted and for whom, in words: "access tokens per client". */
  cap: string;
  limit: number;
  /** The refusal, whole: who holds how many, and what to do. */
  message: string;
  /** Seconds until the oldest entry counted is dropped; absent when waiting alone makes no room. */
  retryAfter?: number;
}

export interface CapSpec<V> {
  /** What an entry is, plural, for the messages ("access tokens"). */
  what: string;
  overall: number;
  /**
   * The caps per owner, checked in this order: the owner's kind in words, its limit, an entry's
   * owner, and which of an owner's entries a newcomer of the same owner may displace when the cap
   * is full (its oldest such one goes; never another owner's); `named` says who the owner is in
   * a refusal, where the owner itself is no one's to read (a browser's cookie).
   */
  per: ReadonlyArray<{
    of: string;
    limit: number;
    owner: (v: V) => string;
    displaces?: (v: V) => boolean;
    named?: string;
  }>;
  /** When an entry may be dropped, on the mock's clock; undefined: not until it changes (a live refresh token). */
  droppableAt: (v: V) => number | undefined;
  /** What to say when the entries counted do not end by themselves. */
  whenNeverEnding?: string;
  /** Told of every entry dropped because it ended (not of deletes the owner of the map makes). */
  onDrop?: (key: string, v: V) => void;
}

/** A full cap is scanned again at most this often (mock's clock), so a flood of refusals costs no scans. */
const RESCAN_MS = 1_000;

export class CappedMap<V> {
  readonly #all = new Map<string, V>();
  /** Per cap of `per`: each owner's keys, in insertion order. */
  readonly #owned: Array<Map<string, Set<string>>>;
  /** When a full cap was last scanned and when its oldest entry ends, by cap (`all`, or `index:owner`). */
  readonly #hints = new Map<string, { at: number; retryAt: number | undefined }>();

  constructor(private readonly spec: CapSpec<V>) {
    this.#owned = spec.per.map(() => new Map());
  }

  get size(): number {
    return this.#all.size;
  }

  get(key: string): V | undefined {
    return this.#all.get(key);
  }

  has(key: string): boolean {
    return this.#all.has(key);
  }

  /**
   * Keeps an entry. A new one is counted but never refused: callers ask room() first, and a
   * data directory's replay puts back what was kept before. An entry's owners never change.
   */
  set(key: string, value: V): void {
    if (!this.#all.has(key)) {
      this.spec.per.forEach((p, i) => {
        const owner = p.owner(value);
        const owned = this.#owned[i]!;
        const keys = owned.get(owner);
        if (keys) keys.add(key);
        else owned.set(owner, new Set([key]));
      });
    }
    this.#all.set(key, value);
  }

  delete(key: string): boolean {
    const value = this.#all.get(key);
    if (value === undefined) return false;
    this.#all.delete(key);
    this.spec.per.forEach((p, i) => {
      const owner = p.owner(value);
      const keys = this.#owned[i]!.get(owner);
      keys?.delete(key);
      if (keys?.size === 0) {
        this.#owned[i]!.delete(owner);
        this.#hints.delete(`${i}:${owner}`);
      }
    });
    return true;
  }

  clear(): void {
    this.#all.clear();
    for (const owned of this.#owned) owned.clear();
    this.#hints.clear();
  }

  keys(): IterableIterator<string> {
    return this.#all.keys();
  }

  values(): IterableIterator<V> {
    return this.#all.values();
  }

  entries(): IterableIterator<[string, V]> {
    return this.#all.entries();
  }

  [Symbol.iterator](): IterableIterator<[string, V]> {
    return this.#all.entries();
  }

  /** Drops every entry that has ended. */
  sweep(now: number): void {
    for (const key of this.#all.keys()) this.#dropIfEnded(key, now);
  }

  /**
   * Whether one more entry of these owners (one per cap of `per`, in its order) fits, or
   * which cap is full. Checked per owner first, so a flood hears its own cap named.
   */
  room(owners: readonly string[], now: number): CapReached | undefined {
    const { spec } = this;
    for (const [i, p] of spec.per.entries()) {
      const owner = owners[i]!;
      const keys = this.#owned[i]!.get(owner);
      if (!keys || keys.size < p.limit) continue;
      const retryAt = this.#stillFull(`${i}:${owner}`, keys, () => keys.size < p.limit, now);
      if (retryAt !== "room" && p.displaces && this.#displace(keys, p.displaces)) {
        this.#hints.delete(`${i}:${owner}`);
        continue;
      }
      if (retryAt !== "room") {
        const who = `${p.named ?? `The ${p.of} ${owner}`} has ${count(p.limit)} ${spec.what}, the most one ${p.of} may have (A-LIMITS)`;
        return this.#reached(`${spec.what} per ${p.of}`, p.limit, who, retryAt, now);
      }
    }
    if (this.#all.size < spec.overall) return undefined;
    const retryAt = this.#stillFull("all", this.#all.keys(), () => this.#all.size < spec.overall, now);
    if (retryAt === "room") return undefined;
    const who = `The mock holds ${count(spec.overall)} ${spec.what}, the most it keeps (A-LIMITS)`;
    return this.#reached(`${spec.what} overall`, spec.overall, who, retryAt, now);
  }

  /**
   * Scans a full cap's entries (at most once per RESCAN_MS): drops those that have ended and
   * answers "room" when that made some, else when the first of the rest ends (undefined: never).
   */
  #stillFull(id: string, keys: Iterable<string>, fits: () => boolean, now: number): "room" | number | undefined {
    const hint = this.#hints.get(id);
    if (hint && now - hint.at < RESCAN_MS && (hint.retryAt === undefined || now < hint.retryAt)) return hint.retryAt;
    let retryAt: number | undefined;
    // Deleting from a Map or Set while iterating it is safe: the rest is still visited.
    for (const key of keys) {
      const end = this.#dropIfEnded(key, now);
      if (end !== undefined && (retryAt === undefined || end < retryAt)) retryAt = end;
    }
    if (fits()) {
      this.#hints.delete(id);
      return "room";
    }
    this.#hints.set(id, { at: now, retryAt });
    return retryAt;
  }

  /** Drops the oldest of an owner's entries that may be displaced; false when none may. */
  #displace(keys: Set<string>, displaces: (v: V) => boolean): boolean {
    for (const key of keys) {
      if (displaces(this.#all.get(key)!)) return this.delete(key);
    }
    return false;
  }

  /** Drops the entry when it has ended; else tells when it will (undefined: not by itself). */
  #dropIfEnded(key: string, now: number): number | undefined {
    const value = this.#all.get(key);
    if (value === undefined) return undefined;
    const end = this.spec.droppableAt(value);
    if (end === undefined || end > now) return end;
    this.delete(key);
    this.spec.onDrop?.(key, value);
    return undefined;
  }

  #reached(cap: string, limit: number, who: string, retryAt: number | undefined, now: number): CapReached {
    if (retryAt === undefined) {
      return { cap, limit, message: `${who}; ${this.spec.whenNeverEnding ?? "they do not end by themselves"}.` };
    }
    const retryAfter = Math.max(1, Math.ceil((retryAt - now) / 1000));
    return {
      cap,
      limit,
      retryAfter,
      message: `${who}; try again in ${count(retryAfter)} s, when the oldest is dropped.`,
    };
  }
}

const count = (n: number) => n.toLocaleString("en");

/**
 * Whether a request comes from this machine (a loopback address) or from the process itself: then
 * its source is every browser and process of the machine, and names no one in particular.
 */
export function isLocalSource(req: Pick<MockRequest, "remoteAddress">): boolean {
  const address = req.remoteAddress?.split("%")[0]?.toLowerCase();
  if (!address) return true;
  return /^(::ffff:)?127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(address) || /^(0+:){7}0*1$|^::(0+:)*0*1$/.test(address);
}

/**
 * The source a request comes from, as the caps and the login throttle count it: the client's
 * address, an IPv6 address by its /64 (one host usually holds a whole /64), and every call in
 * process as one source.
 */
export function sourceOf(req: Pick<MockRequest, "remoteAddress">): string {
  const address = req.remoteAddress?.split("%")[0];
  if (!address) return "(in process)";
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (!address.includes(":")) return address;
  const [head = "", tail] = address.toLowerCase().split("::");
  const front = head ? head.split(":") : [];
  const back = tail ? tail.split(":") : [];
  const groups = tail === undefined ? front : [...front, ...Array(8 - front.length - back.length).fill("0"), ...back];
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}
