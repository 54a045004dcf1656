// Model-based exploration (issue 32): random sequences of create, read, replace,
// delete and list over the contract's editable resources, in JSON and XML, with
// varied bodies (properties left out, which then take their defaults; boundary
// values of each schema), run against a target and compared after every step with
// a model of what the description says the state must be. fast-check shrinks a
// failing sequence to the shortest that still fails; the report numbers its
// requests (method, path, body, the answer seen and the answer expected) and
// names the seed and path that replay it.
//
// The engine knows no test runner: the conformance check (checks/exploration.spec.ts)
// and the vitest test of a planted bug (exploration.test.ts) each hand it a way to
// send a request.
import fc from "fast-check";
import type { Collection, CompiledContract, Operation } from "../../src/contract/index.ts";
import { completeBody, type PropertySchema, propertiesOf, typesOf } from "../../src/rules/bodies.ts";
import { readXml } from "../../src/rules/xml.ts";
import { nameOf } from "./created.ts";

export interface ExploreRequest {
  method: "GET" | "POST" | "PUT" | "DELETE";
  url: string;
  headers: Record<string, string>;
  body?: string;
}
export interface ExploreAnswer {
  status: number;
  text: string;
}
export type ExploreSend = (req: ExploreRequest) => Promise<ExploreAnswer>;

/** An editable resource the exploration walks: its operations and what of its objects it compares. */
export interface ExploreSubject {
  name: string;
  collection: Collection;
  op: { create: Operation; read: Operation; update: Operation; delete: Operation; list?: Operation };
  requestSchema: string;
  /** Properties a body may leave out, which must then take the contract's default. */
  defaulted: Record<string, unknown>;
  /** Properties compared after each step: plain text, numbers and booleans the read view shows. */
  compared: string[];
  /** A value other than the default for each defaulted property, so leaving it out later shows. */
  alternates: Record<string, unknown>;
  /** Boundary values from each schema a body may carry (a text at its maxLength, a number at a bound). */
  boundaries: Array<[property: string, value: unknown]>;
  nameProperty: string | undefined;
}

/** A plain step, printable and replayable. `slot` picks an object this sequence created (deleted ones too). */
export type Step =
  | { kind: "create"; resource: string; omit: string[]; alter: string[]; boundary: number[]; format: Format }
  | { kind: "read"; resource: string; slot: number; accept: Format }
  | {
      kind: "replace";
      resource: string;
      slot: number;
      omit: string[];
      alter: string[];
      boundary: number[];
      format: Format;
    }
  | { kind: "delete"; resource: string; slot: number }
  | { kind: "list"; resource: string };
export type Format = "json" | "xml";

export interface ExploreOptions {
  contract: CompiledContract;
  subjects: readonly ExploreSubject[];
  send: ExploreSend;
  /** The address of an operation: `id` fills its id parameter. */
  urlOf: (op: Operation, id?: string) => string;
  /** Headers of every request (the bearer token). */
  auth: Record<string, string>;
  /** Whether bodies may be XML (the XML mapping is an assumption: on with that kind). */
  xml: boolean;
  /** The steps of the whole exploration; a sequence holds up to `length` of them. */
  steps: number;
  length?: number;
  /** Seconds after which no new sequence starts. */
  seconds?: number;
  seed?: number;
  /** fast-check's path of a failing run, to replay it alone. */
  path?: string;
  /** The unique name of each created object (cleanup finds what a run left by it). */
  name: () => string;
}

/** One request of a sequence as the report shows it. */
export interface Line {
  method: string;
  path: string;
  body?: string;
  seen: string;
  expected: string;
}

export interface Outcome {
  ok: boolean;
  seed: number;
  path?: string;
  /** Sequences run and steps taken. */
  runs: number;
  steps: number;
  /** The shortest failing sequence, as steps and as the requests it made. */
  sequence?: Step[];
  lines?: Line[];
  report: string;
}

/** The contract's editable resources the exploration can walk: all four operations, a readable object. */
export function exploreSubjects(
  contract: CompiledContract,
  editable: Iterable<[string, readonly Operation[]]>,
): ExploreSubject[] {
  const out: ExploreSubject[] = [];
  for (const [name, ops] of editable) {
    const by = Object.fromEntries(ops.map((o) => [o.action, o])) as Partial<Record<Operation["action"], Operation>>;
    if (!by.create || !by.read || !by.update || !by.delete || ops.some((o) => o.assumption)) continue;
    const c = by.create.collection;
    if (!c.request || !c.idProperty) continue;
    const props = propertiesOf(contract, c.request.schema);
    const skip = new Set([c.idProperty, c.databaseProperty, ...c.dateProperties, ...c.sequences]);
    const plain = (p: PropertySchema) =>
      !p.format && !p.pattern && typesOf(p).some((t) => ["string", "integer", "number", "boolean"].includes(t));
    const shown = new Set(by.read.view.properties);
    const compared = Object.entries(props)
      .filter(([k, p]) => !skip.has(k) && shown.has(k) && plain(p))
      .map(([k]) => k);
    const nameProperty = nameOf(c, contract.doc);
    const defaulted = Object.fromEntries(
      Object.entries(props)
        // A required property with a default may be left out too (requiredOfWrite): the service
        // fills it in. Never the name, which finds what a run left behind.
        .filter(([k, p]) => p.default !== undefined && !skip.has(k) && k !== nameProperty)
        .map(([k, p]) => [k, p.default]),
    );
    const alternates: Record<string, unknown> = {};
    for (const [k, d] of Object.entries(defaulted)) {
      const p = props[k]!;
      const other =
        typeof d === "boolean"
          ? !d
          : (p.enum?.find((v) => v !== d && v !== null) ??
            (typeof d === "number" && (p.maximum === undefined || d + 1 <= p.maximum)
              ? d + 1
              : typeof d === "string" && plain(p) && (p.maxLength ?? 9) >= 3
                ? `${d}Alt`.slice(-(p.maxLength ?? 9))
                : undefined));
      if (other !== undefined && other !== d) alternates[k] = other;
    }
    const boundaries: Array<[string, unknown]> = [];
    for (const [k, p] of Object.entries(props)) {
      if (skip.has(k) || k === nameProperty || !plain(p) || p.enum || p.const !== undefined) continue;
      const types = typesOf(p);
      if (types.includes("string") && p.maxLength !== undefined && p.maxLength <= 1000)
        boundaries.push([k, "W".repeat(p.maxLength)]);
      if (types.includes("integer") || types.includes("number")) {
        if (p.minimum !== undefined) boundaries.push([k, p.minimum]);
        if (p.maximum !== undefined) boundaries.push([k, p.maximum]);
      }
    }
    out.push({
      name,
      collection: c,
      op: { create: by.create, read: by.read, update: by.update, delete: by.delete },
      requestSchema: c.request.schema,
      defaulted,
      alternates,
      compared,
      boundaries,
      nameProperty,
    });
  }
  return out;
}

/** The steps fast-check draws: any operation on any subject, with varied bodies and formats. */
export function stepArbitrary(subjects: readonly ExploreSubject[], xml: boolean): fc.Arbitrary<Step> {
  const format: fc.Arbitrary<Format> = xml ? fc.constantFrom<Format>("json", "xml") : fc.constant<Format>("json");
  const slot = fc.nat({ max: 7 });
  return fc.oneof(
    ...subjects.map((s) => {
      const omit = fc.subarray(Object.keys(s.defaulted));
      const alter = fc.subarray(Object.keys(s.alternates));
      const boundary = fc.subarray(s.boundaries.map((_, i) => i));
      const resource = fc.constant(s.name);
      return fc.oneof(
        fc.record({ kind: fc.constant("create" as const), resource, omit, alter, boundary, format }),
        fc.record({ kind: fc.constant("read" as const), resource, slot, accept: format }),
        fc.record({ kind: fc.constant("replace" as const), resource, slot, omit, alter, boundary, format }),
        fc.record({ kind: fc.constant("delete" as const), resource, slot }),
        fc.record({ kind: fc.constant("list" as const), resource }),
      );
    }),
  );
}

/** What the model holds of one object: its id and the compared values, or undefined once deleted. */
interface Modelled {
  subject: ExploreSubject;
  id: string;
  values: Record<string, unknown> | undefined;
}

class Mismatch extends Error {}

const lower = (o: unknown): Map<string, unknown> =>
  new Map(
    typeof o === "object" && o !== null && !Array.isArray(o)
      ? Object.entries(o).map(([k, v]) => [k.toLowerCase(), v])
      : [],
  );
/** Values as the two formats can both carry them: text of a number or boolean, null for an empty text. */
const same = (a: unknown, b: unknown) => {
  const norm = (v: unknown) => (v === null || v === undefined || v === "" ? "" : String(v));
  return norm(a) === norm(b);
};

/**
 * One sequence against the target, step by step against the model; throws Mismatch at the first
 * difference. What the sequence made is removed whatever happened, so the next one (or the
 * shrinking's next try) starts from the same state and a failing run leaves nothing behind; a
 * removal that fails after a difference does not hide the difference.
 */
async function runSequence(o: ExploreOptions, steps: readonly Step[], lines: Line[]): Promise<void> {
  const objects: Modelled[] = [];
  try {
    await runSteps(o, steps, lines, objects);
  } catch (err) {
    await cleanupOf(o, objects).catch(() => undefined);
    throw err;
  }
  await cleanupOf(o, objects);
}

async function runSteps(o: ExploreOptions, steps: readonly Step[], lines: Line[], objects: Modelled[]): Promise<void> {
  const subjectOf = (name: string) => o.subjects.find((s) => s.name === name)!;
  const call = async (req: ExploreRequest, expected: string, check: (a: ExploreAnswer) => string | undefined) => {
    const a = await o.send({ ...req, headers: { ...o.auth, ...req.headers } });
    const u = new URL(req.url);
    const line: Line = {
      method: req.method,
      path: u.pathname + u.search,
      ...(req.body === undefined ? {} : { body: req.body }),
      seen: `${a.status} ${a.text.replace(/\s+/g, " ").slice(0, 300)}`,
      expected,
    };
    lines.push(line);
    const wrong = check(a);
    if (wrong) {
      line.expected = `${expected}; ${wrong}`;
      throw new Mismatch(wrong);
    }
    return a;
  };
  const bodyOf = (s: ExploreSubject, step: { omit: string[]; alter: string[]; boundary: number[] }) => {
    const body = completeBody(o.contract, s.collection, { name: o.name(), nameProperty: s.nameProperty });
    for (const k of step.alter) body[k] = s.alternates[k];
    for (const i of step.boundary) {
      const [k, v] = s.boundaries[i]!;
      body[k] = v;
    }
    for (const k of step.omit) delete body[k];
    // What the description says is stored: the values sent, the defaults of those left out.
    const expected: Record<string, unknown> = {};
    for (const k of s.compared) expected[k] = k in body ? body[k] : (s.defaulted[k] ?? null);
    return { body, expected };
  };
  const encode = (s: ExploreSubject, body: Record<string, unknown>, format: Format) =>
    format === "json"
      ? { type: "application/json", text: JSON.stringify(body) }
      : { type: "application/xml", text: o.contract.xml.stringify(s.requestSchema, body) };
  const valuesOf = (text: string, format: Format): Map<string, unknown> => {
    if (format === "json") return lower(JSON.parse(text));
    return lower(readXml(text).fields);
  };
  const compare = (s: ExploreSubject, got: Map<string, unknown>, want: Record<string, unknown>) => {
    const off = s.compared.filter((k) => !same(got.get(k.toLowerCase()), want[k]));
    return off.length === 0
      ? undefined
      : `differs from the model in ${off.map((k) => `${k} (got ${JSON.stringify(got.get(k.toLowerCase()))}, model ${JSON.stringify(want[k])})`).join(", ")}`;
  };
  const pick = (s: ExploreSubject, slot: number) => {
    const mine = objects.filter((m) => m.subject === s);
    return mine.length === 0 ? undefined : mine[slot % mine.length];
  };
  const idIn = (s: ExploreSubject, value: unknown) => {
    const id = lower(value).get(s.collection.idProperty!.toLowerCase());
    return id === undefined || id === null || id === "" || id === 0 ? undefined : String(id);
  };

  for (const step of steps) {
    const s = subjectOf(step.resource);
    switch (step.kind) {
      case "create": {
        const { body, expected } = bodyOf(s, step);
        const payload = encode(s, body, step.format);
        let id: string | undefined;
        await call(
          {
            method: "POST",
            url: o.urlOf(s.op.create),
            headers: { "content-type": payload.type, accept: "application/json" },
            body: payload.text,
          },
          "200 and the object, with its new id",
          (a) => {
            if (a.status !== 200) return `answered ${a.status}, not 200`;
            try {
              id = idIn(s, JSON.parse(a.text));
            } catch {
              return "the answer is not JSON";
            }
            return id === undefined ? `the answer has no ${s.collection.idProperty}` : undefined;
          },
        );
        objects.push({ subject: s, id: id!, values: expected });
        break;
      }
      case "read": {
        const m = pick(s, step.slot);
        if (!m) break;
        const accept = step.accept === "json" ? "application/json" : "application/xml";
        await call(
          { method: "GET", url: o.urlOf(s.op.read, m.id), headers: { accept } },
          m.values ? `200 with the model's values (${step.accept})` : "404: it was deleted",
          (a) => {
            if (!m.values) return a.status === 404 ? undefined : `answered ${a.status}, not 404`;
            if (a.status !== 200) return `answered ${a.status}, not 200`;
            try {
              return compare(s, valuesOf(a.text, step.accept), m.values);
            } catch (err) {
              return `the answer is not ${step.accept}: ${(err as Error).message}`;
            }
          },
        );
        break;
      }
      case "replace": {
        const m = pick(s, step.slot);
        if (!m) break;
        const { body, expected } = bodyOf(s, step);
        body[s.collection.idProperty!] = s.collection.idIsNumber ? Number(m.id) : m.id;
        const payload = encode(s, body, step.format);
        await call(
          {
            method: "PUT",
            url: o.urlOf(s.op.update, m.id),
            headers: { "content-type": payload.type, accept: "application/json" },
            body: payload.text,
          },
          m.values ? "200: replaced" : "404: it was deleted",
          (a) => (a.status === (m.values ? 200 : 404) ? undefined : `answered ${a.status}`),
        );
        if (m.values) m.values = expected;
        break;
      }
      case "delete": {
        const m = pick(s, step.slot);
        if (!m) break;
        await call(
          { method: "DELETE", url: o.urlOf(s.op.delete, m.id), headers: { accept: "application/json" } },
          m.values ? "200: deleted" : "404: it was deleted before",
          (a) => (a.status === (m.values ? 200 : 404) ? undefined : `answered ${a.status}`),
        );
        m.values = undefined;
        break;
      }
      case "list": {
        const list = s.op.list;
        if (!list) break;
        const mine = objects.filter((m) => m.subject === s);
        await call(
          { method: "GET", url: o.urlOf(list), headers: { accept: "application/json" } },
          `200, showing the ${mine.filter((m) => m.values).length} objects of this sequence that exist and none it deleted`,
          (a) => {
            if (a.status !== 200) return `answered ${a.status}, not 200`;
            let items: unknown;
            try {
              items = JSON.parse(a.text);
            } catch {
              return "the answer is not JSON";
            }
            if (!Array.isArray(items)) return "the answer is not an array";
            const ids = new Set(items.map((i) => idIn(s, i)));
            const missing = mine.filter((m) => m.values && !ids.has(m.id)).map((m) => m.id);
            const extra = mine.filter((m) => !m.values && ids.has(m.id)).map((m) => m.id);
            if (missing.length) return `it misses ${missing.join(", ")}`;
            if (extra.length) return `it still shows deleted ${extra.join(", ")}`;
            return undefined;
          },
        );
        break;
      }
    }
  }
}

async function cleanupOf(o: ExploreOptions, objects: Modelled[]): Promise<void> {
  for (const m of objects.filter((x) => x.values)) {
    await o.send({ method: "DELETE", url: o.urlOf(m.subject.op.delete, m.id), headers: { ...o.auth } });
    m.values = undefined;
  }
}

/** The list resource that shows a subject's objects with their ids, if the contract has one. */
export function withList(s: ExploreSubject, lists: readonly Operation[]): ExploreSubject {
  const c = s.collection;
  const list = lists.find((l) => l.collection === c && l.view.properties.includes(c.idProperty!));
  return list ? { ...s, op: { ...s.op, list } } : s;
}

/** The report of a failing sequence: numbered requests, then how to replay it. */
export function reportOf(
  seed: number,
  path: string | undefined,
  steps: readonly Step[],
  lines: readonly Line[],
): string {
  // The first line says what differed: a report cut to one line still names the finding.
  const last = lines.at(-1);
  const what = last ? `${last.method} ${last.path}: ${last.expected}` : "no request";
  const out = [
    `the shortest failing sequence (${steps.length} steps, ${lines.length} requests), seed ${seed}${path ? `, path ${path}` : ""}; at its end ${what}`,
  ];
  lines.forEach((l, i) => {
    out.push(`  ${i + 1}. ${l.method} ${l.path}${l.body === undefined ? "" : ` ${l.body.slice(0, 400)}`}`);
    out.push(`     seen:     ${l.seen}`);
    out.push(`     expected: ${l.expected}`);
  });
  out.push(
    `replay: CONFORMANCE_EXPLORE_SEED=${seed}${path ? ` CONFORMANCE_EXPLORE_PATH=${path}` : ""} (with the same CONFORMANCE_EXPLORE_STEPS)`,
  );
  return out.join("\n");
}

/**
 * Explores: sequences of up to `length` steps until `steps` are spent (or `seconds` passed).
 * A failure is shrunk by fast-check, then replayed once more for its requests.
 */
export async function explore(o: ExploreOptions): Promise<Outcome> {
  const length = o.length ?? 12;
  // Sequences of 0 to `length` steps, evenly: about length / 2 steps each.
  const numRuns = Math.max(1, Math.ceil(o.steps / (length / 2)));
  const seed = o.seed ?? (Date.now() ^ (Math.random() * 0x7fffffff)) | 0;
  let steps = 0;
  let runs = 0;
  const property = fc.asyncProperty(
    fc.array(stepArbitrary(o.subjects, o.xml), { maxLength: length, size: "max" }),
    async (seq) => {
      runs++;
      steps += seq.length;
      try {
        await runSequence(o, seq, []);
        return true;
      } catch (err) {
        if (err instanceof Mismatch) return false;
        throw err;
      }
    },
  );
  const details = await fc.check(property, {
    seed,
    numRuns,
    ...(o.path ? { path: o.path, endOnFailure: true } : {}),
    ...(o.seconds ? { interruptAfterTimeLimit: o.seconds * 1000 } : {}),
  });
  if (!details.failed || !details.counterexample) {
    return {
      ok: true,
      seed,
      runs,
      steps,
      report: `${runs} sequences, ${steps} steps, seed ${seed}: as the model says`,
    };
  }
  const sequence = details.counterexample[0];
  const lines: Line[] = [];
  await runSequence(o, sequence, lines).catch((err: unknown) => {
    if (!(err instanceof Mismatch)) throw err;
  });
  const path = details.counterexamplePath ?? undefined;
  return {
    ok: false,
    seed,
    ...(path ? { path } : {}),
    runs,
    steps,
    sequence,
    lines,
    report: reportOf(seed, path, sequence, lines),
  };
}
