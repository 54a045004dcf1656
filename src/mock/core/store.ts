// Customers, kept per database. Plain in-memory maps; the seed is kept so
// that POST /__mock/reset can restore it.
import type { components } from "../../contract/generated/openapi.ts";
import type { Change, Journal } from "./changes.ts";
import { MAX_CUSTOMERS_PER_DATABASE } from "./limits.ts";

export type Customer = components["schemas"]["Customer"];
export type CustomerInfo = components["schemas"]["CustomerInfo"];
/** Customers per database: each call gives new objects (the first start's, then read again on a reset). */
export type Seed = Readonly<Record<string, () => Customer[]>>;

// A-CUSTOMER-IDS: automatic ids are numbers of at most eight digits.
const MAX_AUTOMATIC_ID = 99_999_999;
const AUTOMATIC_ID = /^[1-9][0-9]{0,7}$/;

export class CustomerStore {
  #databases = new Map<string, Map<string, Customer>>();
  #nextId = new Map<string, number>();
  #nextOrganization = new Map<string, number>();
  #memo = new Map<string, Map<string, unknown>>();

  constructor(
    private readonly seed: Seed = {},
    private readonly journal?: Journal,
  ) {
    this.#load();
  }

  /** Replays a change recorded earlier (on start with a data directory), without recording it again. */
  replay(c: Change): void {
    if (c.op === "reset") this.#load(c.db);
    else if (c.op === "put") this.#put(c.db, c.customer);
    else if (c.op === "delete") this.#databases.get(c.db)?.delete(c.id);
    else if (c.op === "clear") {
      this.#databases.clear();
      this.#nextId.clear();
      this.#nextOrganization.clear();
    } else if (c.op === "counters") {
      this.#nextId.set(c.db, Math.max(c.nextId, this.#nextId.get(c.db) ?? 1));
      this.#nextOrganization.set(c.db, Math.max(c.nextOrganization, this.#nextOrganization.get(c.db) ?? 1));
    }
    this.#memo.clear();
  }

  /** The changes that rebuild every database as it is now, for a snapshot (counters included). */
  *snapshot(): Generator<Change> {
    yield { op: "clear" };
    for (const [db, customers] of this.#databases) {
      yield {
        op: "counters",
        db,
        nextId: this.#nextId.get(db) ?? 1,
        nextOrganization: this.#nextOrganization.get(db) ?? 1,
      };
      for (const customer of customers.values()) yield { op: "put", db, customer };
    }
  }

  /** Restores every database from the seed, or only `db`. */
  reset(db?: string): void {
    this.journal?.append(db === undefined ? { op: "reset" } : { op: "reset", db });
    this.#load(db);
  }

  #load(only?: string): void {
    for (const db of only === undefined ? [...this.#databases.keys()] : [only]) {
      this.#databases.delete(db);
      this.#nextId.delete(db);
      this.#nextOrganization.delete(db);
      this.#memo.delete(db);
    }
    for (const [db, customers] of Object.entries(this.seed)) {
      if (only !== undefined && db !== only) continue;
      for (const c of customers()) this.#put(db, c);
    }
  }

  /** The databases that hold customers or have a seed, with their number of customers. */
  databases(): Array<{ database: string; customers: number }> {
    const names = new Set([...Object.keys(this.seed), ...this.#databases.keys()]);
    return [...names].sort().map((database) => ({ database, customers: this.#databases.get(database)?.size ?? 0 }));
  }

  /**
   * A value computed from a database's customers, kept until the next write
   * to that database (the encoded info list, for one).
   */
  memo<T>(db: string, key: string, compute: () => T): T {
    let m = this.#memo.get(db);
    if (!m) {
      m = new Map();
      this.#memo.set(db, m);
    }
    if (!m.has(key)) m.set(key, compute());
    return m.get(key) as T;
  }

  #db(db: string): Map<string, Customer> {
    this.#memo.delete(db);
    let m = this.#databases.get(db);
    if (!m) {
      m = new Map();
      this.#databases.set(db, m);
    }
    return m;
  }

  #put(db: string, c: Customer): void {
    this.#db(db).set(c.CustomerId, c);
    // Only ids that look like automatic ones move the counter: "1e21" or "0012" are not numbers here.
    const n = AUTOMATIC_ID.test(c.CustomerId) ? Number(c.CustomerId) : 0;
    if (n >= (this.#nextId.get(db) ?? 1) && n < MAX_AUTOMATIC_ID) this.#nextId.set(db, n + 1);
    if (c.OrganizationId >= (this.#nextOrganization.get(db) ?? 1)) this.#nextOrganization.set(db, c.OrganizationId + 1);
  }

  /** Customers of a database in the order they were created (A-LIST-SHAPE). */
  list(db: string): Customer[] {
    return [...(this.#databases.get(db)?.values() ?? [])];
  }

  get(db: string, id: string): Customer | undefined {
    return this.#databases.get(db)?.get(id);
  }

  /**
   * Stores a new customer. An empty `CustomerId` gets the next free number;
   * a chosen one is kept when it is free. The service assigns `OrganizationId`.
   */
  create(db: string, input: Customer): { ok: true; customer: Customer } | { ok: false; field: string; reason: string } {
    const size = this.#databases.get(db)?.size ?? 0;
    if (size >= MAX_CUSTOMERS_PER_DATABASE) {
      return {
        ok: false,
        field: "",
        reason: `database ${db} holds ${size} customers, the most this mock keeps (A-LIMITS)`,
      };
    }
    let id = input.CustomerId;
    if (id === "") {
      id = this.#freeId(db);
    } else if (this.get(db, id)) {
      return { ok: false, field: "CustomerId", reason: `${id} is already in use` };
    }
    const customer = { ...input, CustomerId: id, OrganizationId: this.#nextOrganization.get(db) ?? 1 };
    this.journal?.append({ op: "put", db, customer });
    this.#put(db, customer);
    return { ok: true, customer };
  }

  /** The next automatic id that no customer of the database has; never one in use. */
  #freeId(db: string): string {
    const taken = this.#databases.get(db);
    for (let n = this.#nextId.get(db) ?? 1; n <= MAX_AUTOMATIC_ID; n++) if (!taken?.has(String(n))) return String(n);
    // The counter reached eight digits: the lowest free number (the cap keeps one free).
    for (let n = 1; ; n++) if (!taken?.has(String(n))) return String(n);
  }

  /** Replaces a customer; the identifiers stay the service's own. Undefined when the id is unknown. */
  replace(db: string, id: string, input: Customer): Customer | undefined {
    const old = this.get(db, id);
    if (!old) return undefined;
    const customer = { ...input, CustomerId: id, OrganizationId: old.OrganizationId };
    this.journal?.append({ op: "put", db, customer });
    this.#db(db).set(id, customer);
    return customer;
  }

  delete(db: string, id: string): boolean {
    if (!this.get(db, id)) return false;
    this.journal?.append({ op: "delete", db, id });
    const deleted = this.#databases.get(db)?.delete(id) ?? false;
    if (deleted) this.#memo.delete(db);
    return deleted;
  }
}

/** The fields of an info object (A-INFO-FIELDS). */
export const INFO_FIELDS = [
  "CustomerId",
  "Name",
  "ShortName",
  "City",
  "CountryId",
  "CustomerStateId",
  "Email",
  "Telephone",
];

/** The info object of a customer (A-INFO-FIELDS). */
export function infoOf(c: Customer): CustomerInfo {
  return {
    CustomerId: c.CustomerId,
    Name: c.Name,
    ShortName: c.ShortName,
    City: c.City,
    CountryId: c.CountryId,
    CustomerStateId: c.CustomerStateId,
    Email: c.Email,
    Telephone: c.Telephone,
  };
}
