// What a contract may say, checked once when it is read (A-LIMITS, decision
// 0021): every tool that reads a contract (mock, proxy, suite) does work that
// grows with its size, and a request is judged against it. So a contract too
// large, an enum too long, a pattern no linear-time engine runs and a `$ref`
// that names nothing or loops back to itself are refused at the start, naming
// the node, instead of costing seconds per request or ending in "Maximum call
// stack size exceeded" with no place.
import { linearPattern, PatternError } from "./patterns.ts";

/** The contract's file: reading YAML costs about a second per 2 MiB. */
export const MAX_CONTRACT_BYTES = 4 * 1024 * 1024;
/** Nodes (objects, arrays and values) of the whole contract, aliases counted where they are used. */
export const MAX_CONTRACT_NODES = 10_000;
/** Objects and arrays nested in the contract. */
export const MAX_CONTRACT_DEPTH = 64;
/** Properties one schema declares. */
export const MAX_SCHEMA_PROPERTIES = 1_000;
/** Values of one `enum`. */
export const MAX_ENUM_VALUES = 1_000;
/** RE2 instructions of one `pattern`: the matching work per character grows with them. */
export const MAX_PATTERN_SIZE = 100;

/** A contract bawa can not use, and the node that makes it so. */
export class ContractError extends Error {
  override name = "ContractError";
  constructor(
    /** Where, as a JSON pointer in a URI fragment: `#/components/schemas/Customer/properties/City/pattern`. */
    readonly where: string,
    problem: string,
  ) {
    super(`${where}: ${problem}`);
  }
}

type Node = Record<string, unknown>;

/** Keywords whose values are data, not schemas: a `pattern` inside an example is no pattern. */
const DATA = new Set(["example", "examples", "default", "const", "enum"]);
/** Keywords that apply a schema to the same value, so a loop through them never ends. */
const IN_PLACE = ["$ref", "allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas"];

/**
 * Checks a contract against the limits above, its patterns against the linear-time engine and its
 * `$ref`s for a target and for loops. Throws ContractError naming the first node that fails.
 */
export function checkContract(doc: unknown): void {
  const refs = walk(doc);
  checkRefs(doc, refs);
}

/** Walks every node once per place it is used (without recursion: depth is checked, not trusted). */
function walk(doc: unknown): Array<{ node: Node; at: string }> {
  const refs: Array<{ node: Node; at: string }> = [];
  const stack: Array<{ value: unknown; at: string; depth: number; data: boolean }> = [
    { value: doc, at: "#", depth: 0, data: false },
  ];
  let nodes = 0;
  while (stack.length > 0) {
    const { value, at, depth, data } = stack.pop()!;
    if (++nodes > MAX_CONTRACT_NODES) {
      throw new ContractError(
        at,
        `the contract has more than ${count(MAX_CONTRACT_NODES)} nodes, the most bawa reads (A-LIMITS); split it or leave out what it does not serve`,
      );
    }
    if (typeof value !== "object" || value === null) continue;
    if (depth >= MAX_CONTRACT_DEPTH) {
      throw new ContractError(at, `nested more than ${MAX_CONTRACT_DEPTH} levels deep, the most bawa reads (A-LIMITS)`);
    }
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--)
        stack.push({ value: value[i], at: `${at}/${i}`, depth: depth + 1, data });
      continue;
    }
    const node = value as Node;
    if (!data) checkSchemaKeywords(node, at, refs);
    for (const [key, child] of Object.entries(node).reverse()) {
      stack.push({
        value: child,
        at: `${at}/${escapeKey(key)}`,
        depth: depth + 1,
        data: data || DATA.has(key) || key.startsWith("x-") || (at === "#/components" && key === "examples"),
      });
    }
  }
  return refs;
}

function checkSchemaKeywords(node: Node, at: string, refs: Array<{ node: Node; at: string }>): void {
  const { properties, enum: values, pattern, patternProperties, $ref } = node;
  if (isObject(properties)) {
    const n = Object.keys(properties).length;
    if (n > MAX_SCHEMA_PROPERTIES) {
      throw new ContractError(
        `${at}/properties`,
        `${count(n)} properties, more than the ${count(MAX_SCHEMA_PROPERTIES)} one schema may declare (A-LIMITS)`,
      );
    }
  }
  if (Array.isArray(values) && values.length > MAX_ENUM_VALUES) {
    throw new ContractError(
      `${at}/enum`,
      `${count(values.length)} values, more than the ${count(MAX_ENUM_VALUES)} one enum may list (A-LIMITS)`,
    );
  }
  if (typeof pattern === "string") checkPattern(pattern, `${at}/pattern`);
  if (isObject(patternProperties)) {
    for (const key of Object.keys(patternProperties)) checkPattern(key, `${at}/patternProperties/${escapeKey(key)}`);
  }
  if (typeof $ref === "string") refs.push({ node, at });
  if ("default" in node) checkDefault(node, at);
}

/**
 * A default its own schema refuses: the mock fills it into every request that leaves the
 * property out (A-DEFAULTS), and each would be refused for a value the client never sent
 * (`Priority` with `default: 5` and `enum: [1, 2, 3]`). The schema's own keywords are asked, not
 * what a `$ref` or `allOf` adds.
 */
function checkDefault(node: Node, at: string): void {
  const value = node.default;
  const why = defaultProblem(node, value);
  if (why === undefined) return;
  throw new ContractError(
    `${at}/default`,
    `the default ${JSON.stringify(value)?.slice(0, 100)} ${why}: every request that leaves the property out would be refused for a value it never sent`,
  );
}

function defaultProblem(node: Node, value: unknown): string | undefined {
  const same = (a: unknown) => JSON.stringify(a) === JSON.stringify(value);
  if (Array.isArray(node.enum) && !node.enum.some(same)) return "is not one of its enum's values";
  if ("const" in node && !same(node.const)) return "is not its const";
  const types = [node.type].flat().filter((t): t is string => typeof t === "string");
  if (types.length > 0 && !types.some((t) => isOfType(value, t))) return `is not of type ${types.join(" or ")}`;
  if (typeof value === "string") {
    const length = [...value].length;
    if (typeof node.maxLength === "number" && length > node.maxLength)
      return `is longer than its maxLength ${node.maxLength}`;
    if (typeof node.minLength === "number" && length < node.minLength)
      return `is shorter than its minLength ${node.minLength}`;
  }
  if (typeof value === "number") {
    if (typeof node.maximum === "number" && value > node.maximum) return `is above its maximum ${node.maximum}`;
    if (typeof node.minimum === "number" && value < node.minimum) return `is below its minimum ${node.minimum}`;
  }
  return undefined;
}

function isOfType(value: unknown, type: string): boolean {
  switch (type) {
    case "null":
      return value === null;
    case "array":
      return Array.isArray(value);
    case "object":
      return isObject(value);
    case "integer":
      return Number.isInteger(value);
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    default:
      return typeof value === type;
  }
}

function checkPattern(source: string, at: string): void {
  let size: number;
  let atLeast = false;
  try {
    const pattern = linearPattern(source);
    size = pattern.size;
    atLeast = pattern.sizeAtLeast === true;
  } catch (err) {
    if (!(err instanceof PatternError)) throw err;
    throw new ContractError(at, `the pattern ${JSON.stringify(source)} can not be used: ${err.message}`);
  }
  if (size > MAX_PATTERN_SIZE) {
    throw new ContractError(
      at,
      `the pattern ${JSON.stringify(source).slice(0, 200)} takes ${atLeast ? "at least " : ""}${count(size)} instructions of the linear-time engine, more than the ${MAX_PATTERN_SIZE} bawa runs (A-LIMITS); bound lengths with maxLength rather than with counted repeats`,
    );
  }
}

/**
 * Every `$ref` must name a node of this document; no schema may reach itself again through
 * keywords that apply to the same value (`$ref`, `allOf`, ...), since validating it would never
 * end (a loop through `properties` or `items` descends into the data and ends with it); and
 * schemas nest at most MAX_CONTRACT_DEPTH levels with their `$ref`s followed, as a validator
 * compiled from them recurses that deep.
 */
function checkRefs(doc: unknown, refs: ReadonlyArray<{ node: Node; at: string }>): void {
  const targetOf = new Map<Node, { node: Node; at: string }>();
  for (const { node, at } of refs) {
    const ref = node.$ref as string;
    const target = ref.startsWith("#") ? resolvePointer(doc, ref) : undefined;
    if (!isObject(target)) {
      const why = ref.startsWith("#")
        ? "names no schema of this document"
        : "points outside this document; bawa reads one file: bring the schema into components";
      throw new ContractError(`${at}/$ref`, `${JSON.stringify(ref)} ${why}`);
    }
    targetOf.set(node, { node: target, at: ref });
  }
  const done = new WeakSet<Node>();
  for (const { node, at } of refs) findLoop(node, at, targetOf, done);
  checkDepth(doc, targetOf);
}

/** Depth-first over the in-place edges from one node (without recursion); throws naming a loop. */
function findLoop(
  start: Node,
  startAt: string,
  targetOf: Map<Node, { node: Node; at: string }>,
  done: WeakSet<Node>,
): void {
  if (done.has(start)) return;
  const onPath = new Map<Node, number>();
  const frames: Array<{ node: Node; at: string; next: Array<[Node, string]> }> = [];
  const enter = (node: Node, at: string) => {
    onPath.set(node, frames.length);
    frames.push({ node, at, next: inPlace(node, at, targetOf) });
  };
  enter(start, startAt);
  while (frames.length > 0) {
    const top = frames.at(-1)!;
    const edge = top.next.pop();
    if (!edge) {
      frames.pop();
      onPath.delete(top.node);
      done.add(top.node);
      continue;
    }
    const [node, at] = edge;
    if (done.has(node)) continue;
    const from = onPath.get(node);
    if (from !== undefined) {
      // Told from the first named schema on it, when there is one: `#/components/schemas/A → B → A`.
      const cycle = frames.slice(from).map((f) => f.at);
      const names = cycle.filter((p) => short(p) !== p).sort();
      const named = names.length > 0 ? cycle.indexOf(names[0]!) : 0;
      const loop = [...cycle.slice(named), ...cycle.slice(0, named), cycle[named]!];
      throw new ContractError(
        loop[0]!,
        `its $refs loop back to it without reaching a value to check: ${loop.map((p, i) => (i === 0 ? p : short(p))).join(" → ")}`,
      );
    }
    enter(node, at);
  }
}

/** The levels of schemas below each node, $refs followed (a loop back counts nothing), without recursion. */
function checkDepth(doc: unknown, targetOf: Map<Node, { node: Node; at: string }>): void {
  if (typeof doc !== "object" || doc === null) return;
  const height = new Map<object, number>();
  const open = new Set<object>();
  const frames: Array<{ node: object; at: string; next: Array<[object, string]>; below: number }> = [];
  const enter = (node: object, at: string) => {
    open.add(node);
    frames.push({ node, at, next: childrenOf(node, at, targetOf), below: 0 });
  };
  enter(doc, "#");
  while (frames.length > 0) {
    const top = frames.at(-1)!;
    const edge = top.next.pop();
    if (edge) {
      const [node, at] = edge;
      const known = height.get(node);
      if (known !== undefined) top.below = Math.max(top.below, known);
      else if (!open.has(node)) enter(node, at);
      continue;
    }
    frames.pop();
    open.delete(top.node);
    const h = top.below + 1;
    if (h > MAX_CONTRACT_DEPTH) {
      throw new ContractError(
        top.at,
        `its schemas nest more than ${MAX_CONTRACT_DEPTH} levels deep with their $refs followed, the most bawa reads (A-LIMITS)`,
      );
    }
    height.set(top.node, h);
    const parent = frames.at(-1);
    if (parent) parent.below = Math.max(parent.below, h);
  }
}

/** A node's objects and arrays that are schemas or hold them, and its $ref's target. */
function childrenOf(
  node: object,
  at: string,
  targetOf: Map<Node, { node: Node; at: string }>,
): Array<[object, string]> {
  const out: Array<[object, string]> = [];
  if (Array.isArray(node)) {
    for (const [i, v] of node.entries()) if (typeof v === "object" && v !== null) out.push([v, `${at}/${i}`]);
    return out;
  }
  for (const [k, v] of Object.entries(node)) {
    if (typeof v === "object" && v !== null && !DATA.has(k) && !k.startsWith("x-"))
      out.push([v, `${at}/${escapeKey(k)}`]);
  }
  const target = targetOf.get(node as Node);
  if (target) out.push([target.node, target.at]);
  return out;
}

/** The schemas a node applies to the value it checks itself. */
function inPlace(node: Node, at: string, targetOf: Map<Node, { node: Node; at: string }>): Array<[Node, string]> {
  const out: Array<[Node, string]> = [];
  for (const key of IN_PLACE) {
    const value = node[key];
    if (key === "$ref") {
      const target = targetOf.get(node);
      if (target) out.push([target.node, target.at]);
    } else if (key === "dependentSchemas" && isObject(value)) {
      for (const [k, v] of Object.entries(value)) if (isObject(v)) out.push([v, `${at}/${key}/${escapeKey(k)}`]);
    } else if (Array.isArray(value)) {
      for (const [i, v] of value.entries()) if (isObject(v)) out.push([v, `${at}/${key}/${i}`]);
    } else if (isObject(value)) out.push([value, `${at}/${key}`]);
  }
  return out;
}

/** `#/components/schemas/A` as `A` in a loop's path; any other place in full. */
const short = (at: string) => {
  const name = /^#\/components\/schemas\/([^/]+)$/.exec(at)?.[1];
  return name === undefined ? at : unescapeKey(name);
};

function resolvePointer(doc: unknown, ref: string): unknown {
  let node = doc;
  const pointer = decodeURIComponent(ref.slice(1));
  if (pointer === "") return node;
  if (!pointer.startsWith("/")) return undefined;
  for (const part of pointer.slice(1).split("/").map(unescapeKey)) {
    if (!isObject(node) && !Array.isArray(node)) return undefined;
    if (!Object.hasOwn(node, part)) return undefined;
    node = (node as Node)[part];
  }
  return node;
}

const isObject = (v: unknown): v is Node => typeof v === "object" && v !== null && !Array.isArray(v);
const escapeKey = (key: string) => key.replaceAll("~", "~0").replaceAll("/", "~1");
const unescapeKey = (part: string) => part.replaceAll("~1", "/").replaceAll("~0", "~");
const count = (n: number) => n.toLocaleString("en");
