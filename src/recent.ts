// What was read from the last few short-lived keys (a body's JSON, a form, a token's fingerprint,
// what a pattern said of a text), kept so that the several readers of one exchange or request, or
// the same text tested again, read it once.
//
// Not a WeakMap: keyed by objects that live for one exchange, a WeakMap kept their values through
// young-generation collections, and V8 moved them to the old generation, to be freed only by a
// full collection. bawa proxy under load (GET Customer/{id}, 50 connections; --trace-gc-nvp) had
// 530 KB promoted per scavenge with the parsed bodies in a WeakMap and 27 KB with this, each
// scavenge 2.0 ms on the main thread and 1.0 ms on the helpers before, 1.3 and 0.5 after.

export interface RecentOptions<K> {
  /** How many keys are kept (4). */
  size?: number;
  /**
   * Whether a key may take a slot; one that may not is read each time. A slot holds its key and
   * value until later keys take it, however long that is: a large body is not held so.
   */
  keeps?: (key: K) => boolean;
}

/** The values of the last few keys read, compared with `===`; an older key is read again. */
export class Recent<K, V> {
  readonly size: number;
  readonly #keeps: ((key: K) => boolean) | undefined;
  readonly #keys: Array<K | undefined>;
  readonly #values: Array<V | undefined>;
  /** The slot written next: the oldest. */
  #next = 0;

  constructor(options: RecentOptions<K> = {}) {
    this.size = options.size ?? 4;
    this.#keeps = options.keeps;
    this.#keys = new Array<K | undefined>(this.size).fill(undefined);
    this.#values = new Array<V | undefined>(this.size).fill(undefined);
  }

  /** The value kept for `key`, or `read(key)`'s, kept in place of the oldest. */
  of(key: K, read: (key: K) => V): V {
    for (let i = 0; i < this.size; i++) if (this.#keys[i] === key) return this.#values[i] as V;
    const value = read(key);
    if (this.#keeps && !this.#keeps(key)) return value;
    this.#keys[this.#next] = key;
    this.#values[this.#next] = value;
    this.#next = (this.#next + 1) % this.size;
    return value;
  }
}
