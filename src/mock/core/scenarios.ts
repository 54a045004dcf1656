// Scenarios: the named switches (faults and tolerated behaviours), rule
// settings, added latency and forced failures that are on right now. The
// command line sets the start; the control API and the dashboard change it
// while the mock runs; `POST /__mock/reset` goes back to the start.
import type { Operation } from "../../contract/index.ts";
import type { RequirementId } from "../../rules/generated/requirements.ts";
import type { AnswerCode } from "./answer-codes.ts";
import type { MockRequest, MockResponse } from "./http.ts";
import { DATA_API_RULES, DEFAULT_RULES, type Rules } from "./rules.ts";

/** A requirement, or its row for one subject (a resource of the contract): `SVC-METHODS · Supplier`. */
export type RequirementRow = RequirementId | `${RequirementId} · ${string}`;

/** What a transform may use to reshape an answer. */
export interface TransformContext {
  req: MockRequest;
  /** The same answer with another body value, encoded as the original was. */
  reencode(res: MockResponse, value: unknown): MockResponse;
  /** The contract's answer of this operation for `status` (as `Prefer: code=` gives it). */
  forced(res: MockResponse, status: number): MockResponse;
  /** The resource model's operation that gave the answer (its collection, its kind), if any. */
  operation(res: MockResponse): Operation | undefined;
}

/**
 * Reshapes answers; `codes` and `routes` (meta.code, meta.route) say which, all that are given
 * must hold. `data`: only answers of the data API (any resource of the contract, errors included).
 */
export interface Transform {
  codes?: readonly AnswerCode[];
  routes?: readonly string[];
  data?: boolean;
  apply(res: MockResponse, t: TransformContext): MockResponse;
}

/** How a run of the conformance suite against the mock with a tolerated behaviour must end. */
export interface ExpectedRun {
  /** Settings of the suite for this run (for example CONFORMANCE_CASE_INSENSITIVE_NAMES). */
  settings: Readonly<Record<string, string>>;
  /** The requirements reported failed: none, or the one finding. */
  failed: readonly RequirementRow[];
}

/** A named switch of the mock: rules it changes and transforms of answers. */
export interface Switch {
  name: string;
  /** fault: breaks a rule on purpose; tolerated: behaves as real services of the family do. */
  kind: "fault" | "tolerated";
  what: string;
  rules?: Partial<Rules>;
  transforms?: readonly Transform[];
  /**
   * fault: the requirements the conformance suite must report failed, exactly (an id names every
   * subject of it that ran; `SVC-METHODS · Supplier` one).
   */
  breaks?: readonly RequirementRow[];
  /** fault: what every failure of those requirements must say, so a check that fails for another reason is no catch. */
  says?: RegExp;
  /** tolerated: the suite's verdicts, one per setting it is run with. */
  expect?: readonly ExpectedRun[];
  /** Switches of one group change the same thing and are never on together (dates, names, extra fields). */
  group?: string;
}

/**
 * Whether a switch changes answers of the data API only: each transform limited to them (its answer
 * codes all of resources, or `data`), each rule it changes one only the data API reads. Such a
 * switch changes nothing a walk through the login and permission screens reads, so the fault matrix
 * runs the suite under it without a browser.
 */
export function changesDataAnswersOnly(s: Switch): boolean {
  const rules = Object.keys(s.rules ?? {}) as Array<keyof Rules>;
  const toData = (t: Transform) =>
    t.data === true || (t.codes !== undefined && t.codes.length > 0 && t.codes.every((c) => c.startsWith("resource.")));
  return rules.every((r) => DATA_API_RULES.has(r)) && (s.transforms ?? []).every(toData);
}

export interface ScenarioStart {
  switches?: readonly string[];
  rules?: Partial<Rules>;
}

export interface Failure {
  status: number;
  remaining: number;
}

/** Methods that change state: a failure forced on them is answered before they run. */
export const WRITES: ReadonlySet<string> = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** The longest latency a scenario or `Prefer: delay` may add. */
export const MAX_DELAY_MS = 60_000;

export class Scenarios {
  /** The live rules: one object, changed in place, read by everything that enforces a rule. */
  readonly rules: Rules = { ...DEFAULT_RULES };
  readonly #registry: ReadonlyMap<string, Switch>;
  readonly #start: Required<ScenarioStart>;
  #on = new Set<string>();
  #ruleSettings: Partial<Rules> = {};
  #latency = new Map<string, number>();
  #failures = new Map<string, Failure>();

  constructor(registry: readonly Switch[], start: ScenarioStart = {}) {
    this.#registry = new Map(registry.map((s) => [s.name, s]));
    for (const name of start.switches ?? []) this.#known(name);
    this.#start = { switches: start.switches ?? [], rules: start.rules ?? {} };
    this.reset();
  }

  #known(name: string): Switch {
    const s = this.#registry.get(name);
    if (!s) throw new Error(`unknown switch ${name}; the switches are: ${[...this.#registry.keys()].join(", ")}`);
    return s;
  }

  #recompute(): void {
    const fromSwitches = [...this.#on].map((n) => this.#registry.get(n)?.rules ?? {});
    Object.assign(this.rules, DEFAULT_RULES, ...fromSwitches, this.#ruleSettings);
    this.#summary = undefined;
  }

  /** summary(), kept until something changes: every answer reads it. */
  #summary: string | undefined;

  /** Back to the start: the command line's switches and rules, no latency, no forced failures. */
  reset(): void {
    this.#on = new Set(this.#start.switches);
    this.#ruleSettings = { ...this.#start.rules };
    this.#latency.clear();
    this.#failures.clear();
    this.#recompute();
  }

  switches(): readonly Switch[] {
    return [...this.#registry.values()];
  }

  isOn(name: string): boolean {
    return this.#on.has(name);
  }

  /** Switches one on or off; throws naming the switches when the name is unknown. */
  set(name: string, on: boolean): void {
    this.#known(name);
    if (on) this.#on.add(name);
    else this.#on.delete(name);
    this.#recompute();
  }

  /** Sets rules; a value equal to the default drops the setting. */
  setRules(rules: Partial<Rules>): void {
    for (const [k, v] of Object.entries(rules) as Array<[keyof Rules, never]>) {
      if (DEFAULT_RULES[k] === v) delete this.#ruleSettings[k];
      else this.#ruleSettings[k] = v;
    }
    this.#recompute();
  }

  /** Adds latency to the answers of a route (`*`: every route); 0 removes it. */
  setLatency(route: string, ms: number): void {
    if (ms > 0) this.#latency.set(route, Math.min(ms, MAX_DELAY_MS));
    else this.#latency.delete(route);
    this.#summary = undefined;
  }

  /**
   * The status of a failure forced on the route's next answer, counted off; undefined when none
   * is. A write asks before it runs, so a forced failure stores, changes and deletes nothing
   * (a client that retries on 500 makes no duplicates).
   */
  takeFailure(route: string): number | undefined {
    const failure = this.#failures.get(route) ?? this.#failures.get("*");
    if (!failure || failure.remaining <= 0) return undefined;
    failure.remaining--;
    this.#summary = undefined;
    if (failure.remaining === 0) {
      for (const [k, f] of this.#failures) if (f === failure) this.#failures.delete(k);
    }
    return failure.status;
  }

  /** The next `count` answers of a route are this status (0 removes it). */
  failNext(route: string, status: number, count: number): void {
    if (count > 0) this.#failures.set(route, { status, remaining: count });
    else this.#failures.delete(route);
    this.#summary = undefined;
  }

  /** What is on now, for the dashboard and the list call. */
  state(): {
    switches: string[];
    rules: Partial<Rules>;
    latency: Record<string, number>;
    failures: Record<string, Failure>;
  } {
    return {
      switches: [...this.#on],
      rules: { ...this.#ruleSettings },
      latency: Object.fromEntries(this.#latency),
      failures: Object.fromEntries(this.#failures),
    };
  }

  /** One line naming everything that departs from the defaults, for the X-Bawa-Faults header; empty when nothing does. */
  summary(): string {
    this.#summary ??= [
      ...this.#on,
      ...Object.entries(this.#ruleSettings).map(([k, v]) => `${k}=${v}`),
      ...[...this.#latency].map(([r, ms]) => `latency:${r}=${ms}ms`),
      ...[...this.#failures].map(([r, f]) => `fail:${r}=${f.status}x${f.remaining}`),
    ].join(",");
    return this.#summary;
  }

  /** Whether any switch, forced failure or latency is on: when none is, apply() changes nothing. */
  get idle(): boolean {
    return this.#on.size === 0 && this.#failures.size === 0 && this.#latency.size === 0;
  }

  /**
   * The answer as the switches and scenarios that are on reshape it. The mock's own pages and
   * control calls are never reshaped: a scenario on every route ("*") must not lock out the
   * dashboard that switches it off.
   */
  apply(res: MockResponse, t: TransformContext): MockResponse {
    if (res.meta?.local) return res;
    let out = res;
    const route = out.meta?.route;
    // A write's failure was forced before it ran (takeFailure(), app.ts), so it changed nothing;
    // as a read's, it stands for the answer whatever the switches would have made of it.
    if (!res.meta?.forcedFailure) {
      for (const name of this.#on) {
        for (const transform of this.#registry.get(name)?.transforms ?? []) {
          if (matches(transform, out)) out = transform.apply(out, t);
        }
      }
      const status =
        route === undefined || WRITES.has(t.req.method.toUpperCase()) ? undefined : this.takeFailure(route);
      if (status !== undefined) out = t.forced(out, status);
    }
    const latency = (route === undefined ? undefined : this.#latency.get(route)) ?? this.#latency.get("*");
    if (latency) out = { ...out, meta: { ...out.meta, delayMs: Math.max(out.meta?.delayMs ?? 0, latency) } };
    return out;
  }
}

function matches(t: Transform, res: MockResponse): boolean {
  const code = res.meta?.code;
  const route = res.meta?.route;
  if (t.codes && !(code !== undefined && t.codes.includes(code))) return false;
  if (t.routes && !(route !== undefined && t.routes.includes(route))) return false;
  if (t.data && res.meta?.resource === undefined) return false;
  return true;
}
