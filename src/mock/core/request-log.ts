import { isoTime } from "./clock.ts";

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
  // Present and undefined rather than absent: every entry then has one shape (see record()).
  route?: string | undefined;
  code?: string | undefined;
  client?: string | undefined;
  user?: string | undefined;
  database?: string | undefined;
  /** The resource of the contract a data call reached. */
  resource?: string | undefined;
  problem?: string | undefined;
  ignored?: readonly string[] | undefined;
  /** The scenarios that were on, when any were. */
  scenarios?: string | undefined;
  /** Rules the answer broke, as bawa proxy judged it (src/proxy/), each with its requirement id. */
  violations?: readonly LoggedViolation[] | undefined;
}

/** A rule an answer broke: the requirement's id, where the value is, what was expected and found. */
export interface LoggedViolation {
  requirement: string;
  where: string;
  expected: string;
  found?: string | undefined;
}

/** What is recorded per request: the times as numbers, turned into ISO text only when read. */
export type Recorded = Omit<LoggedRequest, "id" | "time" | "mockTime"> & { at: number; mockAt: number };
/** An entry as kept: its times as numbers (what a listener is given; `readable()` makes them text). */
export type Entry = Omit<LoggedRequest, "time" | "mockTime"> & { at: number; mockAt: number };

export const LOG_SIZE = 500;
const MAX_TEXT = 300;

const cut = (s: string | undefined) => (s !== undefined && s.length > MAX_TEXT ? `${s.slice(0, MAX_TEXT)}...` : s);

export class RequestLog {
  // A ring: the entry with id i sits at (i - 1) % size, so recording never moves the others.
  #ring: Entry[] = [];
  #next = 1;
  /** The oldest id kept since the last clear(). */
  #first = 1;
  #listeners = new Set<(e: Entry) => void>();

  constructor(readonly size = LOG_SIZE) {}

  record(entry: Recorded): void {
    // Written out as a literal of one shape: this runs on every request, and an object spread
    // from optional fields is several times larger and slower to make. Dates become text when read.
    const e: Entry = {
      id: this.#next++,
      at: entry.at,
      mockAt: entry.mockAt,
      method: entry.method,
      path: cut(entry.path)!,
      status: entry.status,
      ms: entry.ms,
      route: entry.route,
      code: entry.code,
      // What a client sent (a client id of two million characters is answered 413, and logged).
      client: cut(entry.client),
      user: cut(entry.user),
      database: cut(entry.database),
      resource: entry.resource,
      problem: cut(entry.problem),
      ignored: entry.ignored?.length ? entry.ignored.slice(0, 20).map((i) => cut(i)!) : undefined,
      scenarios: entry.scenarios,
      violations: entry.violations,
    };
    this.#ring[(e.id - 1) % this.size] = e;
    for (const l of this.#listeners) l(e);
  }

  /** Entries after the id `after` (0: all kept), oldest first. */
  since(after = 0): LoggedRequest[] {
    const out: LoggedRequest[] = [];
    for (let id = Math.max(after + 1, this.#oldest()); id < this.#next; id++)
      out.push(readable(this.#ring[(id - 1) % this.size]!));
    return out;
  }

  #oldest(): number {
    return Math.max(this.#first, this.#next - this.size);
  }

  get length(): number {
    return this.#next - this.#oldest();
  }

  /**
   * Called with every new entry as it is kept, its times as numbers (the command line prints
   * them; a listener runs on every request, so it is given the entry without a copy).
   */
  subscribe(listener: (e: Entry) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  clear(): void {
    this.#ring = [];
    this.#first = this.#next;
  }
}

/** An entry as the log shows it: its times as ISO text (a time past the calendar's end says so). */
function readable(e: Entry): LoggedRequest {
  const { at, mockAt, ...rest } = e;
  return { ...rest, time: isoTime(at), mockTime: isoTime(mockAt) } as LoggedRequest;
}
