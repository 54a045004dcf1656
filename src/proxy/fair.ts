// Turns at the target for the proxy's clients. The upstream pool holds a fixed
// number of requests at once; one client (an address) may hold only a share of
// it, and what it sends beyond waits in the proxy, unread, in the order it came.
// A freed place goes to the waiting clients in turn, so a client that keeps
// many slow requests going never makes another wait behind all of them.

/** Requests at the target at once, over all clients: the upstream pool's sockets. */
export const POOL_SIZE = 128;
/** Requests one client address may have at the target at once: a quarter of the pool. */
export const PER_CLIENT = 32;

interface Waiting {
  start(release: () => void): void;
}

interface Client {
  active: number;
  /** Insertion-ordered: the first is the oldest; a request whose client left is deleted at once. */
  waiting: Set<Waiting>;
}

export class FairGate {
  #active = 0;
  readonly #clients = new Map<string, Client>();
  /** Clients with requests waiting, in the order their turn comes. */
  readonly #turns = new Set<string>();

  constructor(
    readonly poolSize = POOL_SIZE,
    readonly perClient = PER_CLIENT,
  ) {}

  /**
   * Starts `start` once `client` may have one more request at the target; `start` gets the
   * function to call (once) when that request is done. Returns a function that withdraws the
   * request while it still waits (its client went away).
   */
  enter(client: string, start: (release: () => void) => void): () => void {
    const c = this.#clients.get(client) ?? { active: 0, waiting: new Set<Waiting>() };
    this.#clients.set(client, c);
    const entry: Waiting = { start };
    c.waiting.add(entry);
    this.#turns.add(client);
    this.#next();
    return () => {
      if (!c.waiting.delete(entry)) return;
      if (c.waiting.size === 0) this.#turns.delete(client);
      this.#forget(client, c);
    };
  }

  #next(): void {
    while (this.#active < this.poolSize) {
      const client = this.#firstAllowed();
      if (client === undefined) return;
      const c = this.#clients.get(client)!;
      const entry = c.waiting.values().next().value!;
      c.waiting.delete(entry);
      // Its turn is over: it waits again behind every other waiting client.
      this.#turns.delete(client);
      if (c.waiting.size > 0) this.#turns.add(client);
      c.active++;
      this.#active++;
      let released = false;
      entry.start(() => {
        if (released) return;
        released = true;
        c.active--;
        this.#active--;
        this.#forget(client, c);
        this.#next();
      });
    }
  }

  /** The first client in turn that may have one more request at the target (no copy of the turns: this runs per request). */
  #firstAllowed(): string | undefined {
    for (const name of this.#turns) if (this.#clients.get(name)!.active < this.perClient) return name;
    return undefined;
  }

  #forget(name: string, c: Client): void {
    if (c.active === 0 && c.waiting.size === 0 && this.#clients.get(name) === c) this.#clients.delete(name);
  }
}
