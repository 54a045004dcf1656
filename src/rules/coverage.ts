// What of the contract a stream of exchanges exercised: per operation, the
// statuses it declares and those answered, its parameters, the media types of
// its requests and answers, and the properties of their bodies. The suite
// gathers it over every exchange its checks make (conformance/lib/observed.ts),
// bawa proxy over the traffic it forwards; both report it the same way, with
// what was never exercised first.
import { type Exchange, formOf, header, jsonOf, mediaType, queryOf } from "./exchange.ts";
import type { Place } from "./places.ts";

/** The parts of an operation coverage counts. */
export const PARTS = [
  "statuses",
  "parameters",
  "requestTypes",
  "answerTypes",
  "requestProperties",
  "answerProperties",
] as const;
export type Part = (typeof PARTS)[number];

/** How reports name each part. */
export const PART_NAMES: Record<Part, string> = {
  statuses: "statuses",
  parameters: "parameters",
  requestTypes: "request media types",
  answerTypes: "answer media types",
  requestProperties: "request properties",
  answerProperties: "answer properties",
};

/** What was seen of one operation: every part as a list of names (serializable, mergeable). */
export type Seen = { exchanges: number } & Record<Part, string[]>;
/** What was seen, by operation key (its operationId, else `METHOD /path`). */
export type CoverageData = Record<string, Seen>;

/** One operation the contract declares, with every part it declares. */
export interface DeclaredOperation extends Record<Part, string[]> {
  key: string;
  method: string;
  path: string;
  /** The resource its path names (`Customer`, `CustomerInfoList`, `OAuth/Token`). */
  resource: string;
}

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options"];
/** Bodies read for their properties at most this large: coverage is a census, not a parser of everything. */
const MAX_BODY = 1024 * 1024;
/** Items of a list read for their properties. */
const MAX_ITEMS = 50;

type Node = Record<string, unknown>;
const isNode = (v: unknown): v is Node => typeof v === "object" && v !== null && !Array.isArray(v);

/** A local `$ref` (`#/components/schemas/Customer`) followed to what it names, however deep. */
function deref(doc: Node, node: unknown): unknown {
  for (let hops = 0; isNode(node) && typeof node.$ref === "string" && hops < 20; hops++) {
    const ref: string = node.$ref;
    if (!ref.startsWith("#/")) return undefined;
    node = ref
      .slice(2)
      .split("/")
      .reduce<unknown>((at, key) => (isNode(at) ? at[key.replace(/~1/g, "/").replace(/~0/g, "~")] : undefined), doc);
  }
  return node;
}

/** The property names of a body schema: an object's, or its items' when it is a list. */
function propertiesOf(doc: Node, schema: unknown): string[] {
  let s = deref(doc, schema);
  if (isNode(s) && s.type === "array") s = deref(doc, s.items);
  if (!isNode(s)) return [];
  const names = new Set(Object.keys(isNode(s.properties) ? s.properties : {}));
  for (const part of [s.allOf, s.oneOf, s.anyOf].flat()) {
    if (part !== undefined) for (const n of propertiesOf(doc, part)) names.add(n);
  }
  return [...names];
}

const key = (operationId: string | undefined, method: string, path: string) => operationId ?? `${method} ${path}`;

/** Every operation of a contract document (`CompiledContract.doc`, or the YAML read) with what it declares, in its order. */
export function declaredOperations(contractDoc: object): DeclaredOperation[] {
  const doc = contractDoc as Node;
  const out: DeclaredOperation[] = [];
  for (const [path, rawItem] of Object.entries((doc.paths ?? {}) as Node)) {
    const item = deref(doc, rawItem);
    if (!isNode(item)) continue;
    const shared = Array.isArray(item.parameters) ? item.parameters : [];
    for (const m of METHODS) {
      const op = item[m];
      if (!isNode(op)) continue;
      const method = m.toUpperCase();
      const parameters = [...shared, ...(Array.isArray(op.parameters) ? op.parameters : [])]
        .map((p) => deref(doc, p))
        .filter(isNode)
        .map((p) => String(p.name));
      const body = deref(doc, op.requestBody);
      const requestContent = isNode(body) && isNode(body.content) ? body.content : {};
      const responses = isNode(op.responses) ? op.responses : {};
      const answerTypes = new Set<string>();
      const answerProperties = new Set<string>();
      for (const [status, raw] of Object.entries(responses)) {
        const answer = deref(doc, raw);
        if (!isNode(answer) || !isNode(answer.content)) continue;
        for (const [type, media] of Object.entries(answer.content)) {
          answerTypes.add(type.toLowerCase());
          if (status.startsWith("2") && isNode(media))
            for (const p of propertiesOf(doc, media.schema)) answerProperties.add(p);
        }
      }
      const requestProperties = new Set<string>();
      for (const media of Object.values(requestContent))
        if (isNode(media)) for (const p of propertiesOf(doc, media.schema)) requestProperties.add(p);
      const segments = path.split("/").filter((s) => s && !s.startsWith("{"));
      const operationId = typeof op.operationId === "string" ? op.operationId : undefined;
      out.push({
        key: key(operationId, method, path),
        method,
        path,
        resource: segments[0] === "api" ? (segments.at(-1) ?? path) : segments.join("/"),
        statuses: Object.keys(responses),
        parameters: [...new Set(parameters)],
        requestTypes: Object.keys(requestContent).map((t) => t.toLowerCase()),
        answerTypes: [...answerTypes],
        requestProperties: [...requestProperties],
        answerProperties: [...answerProperties],
      });
    }
  }
  return out;
}

/** The top-level names of a JSON body (an object's, or the items' of a list), or of a form. */
function bodyNames(body: Buffer | undefined, type: string, form?: Record<string, string>): string[] {
  if (form) return Object.keys(form);
  if (!body || body.length === 0 || body.length > MAX_BODY || !(type === "application/json" || type.endsWith("+json")))
    return [];
  const value = jsonOf(body)?.value;
  const objects = Array.isArray(value) ? value.slice(0, MAX_ITEMS) : [value];
  const names = new Set<string>();
  for (const o of objects) if (isNode(o)) for (const k of Object.keys(o)) names.add(k);
  return [...names];
}

/** What a stream of exchanges exercised; `add` each, `take` what came since the last take. */
export class Coverage {
  #seen = new Map<string, { exchanges: number } & Record<Part, Set<string>>>();

  /** Counts one exchange at its place (Judge.placeOf): nothing when it matched no path of the contract. */
  add(place: Place, ex: Exchange): void {
    if (!place.template) return;
    const method = ex.method.toUpperCase();
    const k = key(place.operationId, method, place.template);
    let s = this.#seen.get(k);
    if (!s) {
      s = {
        exchanges: 0,
        statuses: new Set(),
        parameters: new Set(),
        requestTypes: new Set(),
        answerTypes: new Set(),
        requestProperties: new Set(),
        answerProperties: new Set(),
      };
      this.#seen.set(k, s);
    }
    s.exchanges++;
    s.statuses.add(String(ex.status));
    for (const p of Object.keys(place.params)) s.parameters.add(p);
    for (const p of queryOf(ex.url).keys()) s.parameters.add(p);
    const sent = mediaType(ex.requestHeaders["content-type"]);
    if (ex.requestBody && ex.requestBody.length > 0 && sent) {
      s.requestTypes.add(sent);
      for (const n of bodyNames(ex.requestBody, sent, formOf(ex))) s.requestProperties.add(n);
    }
    const answered = mediaType(header(ex, "content-type"));
    if (ex.body && ex.body.length > 0 && answered) {
      s.answerTypes.add(answered);
      if (ex.status >= 200 && ex.status < 300) for (const n of bodyNames(ex.body, answered)) s.answerProperties.add(n);
    }
  }

  /** What was seen, as plain data; `reset` starts again from nothing (a check's share of a worker's). */
  take({ reset = false } = {}): CoverageData {
    const out: CoverageData = {};
    for (const [k, s] of this.#seen) {
      out[k] = {
        exchanges: s.exchanges,
        ...(Object.fromEntries(PARTS.map((p) => [p, [...s[p]]])) as Record<Part, string[]>),
      };
    }
    if (reset) this.#seen.clear();
    return out;
  }
}

/** Several takes as one (the checks of a run, the shards of a merge). */
export function mergeCoverage(into: CoverageData, from: CoverageData): CoverageData {
  for (const [k, s] of Object.entries(from)) {
    const known = into[k];
    if (!known) {
      into[k] = {
        exchanges: s.exchanges,
        ...(Object.fromEntries(PARTS.map((p) => [p, [...s[p]]])) as Record<Part, string[]>),
      };
      continue;
    }
    known.exchanges += s.exchanges;
    for (const p of PARTS) known[p] = [...new Set([...known[p], ...s[p]])];
  }
  return into;
}

/** One operation in a coverage report: what it declares that was seen, and what was not. */
export interface OperationCoverage {
  key: string;
  method: string;
  path: string;
  resource: string;
  exchanges: number;
  seen: Record<Part, string[]>;
  missing: Record<Part, string[]>;
  /** Statuses answered that the operation does not declare. */
  undeclaredStatuses: string[];
}

export interface CoverageReport {
  operations: OperationCoverage[];
  /** Declared parts seen, of all declared, over every operation. */
  totals: Record<Part, { seen: number; declared: number }> & { operations: { seen: number; declared: number } };
}

/**
 * The contract's operations against what was seen: names compared without case (a query's
 * `$TOP`, a camelCase body); never exercised first, then by how much of each is missing.
 */
export function coverageReport(declared: readonly DeclaredOperation[], data: CoverageData): CoverageReport {
  const operations = declared.map((d): OperationCoverage => {
    const s = data[d.key];
    const seen = {} as Record<Part, string[]>;
    const missing = {} as Record<Part, string[]>;
    for (const p of PARTS) {
      const got = new Set((s?.[p] ?? []).map((n) => n.toLowerCase()));
      seen[p] = d[p].filter((n) => got.has(n.toLowerCase()));
      missing[p] = d[p].filter((n) => !got.has(n.toLowerCase()));
    }
    const declaredStatuses = new Set(d.statuses);
    return {
      key: d.key,
      method: d.method,
      path: d.path,
      resource: d.resource,
      exchanges: s?.exchanges ?? 0,
      seen,
      missing,
      undeclaredStatuses: (s?.statuses ?? []).filter(
        (st) => !declaredStatuses.has(st) && !declaredStatuses.has("default"),
      ),
    };
  });
  const gaps = (o: OperationCoverage) => PARTS.reduce((n, p) => n + o.missing[p].length, 0);
  const ordered = operations
    .map((o, i) => ({ o, i }))
    .sort((a, b) => Number(a.o.exchanges > 0) - Number(b.o.exchanges > 0) || gaps(b.o) - gaps(a.o) || a.i - b.i)
    .map(({ o }) => o);
  const totals = Object.fromEntries(
    PARTS.map((p) => [
      p,
      {
        seen: operations.reduce((n, o) => n + o.seen[p].length, 0),
        declared: operations.reduce((n, o) => n + o.seen[p].length + o.missing[p].length, 0),
      },
    ]),
  ) as CoverageReport["totals"];
  totals.operations = { seen: operations.filter((o) => o.exchanges > 0).length, declared: operations.length };
  return { operations: ordered, totals };
}

const list = (names: readonly string[], max = 8) =>
  names.length <= max ? names.join(", ") : `${names.slice(0, max).join(", ")} and ${names.length - max} more`;

/** The report as Markdown: totals, then a row per operation (never exercised first). */
export function coverageMarkdown(report: CoverageReport): string {
  const t = report.totals;
  const lines = [
    `Operations exercised: ${t.operations.seen} of ${t.operations.declared}; ${PARTS.map((p) => `${PART_NAMES[p]} ${t[p].seen} of ${t[p].declared}`).join("; ")}.`,
    "",
    "| operation | exchanges | statuses seen | not exercised |",
    "|---|---|---|---|",
    ...report.operations.map((o) => {
      const missing = PARTS.filter((p) => o.missing[p].length > 0).map(
        (p) => `${PART_NAMES[p]}: ${list(o.missing[p])}`,
      );
      const statuses = [...o.seen.statuses, ...o.undeclaredStatuses.map((s) => `${s} (not declared)`)];
      return `| ${o.method} ${o.path} | ${o.exchanges} | ${statuses.join(", ") || "—"} | ${o.exchanges === 0 ? "**never exercised**" : missing.join("; ") || "—"} |`;
    }),
  ];
  return `${lines.join("\n")}\n`;
}

/** A few lines for a terminal: the totals and the operations never exercised. */
export function coverageLines(report: CoverageReport): string[] {
  const t = report.totals;
  const never = report.operations.filter((o) => o.exchanges === 0);
  return [
    `Contract coverage: ${t.operations.seen} of ${t.operations.declared} operations exercised; statuses ${t.statuses.seen} of ${t.statuses.declared}, parameters ${t.parameters.seen} of ${t.parameters.declared}, answer properties ${t.answerProperties.seen} of ${t.answerProperties.declared}.`,
    ...(never.length > 0
      ? [
          `  never exercised: ${list(
            never.map((o) => `${o.method} ${o.path}`),
            10,
          )}`,
        ]
      : []),
  ];
}
