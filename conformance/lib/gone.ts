// A target that stopped answering, as the run's folder records it: every worker of the run reads
// it (a worker that ends after a failed check is replaced by a new process), and so do the
// reporters and `bawa conformance`'s watch of the target, which may find it gone first. No test
// runner here: the command line reads and writes it too.
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { RUN_DIR_VARIABLE } from "./secrets.ts";

const down = new Map<string, string>();

/**
 * A file of the run's folder about a target: whether it stopped answering, and how many requests
 * in a row got no answer (http.ts).
 */
export function runFile(
  kind: "down" | "unanswered",
  baseUrl: string,
  dir = process.env[RUN_DIR_VARIABLE],
): string | undefined {
  return dir ? join(dir, `${kind}-${createHash("sha1").update(baseUrl).digest("hex").slice(0, 12)}`) : undefined;
}

/**
 * When, during which check, and why the target at `baseUrl` was taken for gone in this run;
 * undefined while it answers.
 */
export function targetDown(baseUrl: string, dir = process.env[RUN_DIR_VARIABLE]): string | undefined {
  if (!down.has(baseUrl)) {
    const file = runFile("down", baseUrl, dir);
    try {
      if (file) down.set(baseUrl, readFileSync(file, "utf8"));
    } catch {
      // Not down.
    }
  }
  return down.get(baseUrl);
}

/**
 * Takes the target for gone for the rest of the run, in every worker: checks are then not checked
 * instead of waiting, and the verdict says once when and why. The first to say so is kept.
 */
export function takeForGone(
  baseUrl: string,
  why: string,
  {
    during,
    before,
    dir = process.env[RUN_DIR_VARIABLE],
    at = new Date(),
  }: { during?: string; before?: string; dir?: string; at?: Date } = {},
): void {
  if (targetDown(baseUrl, dir) !== undefined) return;
  const check = during ? `, during "${during}"` : before ? `, before "${before}"` : "";
  const said = `at ${at.toISOString().replace(/\.\d+Z$/, "Z")}${check}: ${why}`;
  down.set(baseUrl, said);
  const file = runFile("down", baseUrl, dir);
  try {
    if (file) writeFileSync(file, said, { flag: "wx", mode: 0o600 });
  } catch {
    // Another worker (or the watch) said so first: its words are the run's.
    down.delete(baseUrl);
    targetDown(baseUrl, dir);
  }
}
