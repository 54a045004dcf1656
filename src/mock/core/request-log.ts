// The last requests the mock answered, in memory and bounded: what a frontend
// developer looks at to see why a call failed (GET /__mock/requests, the dashboard).

export interface LoggedRequest {
  id: number;
  /** Wall-clock time, and the mock's time (it differs once the clock was moved). */
  time: string;
  mockTime: string;
  method: string;
  path: string;
  status: number;
  ms: number;
  route?: string;
  code?: string;
  client?: string;
  user?: string;
  database?: string;
  problem?: string;
  ignored?: readonly string[];
  /** The scenarios that were on, when any were. */
  scenarios?: string;
}

export const LOG_SIZE = 500;
const MAX_TEXT = 300;

const cut = (s: string | undefined) => (s !== undefined && s.length > MAX_TEXT ? `${s.slice(0, MAX_TEXT)}...` : s);

export class RequestLog {
  #entries: LoggedRequest[] = [];
  #next = 1;
  #listeners = new Set<(e: LoggedRequest) => void>();

  constructor(readonly size = LOG_SIZE) {}

  record(entry: Omit<LoggedRequest, "id">): void {
    const e: LoggedRequest = { ...entry, id: this.#next++, path: cut(entry.path)! };
    if (e.problem !== undefined) e.problem = cut(e.problem)!;
    if (e.ignored) e.ignored = e.ignored.slice(0, 20).map((i) => cut(i)!);
    this.#entries.push(e);
    if (this.#entries.length > this.size) this.#entries.splice(0, this.#entries.length - this.size);
    for (const l of this.#listeners) l(e);
  }

  /** Entries after the id `after` (0: all kept), oldest first. */
  since(after = 0): LoggedRequest[] {
    return this.#entries.filter((e) => e.id > after);
  }

  get length(): number {
    return this.#entries.length;
  }

  /** Called with every new entry (the command line prints them). */
  subscribe(listener: (e: LoggedRequest) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  clear(): void {
    this.#entries = [];
  }
}
