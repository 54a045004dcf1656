// The objects of every collection of the contract (resources.ts), kept per
// database, or for the whole service when a collection's paths have no
// database segment. Plain in-memory maps; the seed is kept so that
// POST /__mock/reset can restore it.
import type { Collection, ResourceModel } from "../../contract/index.ts";
import type { Change, Journal } from "./changes.ts";
import { MAX_OBJECTS_PER_DATABASE } from "./limits.ts";

/** An object as stored: the contract's properties of its collection. Never changed in place. */
export type StoredObject = Readonly<Record<string, unknown>>;
/**
 * A seed file's objects not parsed yet (a large file, seed-index.ts): what storing them needs
 * (their ids, in order, and the sequences' next values), and each object when it is first read.
 */
export interface UnreadObjects {
  readonly count: number;
  /** Each object's id, as the store keys it; empty when the collection has no id property. */
  readonly ids: readonly string[];
  readonly sequences: Readonly<Record<string, number>>;
  read(i: number): StoredObject;
}
export type SeedObjects = readonly StoredObject[] | UnreadObjects;
/**
 * Seed data: per collection, per database (`""` for a collection of the whole service), a
 * function giving new objects (the first start's, then read again on a reset).
 */
export type Seed = Readonly<Record<string, Readonly<Record<string, () => SeedObjects>>>>;

/** Every object of a seed file, parsed now if it was not. */
export const everyObject = (objects: SeedObjects): readonly StoredObject[] =>
  isUnread(objects) ? Array.from({ length: objects.count }, (_, i) => objects.read(i)) : objects;

const isUnread = (objects: SeedObjects): objects is UnreadObjects => !Array.isArray(objects);

/** An object of the seed kept in the store before it is first read: read, it takes this one's place. */
class Unread {
  constructor(
    readonly from: UnreadObjects,
    readonly i: number,
  ) {}
}

/**
 * The next value of each sequence after an object, as storing it leaves them: a safe integer at or
 * over the next value moves it past itself (the seed's index counts them so, seed-index.ts).
 */
export function countSequences(keys: readonly string[], o: StoredObject, next: Map<string, number>): void {
  for (const k of keys) {
    const v = o[k];
    if (typeof v === "number" && Number.isSafeInteger(v) && v >= (next.get(k) ?? 1)) next.set(k, v + 1);
  }
}
/** The database key of collections that are not kept per database. */
export const SERVICE_WIDE = "";

// Automatic ids are decimal numbers of at most this many digits when the id has no maxLength.
const MAX_ID_DIGITS = 15;
const AUTOMATIC_ID = /^[1-9][0-9]*$/;

/** One collection in one database: its objects in creation order, and the counters of what the service assigns. */
interface Shelf {
  objects: Map<string, StoredObject | Unread>;
  nextId: number;
  sequences: Map<string, number>;
  memo: Map<string, unknown> | undefined;
}

export type Created = { ok: true; object: StoredObject } | { ok: false; field: string; reason: string };

export class ObjectStore {
  /** Collection name → database → shelf. */
  #shelves = new Map<string, Map<string, Shelf>>();
  readonly #collections: ReadonlyMap<string, Collection>;

  constructor(
    readonly model: ResourceModel,
    private readonly seed: Seed = {},
    private readonly journal?: Journal,
  ) {
    this.#collections = new Map(model.collections.map((c) => [c.name, c]));
    for (const c of model.collections) this.#shelves.set(c.name, new Map());
    this.#load();
  }

  #collection(name: string): Collection {
    const c = this.#collections.get(name);
    if (!c) throw new Error(`store: no collection ${name}`);
    return c;
  }

  /** Replays a change recorded earlier (on start with a data directory), without recording it again. */
  replay(c: Change): void {
    if (c.op === "reset") this.#load(c.db);
    else if (c.op === "put") this.#put(this.#collection(c.resource), c.db, c.object);
    else if (c.op === "delete") this.#shelf(c.resource, c.db)?.objects.delete(c.id);
    else if (c.op === "clear") {
      for (const c of this.model.collections) if (c.editable) this.#shelves.set(c.name, new Map());
    } else if (c.op === "counters") {
      const shelf = this.#shelfFor(this.#collection(c.resource), c.db);
      shelf.nextId = Math.max(c.nextId, shelf.nextId);
      for (const [k, v] of Object.entries(c.sequences))
        shelf.sequences.set(k, Math.max(v, shelf.sequences.get(k) ?? 1));
    }
    if (c.op === "put" || c.op === "delete" || c.op === "counters") this.#changed(c.resource, c.db);
  }

  /**
   * The changes that rebuild every editable collection as it is now, for a snapshot (counters
   * included). Read-only data is not in it: it always comes from the seed.
   */
  *snapshot(): Generator<Change> {
    yield { op: "clear" };
    for (const c of this.model.collections) {
      if (!c.editable) continue;
      for (const [db, shelf] of this.#shelves.get(c.name)!) {
        yield {
          op: "counters",
          resource: c.name,
          db,
          nextId: shelf.nextId,
          sequences: Object.fromEntries(shelf.sequences),
        };
        for (const [id, o] of shelf.objects)
          yield { op: "put", resource: c.name, db, object: this.#read(shelf, id, o) };
      }
    }
  }

  /** Restores every database from the seed, or only `db`. */
  reset(db?: string): void {
    this.journal?.append(db === undefined ? { op: "reset" } : { op: "reset", db });
    this.#load(db);
  }

  #load(only?: string): void {
    for (const c of this.model.collections) {
      const shelves = this.#shelves.get(c.name)!;
      if (only === undefined) shelves.clear();
      else shelves.delete(only);
      for (const [db, objects] of Object.entries(this.seed[c.name] ?? {})) {
        if (only !== undefined && db !== only) continue;
        // One shelf for a file's objects: at 100,000 seeded objects a lookup per object showed.
        const shelf = this.#shelfFor(c, db);
        const seeded = objects();
        if (isUnread(seeded)) this.#putUnread(c, shelf, seeded);
        else for (const o of seeded) this.#put(c, db, o, shelf);
      }
    }
  }

  /** The databases that hold objects or have seed data, with their number of objects per collection. */
  databases(): Array<{ database: string; objects: Record<string, number> }> {
    const names = new Set<string>();
    for (const c of this.model.collections) {
      if (!c.databaseScoped) continue;
      for (const db of Object.keys(this.seed[c.name] ?? {})) names.add(db);
      for (const db of this.#shelves.get(c.name)!.keys()) names.add(db);
    }
    return [...names].sort().map((database) => ({
      database,
      objects: Object.fromEntries(
        this.model.collections.filter((c) => c.databaseScoped).map((c) => [c.name, this.size(c.name, database)]),
      ),
    }));
  }

  /** Whether a database holds objects or has seed data. */
  hasDatabase(db: string): boolean {
    return this.databases().some((d) => d.database === db);
  }

  /** How many objects each collection holds, over all databases. */
  totals(): Record<string, number> {
    // No prototype: a collection may be named `__proto__` or `constructor`, and is counted as one.
    const out: Record<string, number> = Object.create(null);
    for (const [name, shelves] of this.#shelves) {
      let n = 0;
      for (const shelf of shelves.values()) n += shelf.objects.size;
      out[name] = n;
    }
    return out;
  }

  size(collection: string, db: string): number {
    return this.#shelf(collection, db)?.objects.size ?? 0;
  }

  /**
   * A value computed from a collection's objects in a database, kept until the next write to
   * them (the encoded whole list, for one).
   */
  memo<T>(collection: string, db: string, key: string, compute: () => T): T {
    const shelf = this.#shelfFor(this.#collection(collection), db);
    shelf.memo ??= new Map();
    if (!shelf.memo.has(key)) shelf.memo.set(key, compute());
    return shelf.memo.get(key) as T;
  }

  #shelf(collection: string, db: string): Shelf | undefined {
    return this.#shelves.get(collection)?.get(db);
  }

  #shelfFor(c: Collection, db: string): Shelf {
    const shelves = this.#shelves.get(c.name)!;
    let shelf = shelves.get(db);
    if (!shelf) {
      shelf = { objects: new Map(), nextId: 1, sequences: new Map(), memo: undefined };
      shelves.set(db, shelf);
    }
    return shelf;
  }

  #changed(collection: string, db: string): void {
    const shelf = this.#shelf(collection, db);
    if (shelf) shelf.memo = undefined;
  }

  #put(c: Collection, db: string, o: StoredObject, shelf = this.#shelfFor(c, db)): void {
    shelf.memo = undefined;
    const id = c.idProperty === undefined ? String(shelf.objects.size) : String(o[c.idProperty]);
    shelf.objects.set(id, o);
    this.#countId(c, shelf, id);
    countSequences(c.sequences, o, shelf.sequences);
  }

  /** A large seed file's objects, kept unread: each is parsed when first read (#read). */
  #putUnread(c: Collection, shelf: Shelf, seeded: UnreadObjects): void {
    shelf.memo = undefined;
    for (let i = 0; i < seeded.count; i++) {
      const id = c.idProperty === undefined ? String(shelf.objects.size) : seeded.ids[i]!;
      shelf.objects.set(id, new Unread(seeded, i));
      this.#countId(c, shelf, id);
    }
    for (const [k, v] of Object.entries(seeded.sequences)) {
      if (v > (shelf.sequences.get(k) ?? 1)) shelf.sequences.set(k, v);
    }
  }

  #countId(c: Collection, shelf: Shelf, id: string): void {
    // Only ids that look like automatic ones move the counter: "1e21" or "0012" are not numbers here.
    const n = AUTOMATIC_ID.test(id) ? Number(id) : 0;
    if (n >= shelf.nextId && n < this.#maxAutomaticId(c)) shelf.nextId = n + 1;
  }

  /** An object as stored, parsed first when it was kept unread (and kept parsed from then on). */
  #read(shelf: Shelf, id: string, o: StoredObject | Unread): StoredObject {
    if (!(o instanceof Unread)) return o;
    const read = o.from.read(o.i);
    shelf.objects.set(id, read);
    return read;
  }

  #maxAutomaticId(c: Collection): number {
    // Asked for every object stored: the power (270 ns a time) is taken once per collection.
    let max = this.#maxIds.get(c);
    if (max === undefined) {
      max = 10 ** Math.min(c.idMaxLength ?? MAX_ID_DIGITS, MAX_ID_DIGITS) - 1;
      this.#maxIds.set(c, max);
    }
    return max;
  }
  readonly #maxIds = new Map<Collection, number>();

  /** Objects of a collection in a database, in the order they were created (A-LIST-SHAPE). */
  list(collection: string, db: string): StoredObject[] {
    const shelf = this.#shelf(collection, db);
    if (!shelf) return [];
    const out: StoredObject[] = [];
    for (const [id, o] of shelf.objects) out.push(this.#read(shelf, id, o));
    return out;
  }

  get(collection: string, db: string, id: string): StoredObject | undefined {
    const shelf = this.#shelf(collection, db);
    const o = shelf?.objects.get(id);
    return o === undefined ? undefined : this.#read(shelf!, id, o);
  }

  /**
   * Stores a new object. An empty id ("" or 0) gets the next free number; a chosen one is kept
   * when it is free. Sequences (`x-bawa-sequence`) are the service's, whatever the input says.
   * The store keeps `input` itself, its id and sequences set: the caller gives up the object.
   */
  create(collection: string, db: string, input: Record<string, unknown>): Created {
    const c = this.#collection(collection);
    const idProperty = c.idProperty!;
    const size = this.size(collection, db);
    if (size >= MAX_OBJECTS_PER_DATABASE) {
      return {
        ok: false,
        field: "",
        reason: `database ${db} holds ${size} objects of ${collection}, the most this mock keeps (A-LIMITS)`,
      };
    }
    const given = input[idProperty];
    let id = given === undefined || given === null ? "" : String(given);
    if (id === "" || (c.idIsNumber && given === 0)) {
      id = this.#freeId(c, db);
    } else if (this.#shelf(collection, db)?.objects.has(id)) {
      return { ok: false, field: idProperty, reason: `${id} is already in use` };
    }
    const shelf = this.#shelfFor(c, db);
    const object = input;
    object[idProperty] = c.idIsNumber ? Number(id) : id;
    for (const k of c.sequences) object[k] = shelf.sequences.get(k) ?? 1;
    this.journal?.append({ op: "put", resource: collection, db, object });
    this.#put(c, db, object);
    return { ok: true, object };
  }

  /** The next automatic id that no object of the database has; never one in use. */
  #freeId(c: Collection, db: string): string {
    const shelf = this.#shelfFor(c, db);
    const max = this.#maxAutomaticId(c);
    for (let n = shelf.nextId; n <= max; n++) if (!shelf.objects.has(String(n))) return String(n);
    // The counter reached the most digits: the lowest free number (the cap keeps one free).
    for (let n = 1; ; n++) if (!shelf.objects.has(String(n))) return String(n);
  }

  /**
   * Replaces an object; its id and sequences stay the service's own. Undefined when the id is
   * unknown. The store keeps `input` itself (see create()).
   */
  replace(collection: string, db: string, id: string, input: Record<string, unknown>): StoredObject | undefined {
    const c = this.#collection(collection);
    const old = this.get(collection, db, id);
    if (!old) return undefined;
    const object = input;
    object[c.idProperty!] = old[c.idProperty!];
    for (const k of c.sequences) object[k] = old[k];
    this.journal?.append({ op: "put", resource: collection, db, object });
    this.#shelfFor(c, db).objects.set(id, object);
    this.#changed(collection, db);
    return object;
  }

  delete(collection: string, db: string, id: string): boolean {
    if (!this.#shelf(collection, db)?.objects.has(id)) return false;
    this.journal?.append({ op: "delete", resource: collection, db, id });
    this.#shelf(collection, db)!.objects.delete(id);
    this.#changed(collection, db);
    return true;
  }
}

/** The object as a view of it shows it: only the view's properties, in the view's order. */
export function project(o: StoredObject, properties: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of properties) out[k] = o[k];
  return out;
}
