// The last net under a run's reports: every file the run wrote is read again
// and written back with its secrets replaced. Zips (traces, a shard's blob,
// the HTML report's data) are unpacked, redacted and packed again, so
// Playwright's report and trace viewer still open them; so are the data: URLs
// inside a file (the HTML report embeds its data as one).
import { isUtf8 } from "node:buffer";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { unzipSync, zipSync } from "fflate";

/** Replaces the secrets of a text (a Redactor's redact, or redactKnown where field patterns would harm). */
export interface TextRedaction {
  /** Everything: known values and secret fields. */
  full(text: string): string;
  /** Known values only: for code (the report's scripts), where a field pattern could match an assignment. */
  known(text: string): string;
}

export interface TreeResult {
  /** Files read. */
  files: number;
  /** Files written back with something replaced. */
  changed: string[];
  /** Files that could not be read to be redacted (a broken zip), removed rather than left as they were. */
  removed: Array<{ file: string; why: string }>;
}

/** Redacts every file under `dir` in place. */
export function redactTree(dir: string, redaction: TextRedaction): TreeResult {
  const result: TreeResult = { files: 0, changed: [], removed: [] };
  let entries: string[];
  try {
    entries = readdirSync(dir, { recursive: true, encoding: "utf8" });
  } catch {
    return result;
  }
  for (const entry of entries) {
    const file = join(dir, entry);
    let bytes: Buffer;
    try {
      bytes = readFileSync(file);
    } catch {
      continue; // a folder
    }
    result.files++;
    try {
      const out = redactBytes(entry, bytes, redaction);
      if (out) {
        writeFileSync(file, out);
        result.changed.push(entry);
      }
    } catch (err) {
      rmSync(file, { force: true });
      result.removed.push({ file: entry, why: (err as Error).message });
    }
  }
  return result;
}

const isZip = (b: Uint8Array) => b.length >= 4 && b[0] === 0x50 && b[1] === 0x4b && (b[2] === 3 || b[2] === 5);
const isText = (b: Uint8Array) => !b.includes(0) && isUtf8(b);

/**
 * The bytes of a file (or a zip's entry) named `name` with its secrets replaced, or undefined when
 * nothing was. A zip is redacted entry by entry, a text by its kind, anything else (a picture) is
 * left. Throws when a zip can not be read.
 */
export function redactBytes(
  name: string,
  bytes: Uint8Array,
  redaction: TextRedaction,
): Uint8Array<ArrayBuffer> | undefined {
  if (isZip(bytes)) {
    const entries = unzipSync(bytes);
    let changed = false;
    for (const [entry, data] of Object.entries(entries)) {
      const out = redactBytes(entry, data, redaction);
      if (out) {
        entries[entry] = out;
        changed = true;
      }
    }
    return changed ? zipSync(entries) : undefined;
  }
  if (!isText(bytes)) return undefined;
  const text = Buffer.from(bytes).toString("utf8");
  const out = /\.(html?|js|mjs|css)$/i.test(name) ? redactCode(text, redaction) : redactText(text, redaction.full);
  return out === text ? undefined : Buffer.from(out, "utf8");
}

// A data: URL, and a long run of base64 (an attachment's body in JSON): both are opened, never
// searched as text, where a short secret could stand between two base64 characters by chance.
const ENCODED = /data:([\w.+-]+\/[\w.+-]+);base64,([A-Za-z0-9+/]+={0,2})|[A-Za-z0-9+/]{200,}={0,2}/g;

/** A text with its data: URLs opened and redacted, and its other parts redacted with `redact`. */
function redactText(text: string, redact: (s: string) => string, redaction?: TextRedaction): string {
  let out = "";
  let last = 0;
  for (const m of text.matchAll(ENCODED)) {
    out += redact(text.slice(last, m.index));
    last = m.index + m[0].length;
    if (m[1] === undefined) {
      out += m[0];
      continue;
    }
    const inner = redactBytes(m[1], Buffer.from(m[2]!, "base64"), redaction ?? { full: redact, known: redact });
    out += inner ? `data:${m[1]};base64,${Buffer.from(inner).toString("base64")}` : m[0];
  }
  return out + redact(text.slice(last));
}

/** HTML, scripts and styles: field patterns only outside <script> and <style>, known values everywhere. */
function redactCode(text: string, redaction: TextRedaction): string {
  return text
    .split(/(<script\b[\s\S]*?<\/script>|<style\b[\s\S]*?<\/style>)/i)
    .map((part, i) =>
      i % 2 === 1 || !/^\s*</.test(text)
        ? redactText(part, redaction.known, redaction)
        : redactText(part, redaction.full, redaction),
    )
    .join("");
}
