// A run compared with an earlier one (its summary.json): which rows newly
// fail, which were fixed, which stay failed. `--fail-on new` lets a CI gate
// fail only on what got worse; by default any failure fails, as before.
import { readFileSync } from "node:fs";

/** The row verdicts that fail a run by themselves: the reporter's, the comparison's and the gate's. */
export const FAILING: ReadonlySet<string> = new Set(["failed", "uncovered", "unexpected pass"]);

/** What a gate fails on: any failing row (the default), or only rows that did not fail in the baseline. */
export type FailOn = "any" | "new";
export const FAIL_ON: readonly FailOn[] = ["any", "new"];

/** The rows of a summary.json that this comparison reads. */
export interface ComparedSummary {
  startedAt: string;
  target: string;
  requirements: ReadonlyArray<{ row: string; verdict: string }>;
}

export interface SinceBaseline {
  /** The baseline's file, and when its run started. */
  file: string;
  startedAt: string;
  /** Rows failing now that did not fail then (or were not there). */
  newlyFailing: string[];
  /** Rows that failed then and do not now. */
  fixed: string[];
  /** Rows that failed then and still do. */
  stillFailing: string[];
}

export class BaselineError extends Error {}

/** What of a target's summary.json the gate reads. */
export interface GatedSummary {
  verdict: string;
  interrupted?: boolean;
  sinceBaseline?: { newlyFailing: readonly string[] } | undefined;
  requirements: ReadonlyArray<{ verdict: string }>;
}

/**
 * Whether a target's run fails the gate: on any failure (the default), or with `--fail-on new`
 * only on rows its baseline did not fail, a run cut short, or a verdict failed by the run as a
 * whole (nothing verified, no token), not by a row. A run's reporter and `bawa conformance merge`
 * both end with it.
 */
export function gateFails(s: GatedSummary, failOn: FailOn): boolean {
  if (s.verdict !== "failed") return false;
  if (failOn === "any" || !s.sinceBaseline) return true;
  const rowsFail = s.requirements.some((r) => FAILING.has(r.verdict));
  return s.interrupted === true || s.sinceBaseline.newlyFailing.length > 0 || !rowsFail;
}

/** Reads a baseline: a summary.json that `bawa conformance` wrote. */
export function readBaseline(file: string): ComparedSummary {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch (err) {
    throw new BaselineError(`cannot read the baseline ${file}: ${(err as Error).message}`);
  }
  const s = parsed as Partial<ComparedSummary>;
  if (
    typeof s !== "object" ||
    s === null ||
    !Array.isArray(s.requirements) ||
    !s.requirements.every((r) => typeof r?.row === "string" && typeof r?.verdict === "string")
  ) {
    throw new BaselineError(
      `the baseline ${file} is not a summary.json of bawa conformance (it has no requirements with row and verdict)`,
    );
  }
  return { startedAt: String(s.startedAt ?? ""), target: String(s.target ?? ""), requirements: s.requirements };
}

/** This run against the baseline, row by row. */
export function compareWithBaseline(now: ComparedSummary, file: string, then: ComparedSummary): SinceBaseline {
  const failing = (s: ComparedSummary) =>
    new Set(s.requirements.filter((r) => FAILING.has(r.verdict)).map((r) => r.row));
  const before = failing(then);
  const after = failing(now);
  const present = new Set(now.requirements.map((r) => r.row));
  return {
    file,
    startedAt: then.startedAt,
    newlyFailing: [...after].filter((r) => !before.has(r)),
    fixed: [...before].filter((r) => !after.has(r) && present.has(r)),
    stillFailing: [...after].filter((r) => before.has(r)),
  };
}

/** The comparison in a few lines (terminal and Markdown). */
export function baselineLines(b: SinceBaseline): string[] {
  const list = (rows: string[]) => (rows.length ? rows.join(", ") : "none");
  return [
    `Since the baseline (${b.file}, run of ${b.startedAt || "unknown date"}): ${b.newlyFailing.length} newly failing, ${b.fixed.length} fixed, ${b.stillFailing.length} still failing.`,
    `  newly failing: ${list(b.newlyFailing)}`,
    `  fixed: ${list(b.fixed)}`,
    `  still failing: ${list(b.stillFailing)}`,
  ];
}
