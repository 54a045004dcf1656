// A Map that forgets its oldest entries beyond a limit: what the judge remembers between exchanges
// and what the mock's login throttle counts, both kept for days on end by a server, so both bounded.

/** What the entries of a {@link Bounded} weigh, and the most they may weigh together. */
export interface Weighing<V, K = unknown> {
  /** The most the entries may weigh together: past it the oldest are forgotten, as past the count. */
  limit: number;
  /** What an entry weighs (bytes, as the caller reckons them), read once when it is set; a key a client chose counts too. */
  of(value: V, key: K): number;
}

/**
 * A Map that forgets its oldest entries beyond `limit`, and beyond the weight `weighing` allows
 * when it is given; setting a key makes it the newest. An entry that alone weighs more than the
 * limit is not kept (the key's earlier entry goes too: it is not what the key holds any more).
 */
export class Bounded<K, V> extends Map<K, V> {
  readonly #weighing: Weighing<V, K> | undefined;
  /** What each kept entry weighed when it was set: a value may change inside, its weight may not. */
  readonly #weights: Map<K, number> | undefined;
  #weight = 0;

  constructor(
    readonly limit = 10_000,
    weighing?: Weighing<V, K>,
  ) {
    super();
    this.#weighing = weighing;
    this.#weights = weighing ? new Map() : undefined;
  }

  /** What the kept entries weigh together (0 without a weighing). */
  get weight(): number {
    return this.#weight;
  }

  /** The key set last: it is the newest already (or gone, and goes in at the end). */
  #newest: K | undefined;
  /**
   * Walks the keys from the oldest, one eviction at a time. A fresh `keys()` each time would start
   * at the table's first slot and step over every entry deleted since the table was last rebuilt:
   * thousands at the limit, 7 µs a set (measured) where this costs a fraction of one.
   *
   * A live iterator holds the table it last read, and V8 links each table it replaces to the next
   * one: until the walk moves on, every table rebuilt since stays in memory. A walk that evicts
   * nothing for as many sets as the map has entries is dropped (a review measured a full map whose
   * keys were only moved: 13 MB more for every 250,000 sets while the walk was kept); a fresh one
   * then costs one pass over the table, once per that many sets.
   */
  #oldest: Iterator<K> | undefined;
  /** Sets since the walk last evicted. */
  #quiet = 0;

  override set(key: K, value: V): this {
    // The judge sets a key per exchange, and often the one it set before (the same object read
    // again): moving an entry to the end is a delete and an insert, which refills the table.
    if (this.#newest !== key) {
      this.delete(key);
      this.#newest = key;
    }
    let evicted = false;
    if (this.#weighing) {
      const weight = this.#weighing.of(value, key);
      if (weight > this.#weighing.limit) {
        this.delete(key);
        return this;
      }
      this.#weight += weight - (this.#weights!.get(key) ?? 0);
      this.#weights!.set(key, weight);
      super.set(key, value);
      // The others weigh more than nothing while the whole is over (this one alone is within the
      // limit), so the walk meets an older key first each time.
      while (this.#weight > this.#weighing.limit) {
        this.delete(this.#next());
        evicted = true;
      }
    } else {
      super.set(key, value);
    }
    if (this.size > this.limit) {
      this.delete(this.#next());
      evicted = true;
    }
    if (evicted) this.#quiet = 0;
    else if (this.#oldest && ++this.#quiet > this.size) {
      this.#oldest = undefined;
      this.#quiet = 0;
    }
    return this;
  }

  override delete(key: K): boolean {
    const weight = this.#weights?.get(key);
    if (weight !== undefined) {
      this.#weight -= weight;
      this.#weights!.delete(key);
    }
    return super.delete(key);
  }

  override clear(): void {
    // The walk would hold the cleared table, and every table after it, until the next eviction.
    this.#oldest = undefined;
    this.#quiet = 0;
    this.#weights?.clear();
    this.#weight = 0;
    super.clear();
  }

  /**
   * The oldest key. Every key the walk passed was deleted then, or deleted and set again (which puts
   * it at the end, where the walk meets it again), so the next key it finds is the oldest there is;
   * it is asked only when the map holds more than its limit, so there is one (clear() ends the walk).
   */
  #next(): K {
    this.#oldest ??= this.keys();
    return this.#oldest.next().value as K;
  }
}
