// The data directory: an append-only journal of acknowledged customer changes.
// Each line is written and fsync'ed before the answer goes out, so a change a
// client saw acknowledged survives a crash; a torn last line is dropped on replay.
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { Change, Journal } from "../core/store.ts";

export class FileJournal implements Journal {
  readonly path: string;
  #fd: number;

  constructor(dir: string) {
    mkdirSync(dir, { recursive: true });
    this.path = join(dir, "customers.journal.jsonl");
    this.#fd = openSync(this.path, "a");
  }

  /** The changes recorded so far; an unreadable last line (a write cut short by a crash) is skipped. */
  read(): Change[] {
    let text: string;
    try {
      text = readFileSync(this.path, "utf8");
    } catch {
      return [];
    }
    const lines = text.split("\n").filter((l) => l !== "");
    const changes: Change[] = [];
    lines.forEach((line, i) => {
      try {
        changes.push(JSON.parse(line) as Change);
      } catch (err) {
        if (i !== lines.length - 1)
          throw new Error(
            `${this.path}: line ${i + 1} is not a change (${(err as Error).message}); the journal is damaged`,
          );
      }
    });
    return changes;
  }

  append(change: Change): void {
    writeSync(this.#fd, `${JSON.stringify(change)}\n`);
    fsyncSync(this.#fd);
  }

  close(): void {
    closeSync(this.#fd);
  }
}
