// Reads mock-data/: the objects of every collection of the contract's resource
// model (one folder per collection, one file per database; one file for a
// collection of the whole service) and the OAuth registry, each checked against
// the contract so a bad seed stops the mock at start-up.
import { closeSync, existsSync, openSync, readdirSync, readFileSync, readSync, statSync } from "node:fs";
import { basename, join, relative, resolve } from "node:path";
import type { Collection, CompiledContract } from "../contract/index.ts";
import { PROJECT_ROOT } from "../paths.ts";
import { parseYaml } from "../yaml-file.ts";
import { type Application, type OAuthSeed, registrableRedirectUri, type User } from "./core/oauth/registry.ts";
import {
  countSequences,
  SERVICE_WIDE,
  type Seed,
  type SeedObjects,
  type StoredObject,
  type UnreadObjects,
} from "./core/store.ts";
import {
  decodeIndex,
  indexElements,
  indexKey,
  keepIndex,
  LAZY_FROM_BYTES,
  readIndex,
  text,
  unreadObjects,
} from "./seed-index.ts";

/** The project's own seed: its applications and users serve a seed folder without oauth.yaml. */
export const PROJECT_SEED_DIR = resolve(PROJECT_ROOT, "mock-data");
/** The seed in use: BAWA_SEED_DIR (a team's own, as `bawa mock --seed` reads it), else the project's. */
export const DEFAULT_SEED_DIR = process.env.BAWA_SEED_DIR ? resolve(process.env.BAWA_SEED_DIR) : PROJECT_SEED_DIR;

export class SeedError extends Error {
  override name = "SeedError";
}

export interface LoadedSeed {
  /** Objects per collection and database. */
  objects: Seed;
  oauth: OAuthSeed;
}

/** How strictly a seed folder is read. */
export interface SeedOptions {
  /**
   * A file or folder that names no collection of the contract stops the start (the default);
   * when false it is left out and `warn` says so (the project's seed under another contract).
   */
  strict?: boolean;
  warn?: (message: string) => void;
  /**
   * Called once every object of a large file has been read and its bytes let go (seed-index.ts):
   * the mock settles its heap then (decision 0014), as the bytes are collected only by a full
   * collection. A test reading a large file leaves its own process's heap as it is.
   */
  allRead?: () => void;
}

export function loadSeed(
  contract: CompiledContract,
  dir: string = DEFAULT_SEED_DIR,
  options: SeedOptions = {},
): LoadedSeed {
  const objects = loadObjects(contract, dir, options);
  if (existsSync(join(dir, "oauth.yaml"))) return { objects, oauth: loadOAuth(dir) };
  // A folder of objects alone (a recording of bawa proxy): the default applications and users
  // serve it, and each user may open its databases too, so its objects can be read at once.
  const defaults = loadOAuth(PROJECT_SEED_DIR);
  const databases = [
    ...new Set(
      contract.resources.collections.filter((c) => c.databaseScoped).flatMap((c) => Object.keys(objects[c.name] ?? {})),
    ),
  ];
  if (databases.length > 0) {
    options.warn?.(
      `${relative(process.cwd(), dir) || dir} has no oauth.yaml: the default applications and users of mock-data/oauth.yaml serve it, each of them may open ${databases.join(", ")}`,
    );
  }
  return {
    objects,
    oauth: {
      ...defaults,
      users: defaults.users.map((u) => ({ ...u, databases: [...new Set([...u.databases, ...databases])] })),
    },
  };
}

function readBytes(file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (err) {
    throw new SeedError(`cannot read seed file ${file}: ${(err as Error).message}`);
  }
}

const readText = (file: string): string => readBytes(file).toString("utf8");

const BATCH_BYTES = 8 * 1024 * 1024;
// Parsed a piece at a time: a piece's text is a string of the JavaScript heap, which dies young. A
// batch's 8 MB of text became a string outside it, in memory the C library mapped for it and kept:
// loading 100,000 customers took 75,000 page faults and the mock held 273-282 MB after its start;
// with pieces of 64 KB, 54,000 and 241-253 MB (alternating starts; the start-up itself the same
// within its noise). A string from 128 KB up is mapped on its own as well, so a piece stays under
// that unless it must hold a longer element or reach past cuts JSON.parse refused.
const PIECE_BYTES = 64 * 1024;

export interface BatchOptions {
  /** Bytes read at a time. */
  batchBytes?: number;
  /** Bytes of text parsed at a time, at least: a piece ends where the next element begins. */
  pieceBytes?: number;
  /**
   * Each piece's elements as soon as they are parsed, in order: a check made then finds them in
   * the processor's cache (the contract's check of 100,000 customers took 70 ms this way, with a
   * batch of 8 MB, and 130 ms after the whole file). What it throws ends the reading and is thrown on.
   */
  each?: (elements: readonly unknown[]) => void;
}

/**
 * A file holding a JSON array of objects, parsed a piece at a time, so the whole text (190 MB at
 * 100,000 customers) never sits in memory next to the objects made from it. A piece ends where an
 * element ends and the next begins with the first element's first key (`},{"Key"`), as a program
 * writes such files; JSON.parse must accept the piece, so a cut between two nested objects with that
 * key is refused and a later one tried (`nextPiece`). A file written otherwise is parsed at its end
 * in one piece; undefined when it is not a JSON array, and the caller parses it whole for the error.
 */
export function parseArrayInBatches(
  path: string,
  { batchBytes = BATCH_BYTES, pieceBytes = PIECE_BYTES, each }: BatchOptions = {},
): unknown[] | undefined {
  const fd = openSync(path, "r");
  const out: unknown[] = [];
  let inEach = false;
  const take = (batch: unknown[]) => {
    inEach = true;
    each?.(batch);
    inEach = false;
    for (const item of batch) out.push(item);
  };
  // One buffer for the whole file: the unparsed rest of a batch moves to its front and the next
  // read follows it. A new buffer per read left ≈100 MB of freed memory with the C allocator at
  // 100,000 customers, which it did not give back to the system. Its first byte is kept for a "["
  // and the "," after a piece is overwritten with "]", so JSON.parse reads a piece's text as it
  // was decoded, with no string built around it.
  let buf = Buffer.allocUnsafe(batchBytes * 2 + 1);
  let carried = 0;
  // Where the search for a cut goes on in the carried text: past the cuts refused already.
  let searchFrom = 0;
  try {
    let boundary: Buffer | undefined;
    for (let first = true; ; first = false) {
      if (buf.length - 1 - carried < batchBytes) {
        // An element longer than a batch (or a file with no boundary): the buffer grows to twice its
        // length at least, so what it carries is copied a few times, not once per read.
        const bigger = Buffer.allocUnsafe(Math.max(2 * buf.length, 1 + carried + batchBytes));
        buf.copy(bigger, 0, 0, 1 + carried);
        buf = bigger;
      }
      const n = readSync(fd, buf, 1 + carried, batchBytes, null);
      const end = 1 + carried + n;
      let start = 1;
      if (first) {
        const head = /^\uFEFF?\s*\[\s*(\{\s*"(?:[^"\\]|\\.)*")?/.exec(buf.toString("utf8", 1, Math.min(end, 1025)));
        if (!head) return undefined;
        if (head[1]) boundary = Buffer.from(`},${head[1].replace(/^\{\s*/, "{")}`);
        start = buf.indexOf(91, 1) + 1;
      }
      if (n === 0) {
        // The rest: the last elements and the file's closing bracket.
        buf[start - 1] = 0x5b;
        take(JSON.parse(text(buf, start - 1, end)) as unknown[]);
        return out;
      }
      const data = buf.subarray(0, end);
      let at = start;
      let from = Math.max(at + pieceBytes, searchFrom);
      while (boundary) {
        const piece = nextPiece(data, at, from, boundary);
        if ("searchFrom" in piece) {
          from = piece.searchFrom;
          break;
        }
        take(piece.elements);
        at = piece.next;
        from = at + pieceBytes;
      }
      if (at > 1) buf.copyWithin(1, at, end);
      carried = end - at;
      searchFrom = from - at + 1;
    }
  } catch (err) {
    // What `each` throws is the caller's own error; anything else means the file is not laid
    // out as this reader expects, or is not JSON.
    if (inEach) throw err;
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * The elements from `at` (the first one's "{") to the first boundary from `from` on that JSON.parse
 * accepts, and where the next element begins; else where to search on once more is read. A cut is
 * refused where the boundary lies between two objects nested in an element, their first key the
 * same as the elements' (in a string its quotes would be escaped). The next cut tried is then
 * twice as far from `at`, so an element of any length, or a file that is not JSON, costs at most
 * twice the parsing of its piece, not a parse per nested object.
 */
function nextPiece(
  data: Buffer,
  at: number,
  from: number,
  boundary: Buffer,
): { elements: unknown[]; next: number } | { searchFrom: number } {
  for (let cut = data.indexOf(boundary, from); cut >= 0; cut = data.indexOf(boundary, from)) {
    data[at - 1] = 0x5b;
    data[cut + 1] = 0x5d;
    try {
      return { elements: JSON.parse(text(data, at - 1, cut + 2)) as unknown[], next: cut + 2 };
    } catch {
      data[cut + 1] = 0x2c;
      from = at + 2 * (cut + 2 - at);
    }
  }
  // A boundary may begin in the last bytes read and end in the next read's.
  return { searchFrom: Math.max(from, data.length - boundary.length + 1) };
}

function readObjects(
  contract: CompiledContract,
  c: Collection,
  path: string,
  where: string,
  allRead?: () => void,
): SeedObjects {
  if (statSync(path).size >= LAZY_FROM_BYTES) {
    const unread = readLarge(contract, c, path, where, allRead);
    if (unread) return unread;
  }
  let check = objectCheck(contract, c, where);
  let checking = false;
  let data: unknown;
  try {
    data = parseArrayInBatches(path, {
      each: (batch) => {
        checking = true;
        check(batch);
        checking = false;
      },
    });
  } catch (err) {
    // The check's own error (a SeedError, or a bug of ours) as it is; the file's as a reading error.
    if (checking) throw err;
    throw new SeedError(`cannot read seed file ${path}: ${(err as Error).message}`);
  }
  if (data === undefined) {
    try {
      data = JSON.parse(readText(path));
    } catch (err) {
      throw new SeedError(`${where} is not valid JSON: ${(err as Error).message}`);
    }
    if (!Array.isArray(data)) throw new SeedError(`${where} must hold an array of ${c.name} objects`);
    // Parsed whole: the objects a batch checked before the reader gave up are checked again.
    check = objectCheck(contract, c, where);
    check(data);
  }
  return data as StoredObject[];
}

/**
 * A large file's objects kept as its bytes, each parsed when the store first reads it
 * (seed-index.ts, decision 0042). The first start with the file checks each object as it finds it,
 * as every file is checked, and keeps where each lies in the user's cache folder; a start that
 * finds that index checks nothing again, the file's bytes being what was checked. Undefined when
 * the file is not laid out as a program writes it: it is then read as a small one is.
 */
function readLarge(
  contract: CompiledContract,
  c: Collection,
  path: string,
  where: string,
  allRead?: () => void,
): UnreadObjects | undefined {
  const bytes = readBytes(path);
  const key = indexKey(contract, c, bytes);
  const kept = readIndex(key);
  const found = kept && decodeIndex(kept, bytes, c);
  if (found) return unreadObjects(bytes, found, allRead);
  const check = objectCheck(contract, c, where);
  const ids: string[] = [];
  const sequences = new Map<string, number>();
  const elements = indexElements(bytes, (element) => {
    check([element]);
    const o = element as StoredObject;
    if (c.idProperty !== undefined) ids.push(String(o[c.idProperty]));
    countSequences(c.sequences, o, sequences);
  });
  if (!elements) return undefined;
  const index = { ...elements, ids, sequences: Object.fromEntries(sequences) };
  keepIndex(key, index);
  return unreadObjects(bytes, index, allRead);
}

/**
 * Checks a file's objects a batch at a time, in order: each must fit the contract's schema and
 * have an id no earlier object has. Throws for the first that does not, counting from 1.
 */
function objectCheck(contract: CompiledContract, c: Collection, where: string): (batch: readonly unknown[]) => void {
  const ids = new Set<string>();
  let i = 0;
  return (batch) => {
    for (const o of batch) {
      i++;
      const problems = contract.answers.check(c.schema, o);
      if (problems.length > 0) {
        const p = problems[0]!;
        throw new SeedError(
          `${where}: object ${i} (counting from 1) does not fit the contract's ${c.schema}: ${p.field || "body"} ${p.message}`,
        );
      }
      if (c.idProperty === undefined) continue;
      const id = String((o as Record<string, unknown>)[c.idProperty]);
      if (id === "" || ids.has(id))
        throw new SeedError(
          `${where}: object ${i} (counting from 1) needs a unique, non-empty ${c.idProperty} (got ${JSON.stringify(id)})`,
        );
      ids.add(id);
    }
  };
}

/** Files and folders of a seed folder that are not objects. */
const NOT_OBJECTS = /^(oauth\.ya?ml|README(\.md)?|\..*)$/i;

/**
 * The collection a seed folder or file names: its name or one of its resources' (`Customer`,
 * `CustomerInfoList`), without case, a plural "s" allowed (`customers`, as earlier versions named it).
 */
export function collectionOfSeed(contract: CompiledContract, name: string): Collection | undefined {
  const want = name.toLowerCase();
  return contract.resources.collections.find((c) =>
    [c.name, ...c.resources].some((n) => want === n.toLowerCase() || want === `${n.toLowerCase()}s`),
  );
}

function loadObjects(contract: CompiledContract, dir: string, options: SeedOptions): Seed {
  let entries: string[];
  try {
    entries = readdirSync(dir).sort();
  } catch (err) {
    throw new SeedError(`cannot read the seed folder ${dir}: ${(err as Error).message}`);
  }
  const seed: Record<string, Record<string, () => SeedObjects>> = {};
  const known = contract.resources.collections.map((c) => c.name).join(", ");
  for (const entry of entries) {
    if (NOT_OBJECTS.test(entry)) continue;
    const path = join(dir, entry);
    const folder = statSync(path).isDirectory();
    const c = collectionOfSeed(contract, folder ? entry : basename(entry, ".json"));
    if (!c || (!folder && !entry.endsWith(".json"))) {
      const message = `${relative(process.cwd(), path) || path} is no seed data of this contract: a folder (or, for a resource of the whole service, a .json file) is named after a collection: ${known}`;
      if (options.strict ?? true) throw new SeedError(message);
      options.warn?.(`left out: ${message}`);
      continue;
    }
    if (seed[c.name]) throw new SeedError(`${path}: ${c.name} has seed data under two names in ${dir}`);
    if (folder !== c.databaseScoped) {
      throw new SeedError(
        c.databaseScoped
          ? `${path}: ${c.name} is kept per database: give it a folder ${c.name}/ with one <DATABASE>.json per database`
          : `${path}: ${c.name} is not kept per database: give it one file ${c.name}.json`,
      );
    }
    const files = folder
      ? readdirSync(path)
          .filter((f) => f.endsWith(".json"))
          .sort()
      : [entry];
    const perDatabase: Record<string, () => SeedObjects> = {};
    for (const file of files) {
      const filePath = folder ? join(path, file) : path;
      const where = relative(process.cwd(), filePath) || filePath;
      // Checked once now; a reset reads the file again: the objects may have changed since, and a
      // large file's bytes are kept only while some of its objects are still unread.
      let first: SeedObjects | undefined = readObjects(contract, c, filePath, where, options.allRead);
      perDatabase[folder ? basename(file, ".json") : SERVICE_WIDE] = () => {
        const objects = first ?? readObjects(contract, c, filePath, where, options.allRead);
        first = undefined;
        return objects;
      };
    }
    seed[c.name] = perDatabase;
  }
  return seed;
}

export function loadOAuth(dir: string = DEFAULT_SEED_DIR): OAuthSeed {
  const path = join(dir, "oauth.yaml");
  const where = relative(process.cwd(), path) || path;
  const data = parseYaml(readText(path)) as Partial<OAuthSeed> | null;
  const apps = data?.applications;
  const users = data?.users;
  if (!Array.isArray(apps) || !Array.isArray(users) || typeof data?.backgroundUser !== "string") {
    throw new SeedError(`${where} must have applications (list), users (list) and backgroundUser (a username)`);
  }
  apps.forEach((a: Partial<Application>, i) => {
    for (const key of ["clientId", "clientSecret", "name", "redirectUri"] as const) {
      if (typeof a[key] !== "string" || a[key] === "")
        throw new SeedError(`${where}: applications[${i}].${key} must be a non-empty string`);
    }
    if (a.status !== "pending" && a.status !== "Actief")
      throw new SeedError(`${where}: applications[${i}].status must be pending or Actief`);
    const uri = registrableRedirectUri(a.redirectUri!);
    if (!uri.ok) throw new SeedError(`${where}: applications[${i}].redirectUri ${uri.problem}`);
    a.redirectUri = uri.uri;
  });
  users.forEach((u: Partial<User>, i) => {
    if (typeof u.username !== "string" || typeof u.password !== "string" || !Array.isArray(u.databases)) {
      throw new SeedError(`${where}: users[${i}] needs username, password and databases (list)`);
    }
  });
  if (!users.some((u: User) => u.username === data!.backgroundUser)) {
    throw new SeedError(`${where}: backgroundUser ${data.backgroundUser} is not one of the users`);
  }
  return data as OAuthSeed;
}

/** The seed's accounts in the roles the suite and the tests give them. */
export interface SeedAccounts {
  /** The first active application: the one a frontend and the suite use. */
  app: Application;
  /** The second active one, for the checks that codes and tokens are bound to their client. */
  second: Application;
  /** The first application not yet active. */
  pending: Application;
  /** The first user who is not the background user, and the first database it may use. */
  user: User;
  database: string;
  /** A database of another user that this one may not use. */
  forbiddenDatabase: string;
}

/** Reads the roles from mock-data/oauth.yaml, so a changed seed changes every caller with it. */
export function seedAccounts(oauth: OAuthSeed = loadOAuth()): SeedAccounts {
  const active = oauth.applications.filter((a) => a.status === "Actief");
  const pending = oauth.applications.find((a) => a.status !== "Actief");
  const user = oauth.users.find((u) => u.username !== oauth.backgroundUser && u.databases.length > 0);
  const forbidden = oauth.users.flatMap((u) => u.databases).find((d) => !user?.databases.includes(d));
  if (active.length < 2 || !pending || !user || !forbidden) {
    throw new SeedError(
      "mock-data/oauth.yaml needs two active applications, one pending, and two users with different databases",
    );
  }
  return {
    app: active[0]!,
    second: active[1]!,
    pending,
    user,
    database: user.databases[0]!,
    forbiddenDatabase: forbidden,
  };
}
