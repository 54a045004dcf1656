// What the proxy saw, as seed data in mock-data/'s layout: the objects of
// every collection of the contract's resource model, per database
// (`<Collection>/<DATABASE>.json`) or for the whole service
// (`<Collection>.json`), as the answers showed them. A later answer replaces
// an earlier one; DELETE, and a 404 for an object's address, remove it. Only
// the bodies of data answers are read: tokens, codes, secrets, passwords and
// cookies never reach a recording.
//
// A list of info objects (CustomerInfoList) shows only some fields of each
// object: an object seen only there is written with the contract's defaults
// for the rest (what a create without them gives), and the recording's
// README.md names each such object. A list never removes an object: it may be
// a page of a longer list.
//
// A recording is bounded: it holds at most MAX_RECORDING_BYTES of objects (as
// JSON), and names in its README the objects it saw past that. Its files are
// written by a RecordingWriter: only the files that changed, and no more often
// than their size allows (WRITE_BYTES_PER_SECOND), so a session that creates
// thousands of objects neither rewrites a large file five times a second nor
// holds more than the bound.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import type { Collection, CompiledContract, Operation } from "../contract/index.ts";
import { SERVICE_WIDE } from "../mock/core/store.ts";
import { asMonthDayYear, dateFormatOf } from "../rules/dates.ts";
import { type Exchange, header, jsonOf, mediaType, text } from "../rules/exchange.ts";
import { described } from "../rules/names.ts";
import type { Places } from "../rules/places.ts";

type Json = Record<string, unknown>;

interface Kept {
  object: Json;
  /** Seen only in a list: the fields the list does not show are the contract's defaults. */
  fromList: boolean;
  /** The object's length as JSON: what it counts against the bound. */
  size: number;
}

/** Why something seen was not recorded. */
export interface LeftOut {
  collection: string;
  database: string;
  id: string | undefined;
  reason: string;
}

/** A database id that can be a file name of the seed (it becomes `<Collection>/<id>.json`). */
const FILE_NAME = /^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,99}$/;
const MAX_LEFT_OUT = 200;
/** The most a recording holds, counted as the JSON of its objects. */
export const MAX_RECORDING_BYTES = 32 * 1024 * 1024;
/** How many objects past the bound the README names (the first seen); the rest are counted. */
export const MAX_PAST_BOUND_NAMED = 1_000;
/** Objects past the bound are named in the README; they are never dropped silently. */
export interface PastBound {
  collection: string;
  database: string;
  id: string;
}

export class Recording {
  /** Collection → database → id → object; insertion order is the order the seed will list them in. */
  readonly #objects = new Map<string, Map<string, Map<string, Kept>>>();
  /** Collections whose objects have no id (name value lists): the last whole list, per database. */
  readonly #lists = new Map<string, Map<string, Json[]>>();
  readonly #dirty = new Set<string>();
  /** What the objects and lists held count against the bound. */
  #bytes = 0;
  readonly leftOut: LeftOut[] = [];
  leftOutCount = 0;
  /** Objects not recorded because the recording was at its bound: the first ones, by key. */
  readonly #pastBound = new Map<string, PastBound>();
  pastBoundCount = 0;
  readonly limitBytes: number;

  constructor(
    readonly contract: CompiledContract,
    readonly places: Places,
    options: { limitBytes?: number } = {},
  ) {
    this.limitBytes = options.limitBytes ?? MAX_RECORDING_BYTES;
  }

  /** Takes in what an exchange showed; returns whether the recording changed. */
  apply(ex: Exchange): boolean {
    const place = this.places.of(ex.method, ex.url);
    const op = place.operation;
    if (!place.version || place.endpoint !== "data" || place.noDatabase || !op) return false;
    const c = op.collection;
    const db = op.databaseParam ? (place.params[op.databaseParam] ?? "") : SERVICE_WIDE;
    const pathId = op.idParam ? place.params[op.idParam] : undefined;
    const method = ex.method.toUpperCase();
    if (c.databaseScoped && !FILE_NAME.test(db)) {
      if (ex.status < 300) this.#leave(c, db, pathId, "its database id can not be a file name of the seed");
      return false;
    }
    if ((method === "DELETE" && ex.status < 300) || (method === "GET" && ex.status === 404 && pathId !== undefined)) {
      return pathId !== undefined && this.#remove(c, db, pathId);
    }
    if (ex.status < 200 || ex.status >= 300 || !ex.body?.length) return false;
    const value = this.#decode(ex, op);
    if (value === undefined) {
      this.#leave(c, db, pathId, `the answer's body could not be read as ${op.answers}`);
      return false;
    }
    if (op.action === "list") {
      if (!Array.isArray(value)) return false;
      if (!c.idProperty) return this.#replaceList(c, db, value.filter(isObject));
      let changed = false;
      for (const item of value) if (isObject(item)) changed = this.#put(c, db, item, op) || changed;
      return changed;
    }
    return (
      isObject(value) && (method === "GET" || method === "POST" || method === "PUT") && this.#put(c, db, value, op)
    );
  }

  #decode(ex: Exchange, op: Operation): unknown {
    const type = mediaType(header(ex, "content-type"));
    if (type === "application/xml" || type === "text/xml") {
      try {
        return this.contract.xml.parse(op.answers, text(ex.body));
      } catch {
        return undefined;
      }
    }
    return jsonOf(ex.body)?.value;
  }

  /** One object as an answer showed it: in full, or as its view (an info projection) shows it. */
  #put(c: Collection, db: string, shown: Json, op: Operation): boolean {
    const projection = op.view.schema !== c.schema;
    const fields = projection ? op.view.properties : c.properties;
    const view = described(shown, fields, { caseInsensitiveNames: true });
    // Dates the mock can serve: another format the answer used is read as the date it names.
    for (const d of c.dateProperties)
      if (d in view && dateFormatOf(view[d]) !== "mdy") view[d] = asMonthDayYear(view[d]);
    const id = c.idProperty ? view[c.idProperty] : undefined;
    if (id === undefined || id === null || id === "") {
      this.#leave(c, db, undefined, `an object without its ${c.idProperty}`);
      return false;
    }
    const key = String(id);
    const byId = this.#database(c, db);
    const known = byId.get(key);
    let kept: Omit<Kept, "size">;
    if (!projection) kept = { object: view, fromList: false };
    else if (known) kept = { object: { ...known.object, ...view }, fromList: known.fromList };
    else {
      const filled = this.#withDefaults(c, db, view);
      if (typeof filled === "string") {
        this.#leave(c, db, key, filled);
        return false;
      }
      kept = { object: filled, fromList: true };
    }
    const problem = this.contract.answers.check(c.schema, kept.object)[0];
    if (problem) {
      if (known) this.#bytes -= known.size;
      byId.delete(key);
      this.#dirty.add(fileKey(c, db));
      this.#leave(
        c,
        db,
        key,
        `it does not fit the contract's ${c.schema}: ${problem.field || "body"} ${problem.message}`,
      );
      return true;
    }
    const json = JSON.stringify(kept.object);
    if (known && known.fromList === kept.fromList && JSON.stringify(known.object) === json) return false;
    const grows = json.length - (known?.size ?? 0);
    if (grows > 0 && this.#bytes + grows > this.limitBytes) {
      this.#overBound(c, db, key);
      return false;
    }
    this.#bytes += grows;
    byId.set(key, { ...kept, size: json.length });
    this.#dirty.add(fileKey(c, db));
    return true;
  }

  /** An object the recording has no room for: named (the first ones) and counted, never dropped silently. */
  #overBound(c: Collection, db: string, id: string): void {
    this.pastBoundCount++;
    const key = `${fileKey(c, db)}\u0000${id}`;
    if (this.#pastBound.size < MAX_PAST_BOUND_NAMED && !this.#pastBound.has(key)) {
      this.#pastBound.set(key, { collection: c.name, database: db, id });
    }
  }

  /** The objects seen past the bound and not recorded (the first {@link MAX_PAST_BOUND_NAMED}). */
  get pastBound(): PastBound[] {
    return [...this.#pastBound.values()];
  }

  /** An object seen only through a projection, completed with the contract's defaults (A-DEFAULTS). */
  #withDefaults(c: Collection, db: string, view: Json): Json | string {
    if (!c.request) return `only a list showed it, and ${c.name} has no request schema to fill in the rest`;
    const filled: Json = structuredClone(view);
    // The request validator fills in every property's default; its own problems are the answer check's too.
    this.contract.requests.check(c.request.schema, filled);
    if (c.databaseProperty && c.databaseScoped) filled[c.databaseProperty] = db;
    return Object.fromEntries(c.properties.map((p) => [p, filled[p] ?? null]));
  }

  #replaceList(c: Collection, db: string, items: Json[]): boolean {
    const lists = this.#lists.get(c.name) ?? new Map<string, Json[]>();
    this.#lists.set(c.name, lists);
    const kept = items.map((i) => described(i, c.properties, { caseInsensitiveNames: true }));
    const known = lists.get(db);
    const before = known === undefined ? 0 : JSON.stringify(known).length;
    const json = JSON.stringify(kept);
    if (known !== undefined && before === json.length && JSON.stringify(known) === json) return false;
    if (json.length > before && this.#bytes + json.length - before > this.limitBytes) {
      this.#overBound(c, db, "(the whole list)");
      return false;
    }
    this.#bytes += json.length - before;
    lists.set(db, kept);
    this.#dirty.add(fileKey(c, db));
    return true;
  }

  #remove(c: Collection, db: string, id: string): boolean {
    const byId = this.#database(c, db);
    const known = byId.get(id);
    if (!known) return false;
    byId.delete(id);
    this.#bytes -= known.size;
    this.#dirty.add(fileKey(c, db));
    return true;
  }

  #database(c: Collection, db: string): Map<string, Kept> {
    const byDb = this.#objects.get(c.name) ?? new Map<string, Map<string, Kept>>();
    this.#objects.set(c.name, byDb);
    const byId = byDb.get(db) ?? new Map<string, Kept>();
    byDb.set(db, byId);
    return byId;
  }

  #leave(c: Collection, db: string, id: string | undefined, reason: string): void {
    this.leftOutCount++;
    if (this.leftOut.length >= MAX_LEFT_OUT) this.leftOut.shift();
    this.leftOut.push({ collection: c.name, database: db, id, reason });
  }

  /** Whether something changed since the last write. */
  get dirty(): boolean {
    return this.#dirty.size > 0;
  }

  /** The objects of a collection in a database, as the seed file will hold them. */
  objects(collection: string, db: string): Json[] {
    const list = this.#lists.get(collection)?.get(db);
    if (list) return list;
    return [...(this.#objects.get(collection)?.get(db)?.values() ?? [])].map((k) => k.object);
  }

  /**
   * Reads a recording written before, to go on from it. A folder that holds anything else (the
   * project's own mock-data/, say) is refused: a recording rewrites the files it records.
   */
  load(dir: string): void {
    if (!existsSync(dir) || readdirSync(dir).length === 0) return;
    const readme = join(dir, "README.md");
    if (!existsSync(readme) || !readFileSync(readme, "utf8").startsWith(README_TITLE)) {
      throw new RecordingError(
        `${dir} holds files that are not a recording of bawa proxy; record into a new folder (or one a recording wrote)`,
      );
    }
    for (const c of this.contract.resources.collections) {
      const files = c.databaseScoped
        ? existsSync(join(dir, c.name))
          ? readdirSync(join(dir, c.name))
              .filter((f) => f.endsWith(".json"))
              .map((f) => ({ db: basename(f, ".json"), path: join(dir, c.name, f) }))
          : []
        : existsSync(join(dir, `${c.name}.json`))
          ? [{ db: SERVICE_WIDE, path: join(dir, `${c.name}.json`) }]
          : [];
      for (const { db, path } of files) {
        const data = JSON.parse(readFileSync(path, "utf8")) as unknown;
        if (!Array.isArray(data)) throw new Error(`${path} is not a recording's file: it holds no JSON array`);
        const objects = data.filter(isObject);
        if (!c.idProperty) {
          this.#lists.set(c.name, new Map([...(this.#lists.get(c.name) ?? []), [db, objects]]));
          this.#bytes += JSON.stringify(objects).length;
        } else {
          for (const o of objects) {
            const size = JSON.stringify(o).length;
            this.#database(c, db).set(String(o[c.idProperty]), { object: o, fromList: false, size });
            this.#bytes += size;
          }
        }
      }
    }
  }

  /**
   * Writes the files that changed since the last write (each whole, through a temporary file) and the
   * README; returns how many bytes it wrote.
   */
  write(dir: string, about: { target: string }): number {
    mkdirSync(dir, { recursive: true });
    let written = 0;
    for (const k of this.#dirty) {
      const [name, db] = k.split("\u0000") as [string, string];
      const c = this.contract.resources.collection(name)!;
      const path = c.databaseScoped ? join(dir, c.name, `${db}.json`) : join(dir, `${c.name}.json`);
      if (c.databaseScoped) mkdirSync(join(dir, c.name), { recursive: true });
      written += atomicWrite(path, `${JSON.stringify(this.objects(name, db), null, 2)}\n`);
    }
    this.#dirty.clear();
    return written + atomicWrite(join(dir, "README.md"), this.readme(about.target));
  }

  /** What the recording holds, what was filled in with defaults, and what was left out. */
  readme(target: string): string {
    const rows: string[] = [];
    const partial: string[] = [];
    for (const [name, byDb] of this.#objects) {
      for (const [db, byId] of byDb) {
        if (byId.size === 0) continue;
        const fromList = [...byId].filter(([, k]) => k.fromList).map(([id]) => id);
        rows.push(`| ${name} | ${db || "(the whole service)"} | ${byId.size} | ${fromList.length} |`);
        if (fromList.length > 0) partial.push(`- ${name}${db ? ` in ${db}` : ""}: ${fromList.join(", ")}`);
      }
    }
    for (const [name, byDb] of this.#lists) {
      for (const [db, list] of byDb) rows.push(`| ${name} | ${db || "(the whole service)"} | ${list.length} | 0 |`);
    }
    const projected = [
      ...new Set(
        this.contract.resources.operations
          .filter((o) => o.action === "list" && o.view.schema !== o.collection.schema)
          .map((o) => `${o.resource} shows ${o.view.properties.join(", ")} of each ${o.collection.name}`),
      ),
    ];
    // Resources of the whole service no answer showed: the mock serves them empty from this folder,
    // and the family's clients ask AdministrationInfoList before anything else.
    const unseen = [
      ...new Set(
        this.contract.resources.operations
          .filter(
            (o) =>
              o.action === "list" &&
              o.databaseParam === undefined &&
              !this.#lists.has(o.collection.name) &&
              !this.#objects.has(o.collection.name),
          )
          .map((o) => o.resource),
      ),
    ];
    return `${README_TITLE}

What bawa proxy saw of ${target}, as seed data for the mock: \`npx bawa mock --seed <this folder>\`.
Written ${new Date().toISOString()}. Each object is as the last answer that showed it; DELETE and a 404
removed objects. Tokens, codes, secrets, passwords and cookies are never written. The mock gives this
folder its default applications and users (mock-data/oauth.yaml), each of whom may open the databases
recorded here.

| collection | database | objects | seen only in a list |
|---|---|---|---|
${rows.join("\n") || "| (nothing yet) | | | |"}

## Never seen

${
  unseen.length === 0
    ? "Every resource of the whole service was seen."
    : `No answer showed ${unseen.join(", ")}: a mock on this folder answers ${unseen.length === 1 ? "it" : "each"} with an empty list. \`GET\` ${unseen.length === 1 ? "it" : "each"} through the proxy (\`/v1/api/${unseen[0]}\`) to record ${unseen.length === 1 ? "it" : "them"}.`
}

## Seen only in a list

A list of info objects shows a few fields of each object (${projected.join("; ") || "none in this contract"}).
Objects seen only there have the contract's defaults in every other field, as a create without them
would give; read an object (\`GET\` its address) through the proxy to record it whole.

${partial.join("\n") || "None."}

## Past the recording's bound

${
  this.pastBoundCount === 0
    ? `None: a recording holds at most ${this.limitBytes} bytes of objects (as JSON).`
    : `A recording holds at most ${this.limitBytes} bytes of objects (as JSON). ${this.pastBoundCount} answers showed objects it had no room for, not recorded${this.pastBoundCount > this.#pastBound.size ? ` (the first ${this.#pastBound.size} objects named)` : ""}; record into a new folder to keep them:\n\n${pastBoundLines(this.pastBound)}`
}

## Not recorded

${this.leftOutCount === 0 ? "Nothing." : `${this.leftOutCount} answers${this.leftOutCount > this.leftOut.length ? ` (the last ${this.leftOut.length} listed)` : ""}:\n\n${this.leftOut.map((l) => `- ${l.collection}${l.database ? ` in ${l.database}` : ""}${l.id ? ` ${l.id}` : ""}: ${l.reason}`).join("\n")}`}
`;
  }
}

/** What a recording's README begins with: how a folder is known as a recording. */
const README_TITLE = "# A recording of bawa proxy";

/** A folder `--record` can not write into. */
export class RecordingError extends Error {
  override name = "RecordingError";
}

const fileKey = (c: Collection, db: string) => `${c.name}\u0000${db}`;
const isObject = (x: unknown): x is Json => typeof x === "object" && x !== null && !Array.isArray(x);

/** The objects past the bound, one line per collection and database. */
function pastBoundLines(past: readonly PastBound[]): string {
  const byFile = new Map<string, string[]>();
  for (const p of past) {
    const where = `${p.collection}${p.database ? ` in ${p.database}` : ""}`;
    byFile.set(where, [...(byFile.get(where) ?? []), p.id]);
  }
  return [...byFile].map(([where, ids]) => `- ${where}: ${ids.join(", ")}`).join("\n");
}

/** Writes a file through a temporary one; returns its length in bytes. */
function atomicWrite(path: string, content: string): number {
  const tmp = `${path}.tmp`;
  writeFileSync(tmp, content);
  renameSync(tmp, path);
  return Buffer.byteLength(content);
}

/** How many bytes a recording's writer writes per second at most, on average. */
export const WRITE_BYTES_PER_SECOND = 8 * 1024 * 1024;
/** How long after a change a recording is written at the soonest. */
export const WRITE_DELAY_MS = 200;

/**
 * Writes a recording while the proxy runs: the files that changed, at the soonest `minDelayMs`
 * after a change, and after a write of N bytes not again for N / `bytesPerSecond` seconds, so the
 * writing takes a bounded share of the disk and of the proxy's loop however fast objects arrive.
 * `close()` writes what is left at once.
 */
export class RecordingWriter {
  #timer: NodeJS.Timeout | undefined;
  /** When the next write may start at the soonest (ms on `now`). */
  #notBefore = 0;
  readonly #minDelayMs: number;
  readonly #bytesPerSecond: number;
  readonly #now: () => number;

  constructor(
    readonly recording: Recording,
    readonly dir: string,
    readonly options: { target: string; minDelayMs?: number; bytesPerSecond?: number; now?: () => number },
  ) {
    this.#minDelayMs = options.minDelayMs ?? WRITE_DELAY_MS;
    this.#bytesPerSecond = options.bytesPerSecond ?? WRITE_BYTES_PER_SECOND;
    this.#now = options.now ?? (() => Date.now());
  }

  /** The recording changed: write it, when its turn comes. */
  changed(): void {
    if (this.#timer) return;
    const delay = Math.max(this.#minDelayMs, this.#notBefore - this.#now());
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#write();
    }, delay);
  }

  /** Writes what changed now, and stops. */
  close(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#write();
  }

  #write(): void {
    if (!this.recording.dirty) return;
    try {
      const bytes = this.recording.write(this.dir, { target: this.options.target });
      this.#notBefore = this.#now() + (bytes / this.#bytesPerSecond) * 1000;
    } catch (err) {
      console.error(`bawa proxy: the recording could not be written to ${this.dir}: ${(err as Error).message}`);
    }
  }
}
