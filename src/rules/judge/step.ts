// What every step of the judge is: a name, the requirements whose violations
// it can report, and a function of one reading of an exchange (and what the
// judge remembers) to violations. Steps that only remember report nothing.
// The pipeline (index.ts) lists them in the order they run, so a rule is found
// by its name and its requirement id, as node-oidc-provider lists its steps.
import type { CompiledContract, SchemaSet } from "../../contract/index.ts";
import type { Exchange, Violation } from "../exchange.ts";
import type { RequirementId } from "../generated/requirements.ts";
import type { Memory } from "../memory.ts";
import type { OAuthFacts } from "../oauth.ts";
import type { Place } from "../places.ts";

/**
 * What every reading of an exchange holds: the exchange, where it went and what the judge knows.
 * A group's reading extends it, and spreads it last (`{ db, token, ...j }`): on Node 20's V8 each
 * member an object literal writes after a leading spread is a runtime call (1.2–1.6 µs each in
 * isolation). A data call's readings wrote 17 such and a token request's 12; spread last, the
 * judge went from 55.6 to 27.2 µs per GET exchange (bench:handle). A reading's own names are not
 * the Judged's, so the order changes nothing but the cost.
 */
export interface Judged {
  ex: Exchange;
  place: Place;
  /** The request's method in upper case. */
  method: string;
  /** The answer is a success (2xx). */
  ok: boolean;
  memory: Memory;
  contract: CompiledContract;
  /** The contract as the description supports it (specView): what answers are judged against. */
  spec: SchemaSet;
  facts: OAuthFacts;
}

export interface Step<R extends Judged = Judged> {
  /** What the step judges or remembers, in a few words. */
  name: string;
  /** The requirements whose violations it reports; none for a step that only remembers. */
  reports: readonly RequirementId[];
  run(reading: R): Violation[] | undefined;
}

/** A step of a kind of exchange, read once for all its steps (`undefined`: none of them applies). */
export interface Group<R extends Judged> {
  name: string;
  read(judged: Judged): R | undefined;
  steps: ReadonlyArray<Step<R>>;
}

export const group = <R extends Judged>(g: Group<R>): Group<Judged> => g as unknown as Group<Judged>;

export const violation = (requirement: RequirementId, where: string, expected: string, found?: string): Violation => ({
  requirement,
  where,
  expected,
  ...(found === undefined ? {} : { found }),
});

/** A value as a violation quotes it: JSON, cut at 120 characters. */
export const quote = (s: string | undefined | null) =>
  s === undefined || s === null ? "nothing" : JSON.stringify(s.slice(0, 120));

/** A field's value as a violation shows it, cut at 80 characters. */
export const shown = (value: unknown) => {
  if (value === undefined) return "missing";
  const s = JSON.stringify(value) ?? String(value);
  return s.length > 80 ? `${s.slice(0, 80)}...` : s;
};

export const isObject = (x: unknown): x is Record<string, unknown> =>
  typeof x === "object" && x !== null && !Array.isArray(x);
