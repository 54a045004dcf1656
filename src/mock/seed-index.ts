// A large seed file's objects kept as the file's bytes and parsed one by one when first read, and
// what a start needs of them (where each object lies, its id, the counters it moves) kept in the
// user's cache folder, keyed by the file's bytes and the contract's check (decision 0042). At
// 100,000 customers (190 MB) parsing every object at start was most of the mock's start-up: 2.0 s
// of its 3.0 on the AMD host, more than the 1.5 s target on its own; a start that finds the file's
// index reads and hashes the file and is done.
import { isAscii } from "node:buffer";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { extname } from "node:path";
import { fileURLToPath } from "node:url";
import type { Collection, CompiledContract } from "../contract/index.ts";
import { readCached, writeCached } from "../user-cache.ts";
import type { StoredObject, UnreadObjects } from "./core/store.ts";

/** Files from this size on are kept as bytes and indexed; a smaller one is parsed at start, as it costs little. */
export const LAZY_FROM_BYTES = 8 * 1024 * 1024;

/** Where each element of a file's array lies, and what the store counts from them. */
export interface SeedIndex {
  /** Each element's first byte (its "{") and the byte after its "}". */
  starts: Float64Array;
  ends: Float64Array;
  /** Each element's id as the store keys it (empty when the collection has no id property). */
  ids: string[];
  /** The next value of each sequence property (`x-bawa-sequence`), as storing the objects in order would leave it. */
  sequences: Record<string, number>;
}

/** This module's text and the seed reader's: their rules (an id's text, the sequences) are part of every key. */
let ownText: string | undefined;

/**
 * The key of a file's index: its bytes, the collection's schema, id and sequences, the contract's
 * check (the answers' validators' key: Ajv's version, the check's code, every schema) and the
 * reader's code. A file or a rule edited is a new key: an index is missing at worst, never stale.
 */
export function indexKey(contract: CompiledContract, c: Collection, bytes: Uint8Array): string {
  // seed.ts beside this module, or seed.js when built.
  const own = fileURLToPath(import.meta.url);
  ownText ??= [own, fileURLToPath(new URL(`./seed${extname(own)}`, import.meta.url))]
    .map((file) => readFileSync(file, "utf8"))
    .join("\0");
  return createHash("sha256")
    .update(ownText)
    .update("\0")
    .update(contract.answers.key)
    .update("\0")
    .update(JSON.stringify([c.name, c.schema, c.idProperty ?? null, c.sequences]))
    .update("\0")
    .update(bytes)
    .digest("hex");
}

/**
 * An index as kept: a little-endian u32 with the length of a JSON header (ids and sequences),
 * the header, zeros to a multiple of 8, then every start and every end as float64.
 */
export function encodeIndex(index: SeedIndex): Buffer {
  const header = Buffer.from(JSON.stringify({ ids: index.ids, sequences: index.sequences }));
  const at = Math.ceil((4 + header.length) / 8) * 8;
  const out = Buffer.alloc(at + 16 * index.starts.length);
  out.writeUInt32LE(header.length, 0);
  header.copy(out, 4);
  const numbers = new Float64Array(out.buffer, out.byteOffset + at, 2 * index.starts.length);
  numbers.set(index.starts, 0);
  numbers.set(index.ends, index.starts.length);
  return out;
}

/**
 * A kept index read back, when it is whole and fits the file: as many ids as elements (or none),
 * each element inside the file, in order, from a "{" to a "}". Undefined otherwise: the file is
 * then read as if nothing were kept.
 */
export function decodeIndex(kept: Buffer, file: Uint8Array, c: Collection): SeedIndex | undefined {
  try {
    const length = kept.readUInt32LE(0);
    const { ids, sequences } = JSON.parse(kept.toString("utf8", 4, 4 + length)) as SeedIndex;
    const at = Math.ceil((4 + length) / 8) * 8;
    const count = (kept.length - at) / 16;
    if (!Number.isInteger(count) || !Array.isArray(ids) || typeof sequences !== "object" || sequences === null)
      return undefined;
    if (ids.length !== (c.idProperty === undefined ? 0 : count)) return undefined;
    // Copied out of the kept bytes: a Float64Array over them needs an offset that is a multiple of 8.
    const numbers = new Float64Array(kept.buffer.slice(kept.byteOffset + at, kept.byteOffset + kept.length));
    const starts = numbers.subarray(0, count);
    const ends = numbers.subarray(count);
    let last = 0;
    for (let i = 0; i < count; i++) {
      const s = starts[i]!;
      const e = ends[i]!;
      if (!(s >= last && e > s && e <= file.length) || file[s] !== 0x7b || file[e - 1] !== 0x7d) return undefined;
      last = e;
    }
    return { starts, ends, ids, sequences };
  } catch {
    return undefined;
  }
}

export const readIndex = (key: string): Buffer | undefined => readCached("seed-index", key);
export const keepIndex = (key: string, index: SeedIndex): void => writeCached("seed-index", key, encodeIndex(index));

/**
 * The elements of a file holding a JSON array of objects whose every element begins with the first
 * element's first key, as a program writes such files (`JSON.stringify`, spaced or not). Each
 * element is parsed on its own as it is found (`each`, in order; what it throws ends the reading
 * and is thrown on): it ends at the "}" of the next `}, {"Key"` (spaces allowed between). The same
 * key opening an object nested in an array of the element makes a cut JSON.parse refuses; the
 * element is then taken on to the next cut and parsed again. Undefined when the file is not laid
 * out so (not an array of objects, objects that begin otherwise, not JSON): the caller reads it as
 * a small file, which names the error.
 */
export function indexElements(
  bytes: Buffer,
  each: (element: unknown, i: number, start: number, end: number) => void,
): { starts: Float64Array; ends: Float64Array } | undefined {
  const head = /^\uFEFF?\s*\[\s*\{\s*("(?:[^"\\]|\\.)*")/.exec(bytes.toString("utf8", 0, Math.min(bytes.length, 1025)));
  if (!head) return undefined;
  const key = Buffer.from(head[1]!);
  let first = bytes.indexOf(0x7b);
  // The array's end: its "]", after the last "}" and before nothing but spaces.
  let close = bytes.length - 1;
  while (close > first && isSpace(bytes[close]!)) close--;
  if (bytes[close] !== 0x5d) return undefined;
  const last = spaceBefore(bytes, close - 1);
  if (bytes[last] !== 0x7d) return undefined;
  const starts: number[] = [];
  const ends: number[] = [];
  let inEach = false;
  try {
    let from = first + 1;
    let refused = 0;
    while (first !== -1) {
      // The next element's "{" and the "}" before it, or none: the element is the last. The search
      // goes on after the key found, so the next element's own first key is not taken for a cut.
      let next = -1;
      let end = last + 1;
      for (let at = bytes.indexOf(key, from); at !== -1 && at < last; at = bytes.indexOf(key, at + 1)) {
        from = at + 1;
        const open = spaceBefore(bytes, at - 1);
        if (bytes[open] !== 0x7b) continue;
        const comma = spaceBefore(bytes, open - 1);
        if (bytes[comma] !== 0x2c) continue;
        const brace = spaceBefore(bytes, comma - 1);
        if (bytes[brace] !== 0x7d) continue;
        next = open;
        end = brace + 1;
        break;
      }
      let element: unknown;
      try {
        element = JSON.parse(text(bytes, first, end));
      } catch (err) {
        // An element that is not JSON is refused at every later cut too: after a few the file is
        // left to the reader that names the error, rather than parsed again up to each cut.
        if (next === -1 || ++refused > MAX_REFUSED_CUTS) throw err;
        continue;
      }
      refused = 0;
      inEach = true;
      each(element, starts.length, first, end);
      inEach = false;
      starts.push(first);
      ends.push(end);
      first = next;
    }
  } catch (err) {
    if (inEach) throw err;
    return undefined;
  }
  return { starts: Float64Array.from(starts), ends: Float64Array.from(ends) };
}

/** The last byte at or before `at` that is not a space (JSON's four), or -1. */
function spaceBefore(bytes: Buffer, at: number): number {
  while (at >= 0 && isSpace(bytes[at]!)) at--;
  return at;
}

/** Cuts refused in a row before the file is read otherwise (nested objects with the first key, or no JSON). */
const MAX_REFUSED_CUTS = 64;

const isSpace = (b: number) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;

/** A part of the bytes as text: ASCII (checked at memory speed) is copied as Latin-1, faster than decoding UTF-8. */
export function text(buf: Buffer, from: number, to: number): string {
  return buf.toString(isAscii(buf.subarray(from, to)) ? "latin1" : "utf8", from, to);
}

/**
 * A file's objects, each parsed from the file's bytes when the store first reads it. Once every
 * one has been read the bytes are let go and `allRead` is called (the mock collects them then: at
 * 100,000 customers they are 190 MB outside the heap, which V8 would keep until a full collection).
 */
export function unreadObjects(bytes: Buffer, index: SeedIndex, allRead?: () => void): UnreadObjects {
  const count = index.starts.length;
  let file: Buffer | undefined = bytes;
  let spans: SeedIndex | undefined = index;
  const read = new Uint8Array(count);
  let left = count;
  return {
    count,
    ids: index.ids,
    sequences: index.sequences,
    read: (i) => {
      // The store reads each object once (it keeps what it read): every one read, none is left to read.
      if (!file || !spans) throw new Error(`seed: object ${i} read again after every object of its file was read`);
      const o = JSON.parse(text(file, spans.starts[i]!, spans.ends[i]!)) as StoredObject;
      if (read[i] === 0) {
        read[i] = 1;
        if (--left === 0) {
          file = undefined;
          spans = undefined;
          allRead?.();
        }
      }
      return o;
    },
  };
}
