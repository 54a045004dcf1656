// The contract, loaded once: the parsed OpenAPI document and Ajv validators
// compiled from its schemas. Both the mock and the conformance suite take
// their shapes from here and never write a schema again by hand.
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Ajv2020, CodeKeywordDefinition, ErrorObject, KeywordCxt, ValidateFunction } from "ajv/dist/2020.js";
import { _, str } from "ajv/dist/compile/codegen/index.js";
import { fullFormats } from "ajv-formats/dist/formats.js";
import { CONTRACT_PATH, PROJECT_ROOT } from "../paths.ts";
import { canKeep, readCached, writeCached } from "../user-cache.ts";
import { parseYaml } from "../yaml-file.ts";
import { ContractError, checkContract, MAX_CONTRACT_BYTES } from "./bounds.ts";
import { linearPattern, linearRegExp } from "./patterns.ts";
import { MONTH_DAY_YEAR } from "./resources.ts";

// Ajv's compiler, its `usePattern` and its standalone writer are required where they run
// (SchemaSet.#newAjv, PATTERN, standaloneCode): only `_` and `str` of its code generator load here.
const require = createRequire(import.meta.url);

// Where the contract is lives with the project's other paths: a command that only names it (its
// usage, a run of the suite against a target) need not load Ajv, YAML and the XML parser.
export { CONTRACT_PATH, PROJECT_CONTRACT_PATH } from "../paths.ts";

/** The parts of an OpenAPI document this project reads. */
export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, unknown>>;
  components: { schemas: Record<string, JsonSchema> } & Record<string, unknown>;
  [key: string]: unknown;
}
export type JsonSchema = Record<string, unknown>;

/** The aliases a contract may use (the yaml package's guard against alias bombs; its default is 100). */
export const CONTRACT_ALIASES = 1000;

/**
 * Reads the contract as it is now (through the build's cache, src/yaml-file.ts); YAML anchors and
 * aliases are expanded. Throws ContractError naming the node for a contract bawa can not use
 * (bounds.ts: its size, enums, patterns, $refs).
 */
export function loadContract(path: string = CONTRACT_PATH): OpenApiDocument {
  const { size } = statSync(path);
  if (size > MAX_CONTRACT_BYTES) {
    throw new ContractError(
      "#",
      `${path} has ${size.toLocaleString("en")} bytes, more than the ${MAX_CONTRACT_BYTES.toLocaleString("en")} bawa reads (A-LIMITS)`,
    );
  }
  const doc = parseYaml(readFileSync(path, "utf8"), { maxAliasCount: CONTRACT_ALIASES }) as OpenApiDocument;
  if (typeof doc?.openapi !== "string" || !doc.openapi.startsWith("3.1")) {
    throw new ContractError("#/openapi", `${path} is not an OpenAPI 3.1 document (openapi: ${String(doc?.openapi)})`);
  }
  if (typeof doc.components?.schemas !== "object" || doc.components.schemas === null) {
    throw new ContractError(
      "#/components/schemas",
      "the contract declares no schemas; bawa reads every shape from them",
    );
  }
  checkContract(doc);
  return doc;
}

// OpenAPI keywords that are annotations for JSON Schema validation.
const ANNOTATION_KEYWORDS = [
  "xml",
  "example",
  "externalDocs",
  "x-assumption",
  "components",
  // The resource model's extensions (resources.ts): read by the model, annotations here.
  "x-bawa-sequence",
  "x-bawa-database",
];

/** A-DATES: month/day/year, with or without leading zeros, a day that exists in the calendar. */
export function monthDayYear(text: string): { month: number; day: number; year: number } | undefined {
  const parts = dateParts(text);
  if (parts < 0) return undefined;
  return { month: Math.floor(parts / 1_000_000), day: Math.floor(parts / 10_000) % 100, year: parts % 10_000 };
}

/**
 * Whether a text of the form M/d/yyyy names a day of the calendar (proleptic Gregorian from
 * year 0001, as .NET's DateTime); true for text of another form, which the schema's pattern refuses. Every
 * body's dates pass here: it reads the digits without allocating.
 */
export const isCalendarDateOrOtherForm = (text: string): boolean => dateParts(text) !== -1;

/** month·10⁶ + day·10⁴ + year for a valid M/d/yyyy date; -1 for a day that does not exist; -2 for another form. */
function dateParts(text: string): number {
  const n = text.length;
  if (n < 8 || n > 10) return -2;
  const s1 = text.indexOf("/");
  const s2 = s1 < 0 ? -1 : text.indexOf("/", s1 + 1);
  if (s1 < 1 || s1 > 2 || s2 - s1 < 2 || s2 - s1 > 3 || n - s2 !== 5) return -2;
  const month = digits(text, 0, s1);
  const day = digits(text, s1 + 1, s2);
  const year = digits(text, s2 + 1, n);
  if (month < 0 || day < 0 || year < 0) return -2;
  // Year 0000 is no year of .NET's DateTime (0001-9999), so none of its days exists.
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(month, year)) return -1;
  return month * 1_000_000 + day * 10_000 + year;
}

function digits(text: string, from: number, to: number): number {
  let v = 0;
  for (let i = from; i < to; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    v = v * 10 + d;
  }
  return v;
}

function daysInMonth(month: number, year: number): number {
  if (month !== 2) return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
}

/** The number of code points in a text, as JSON Schema counts a string's length (a surrogate pair is one). */
export function codePoints(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++, n++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) i++;
  }
  return n;
}

/**
 * maxLength and minLength as Ajv's own, counting code points only when the UTF-16 length could
 * break the limit: a text has at most as many code points as UTF-16 units. Ajv counts every
 * string one unit at a time, a seventh of checking 100,000 seed customers.
 */
const LENGTH_LIMITS: CodeKeywordDefinition = {
  keyword: ["maxLength", "minLength"],
  type: "string",
  schemaType: "number",
  // Where Ajv runs its own (before pattern and format), so errors come in the same order.
  before: "pattern",
  error: {
    message: ({ keyword, schemaCode }) =>
      str`must NOT have ${keyword === "maxLength" ? "more" : "fewer"} than ${schemaCode} characters`,
    params: ({ schemaCode }) => _`{limit: ${schemaCode}}`,
  },
  code(cxt: KeywordCxt) {
    const { keyword, data, schemaCode } = cxt;
    const count = cxt.gen.scopeValue("func", { ref: codePoints, code: _`codePoints` });
    cxt.fail(
      keyword === "maxLength"
        ? _`${data}.length > ${schemaCode} && ${count}(${data}) > ${schemaCode}`
        : _`${data}.length < ${schemaCode} || ${count}(${data}) < ${schemaCode}`,
    );
  },
};

/**
 * `pattern`, as Ajv's own but through the linear-time engine (`code.regExp`), and not run on a
 * string already longer than the same schema's maxLength: the text is refused either way, and the
 * engine's work grows with the text's length (A-LIMITS).
 */
const PATTERN: CodeKeywordDefinition = {
  keyword: "pattern",
  type: "string",
  schemaType: "string",
  // Where Ajv runs its own, so errors come in the same order.
  before: "format",
  error: {
    message: ({ schemaCode }) => str`must match pattern "${schemaCode}"`,
    params: ({ schemaCode }) => _`{pattern: ${schemaCode}}`,
  },
  code(cxt: KeywordCxt) {
    const { data, schema, parentSchema } = cxt;
    const { usePattern } = require("ajv/dist/vocabularies/code.js") as typeof import("ajv/dist/vocabularies/code.js");
    const rx = usePattern(cxt, schema as string);
    const max = (parentSchema as { maxLength?: unknown }).maxLength;
    if (typeof max !== "number") return cxt.fail(_`!${rx}.test(${data})`);
    const count = cxt.gen.scopeValue("func", { ref: codePoints, code: _`codePoints` });
    cxt.fail(_`(${data}.length <= ${max} || ${count}(${data}) <= ${max}) && !${rx}.test(${data})`);
  },
};

/**
 * The largest integer a JSON number carries exactly: JSON.parse reads 9007199254740993 as
 * 9007199254740992 and 99999999999999999999 as 1e20, so a larger one would be stored changed,
 * silently. Every `type: integer` of a request body refuses it (exactIntegers()).
 */
const EXACT_INTEGER: CodeKeywordDefinition = {
  keyword: "x-bawa-exact-integer",
  type: "number",
  schemaType: "boolean",
  error: {
    message: `must be an integer from -${Number.MAX_SAFE_INTEGER} to ${Number.MAX_SAFE_INTEGER} (a JSON number beyond that loses digits)`,
  },
  code(cxt: KeywordCxt) {
    cxt.fail(_`!Number.isSafeInteger(${cxt.data}) && Number.isInteger(${cxt.data})`);
  },
};

/** The schemas with EXACT_INTEGER beside every integer type, for Ajv's copy of request schemas only. */
function exactIntegers(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(exactIntegers);
  if (typeof node !== "object" || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) out[k] = exactIntegers(v);
  const type = (node as { type?: unknown }).type;
  if (type === "integer" || (Array.isArray(type) && type.includes("integer"))) out["x-bawa-exact-integer"] = true;
  return out;
}

/** The largest magnitude of .NET's decimal, which the service's decimal fields are (format: decimal). */
const DECIMAL_MAX = 7.922816251426434e28;

/**
 * The formats a schema may name. One object for Ajv and for the validators the build keeps: their
 * code reads each format from it by name, as `formats.decimal`.
 */
const FORMATS = {
  uri: fullFormats.uri,
  "date-time": fullFormats["date-time"],
  // OpenAPI's format registry: "decimal" is a fixed-point number; JSON numbers carry it as is.
  decimal: { type: "number", validate: (n: number) => Math.abs(n) <= DECIMAL_MAX },
  // A date that does not exist (02/30/2024) fails here; one of the wrong form fails the schema's pattern.
  [MONTH_DAY_YEAR]: { type: "string", validate: isCalendarDateOrOtherForm },
} as const;

/** What the validators' code reads besides Ajv's runtime (`require`): each by the name the code gives it. */
const CODE_VALUES = { formats: FORMATS, codePoints, linearPattern } as const;

/** How a validator treats the data it checks. */
export interface ValidatorOptions {
  /** Fill missing properties with the contract's `default` (request bodies). */
  useDefaults?: boolean;
  /**
   * Refuse integers a JSON number does not carry exactly (request bodies, so the mock stores no
   * value changed). Not for answers: a server that sends one is valid; the loss is the reader's.
   */
  exactIntegers?: boolean;
}

/**
 * Where the build keeps the validators' code of the project's contract (`npm run build`), each
 * schema set's under its validatorKey(). Compiling them with Ajv cost every process that checks
 * data (a mock, a worker of the suite, bawa proxy) about 0.2 CPU-s, 50-80 ms of it before a mock
 * could check its seed; loading the kept code costs a few milliseconds.
 */
export const VALIDATOR_CACHE_DIR = resolve(PROJECT_ROOT, "dist/validators");

/** The text of this module: the keywords' code generators are part of it, so an edit is a new key. */
let ownText: string | undefined;

/**
 * The key of a schema set's kept code: Ajv's and ajv-formats' versions, this module's text (its
 * keywords and options), the validator options and the schemas. A schema or keyword edited without a build
 * finds no code, and is compiled as before: kept code can be missing, never stale.
 */
export function validatorKey(schemas: Record<string, JsonSchema>, options: ValidatorOptions): string {
  ownText ??= readFileSync(fileURLToPath(import.meta.url), "utf8");
  return (
    createHash("sha256")
      .update((require("ajv/package.json") as { version: string }).version)
      .update("\0")
      // ajv-formats' formats are written into the code by their kind (a function, an object, a
      // pattern copied as it is): another version may be another kind.
      .update((require("ajv-formats/package.json") as { version: string }).version)
      .update("\0")
      .update(ownText)
      .update("\0")
      .update(JSON.stringify([options.useDefaults ?? false, options.exactIntegers ?? false]))
      .update("\0")
      .update(schemasText(schemas))
      .digest("hex")
  );
}

/**
 * The schemas as text for a key: JSON, but a number JSON can not write (YAML's `.inf`, `.nan`) as
 * its own text, not as the `null` JSON makes of it: `maximum: .inf` and `maximum: null` (which Ajv
 * refuses) are two contracts. Every finite number is written as JSON writes it, so the keys of
 * contracts without such numbers are what they were.
 */
const schemasText = (schemas: Record<string, JsonSchema>) =>
  JSON.stringify(schemas, (_k, v: unknown) => (typeof v === "number" && !Number.isFinite(v) ? `\0${v}` : v));

/**
 * Schemas whose text is longer than this are not made into one module of code at once: a contract
 * near its 4 MiB limit that refers to a large schema from many places made 305 MB of it. They are
 * compiled one by one on first use, as without a cache.
 */
const KEPT_SCHEMAS_CHARS = 1024 * 1024;

type Validators = Record<string, ValidateFunction>;

/**
 * The validators of a SchemaSet's standaloneCode(), by schema name. Only for code the build made:
 * it runs as this process's own (it is as trusted as dist/'s modules).
 */
export function loadValidatorCode(code: string): Validators {
  const exports: Validators = {};
  new Function("require", "exports", ...Object.keys(CODE_VALUES), code)(
    require,
    exports,
    ...Object.values(CODE_VALUES),
  );
  return exports;
}

/**
 * Ajv validators for the contract's named schemas (`#/components/schemas/<name>`),
 * compiled on first use and cached; for the project's contract, the build's code of them.
 */
export class SchemaSet {
  #ajv: Ajv2020 | undefined;
  readonly #cache = new Map<string, ValidateFunction>();
  /** The build's validators of these schemas; null when it kept none (or they would not load). */
  #kept: Validators | null | undefined;
  /** The patterns of the contract's month/day/year dates: a value that misses one is told so in words. */
  #dates: ReadonlySet<string> | undefined;
  get #datePatterns(): ReadonlySet<string> {
    this.#dates ??= new Set(
      Object.values(this.doc.components.schemas)
        .filter((s) => s.format === MONTH_DAY_YEAR && typeof s.pattern === "string")
        .map((s) => s.pattern as string),
    );
    return this.#dates;
  }
  readonly #id = "bawa:contract";

  constructor(
    readonly doc: OpenApiDocument,
    private readonly options: ValidatorOptions = {},
  ) {}

  /** Ajv set up for these schemas; `source` keeps each validator's code, for the build to write. */
  #newAjv({ source }: { source: boolean }): Ajv2020 {
    // Loaded here, not with this module: a process whose validators the build kept never compiles
    // one, and loading Ajv's compiler cost 30-50 ms of every start.
    const { Ajv2020 } = require("ajv/dist/2020.js") as typeof import("ajv/dist/2020.js");
    const ajv = new Ajv2020({
      strict: true,
      allErrors: true,
      useDefaults: this.options.useDefaults ?? false,
      discriminator: true,
      // The schemas sit under `components`, a keyword the meta-schema does not know, so checking
      // the document against it checked nothing; compiling it was a quarter of the mock's start-up
      // (50 ms). Each schema is checked as it compiles (strict mode: unknown keywords and types).
      validateSchema: false,
      // Patterns run in linear time (patterns.ts), and Ajv's strict check of patternProperties
      // against properties, which ran them on its own engine, is left out. Formats are read from
      // FORMATS by name, in the code Ajv makes.
      code: { regExp: linearRegExp, formats: _`formats`, source },
      allowMatchingProperties: true,
    });
    for (const [name, format] of Object.entries(FORMATS)) ajv.addFormat(name, format);
    ajv
      .removeKeyword("pattern")
      .addKeyword(PATTERN)
      .removeKeyword("maxLength")
      .removeKeyword("minLength")
      .addKeyword(LENGTH_LIMITS)
      .addKeyword(EXACT_INTEGER);
    ajv.addVocabulary(ANNOTATION_KEYWORDS);
    const schemas = this.options.exactIntegers
      ? exactIntegers(this.doc.components.schemas)
      : this.doc.components.schemas;
    ajv.addSchema({ $id: this.#id, components: { schemas } });
    return ajv;
  }

  // Made on first use: setting Ajv up is a fifth of the mock's start-up, and the validators of
  // request bodies are not needed before the first write.
  get #validators(): Ajv2020 {
    this.#ajv ??= this.#newAjv({ source: false });
    return this.#ajv;
  }

  #ref(name: string): string {
    return `#/components/schemas/${name.replaceAll("~", "~0").replaceAll("/", "~1")}`;
  }

  /**
   * The code of these schemas' validators, loaded once: the build's (the project's contract), else
   * the user's cache folder's (user-cache.ts: a team's contract, made at its first use on this
   * machine); null when neither can be had, and each is compiled by Ajv on first use.
   */
  get #keptValidators(): Validators | null {
    if (this.#kept !== undefined) return this.#kept;
    this.#kept = null;
    const name = `${this.key}.js`;
    let code: string | undefined;
    try {
      code = readFileSync(this.keptCodePath(), "utf8");
    } catch {
      code = readCached("validators", name)?.toString("utf8"); // Not built, or not these schemas.
    }
    if (code !== undefined) {
      try {
        const kept = loadValidatorCode(code);
        // Every schema's, or it is not these schemas' code (cut short, emptied): made again below.
        if (Object.keys(this.doc.components.schemas).every((n) => Object.hasOwn(kept, n))) {
          this.#kept = kept;
          return kept;
        }
      } catch {
        // Made by other code than this (a name it reads is gone): made again below.
      }
    }
    // Made whole only where it can be kept (else each process would pay for the whole set), and
    // not for schemas too large to be one module.
    if (!canKeep("validators") || schemasText(this.doc.components.schemas).length > KEPT_SCHEMAS_CHARS) return null;
    try {
      // Every schema at once, kept for the next process: the mock compiles a team's contract
      // whole before it listens anyway, and a worker of the suite then loads instead of compiling.
      code = this.standaloneCode();
      this.#kept = loadValidatorCode(code);
      writeCached("validators", name, code);
    } catch {
      // A schema Ajv refuses: compiled one by one on first use, where the refusal names it.
    }
    return this.#kept;
  }

  /**
   * Whether the validators are kept code (the build's, or the user's cache folder's, made now when
   * missing) or are compiled by Ajv one by one on first use (false: a schema Ajv refuses, no cache).
   */
  get kept(): boolean {
    return this.#keptValidators !== null;
  }

  /** Ajv's compile of a named schema now, never kept code (what the tests hold kept code to). */
  compiledNow(name: string): ValidateFunction {
    const fn = this.#validators.getSchema(`${this.#id}${this.#ref(name)}`);
    if (!fn) throw new ContractError(this.#ref(name), "does not compile");
    return fn;
  }

  /**
   * The code of every schema's validator, as a module of CommonJS whose free names are those of
   * CODE_VALUES (what `npm run build` keeps under VALIDATOR_CACHE_DIR).
   */
  standaloneCode(): string {
    const ajv = this.#newAjv({ source: true });
    const refs = Object.fromEntries(
      Object.keys(this.doc.components.schemas).map((name) => [name, `${this.#id}${this.#ref(name)}`]),
    );
    const standalone = require("ajv/dist/standalone/index.js") as typeof import("ajv/dist/standalone/index.js");
    return standalone.default(ajv, refs);
  }

  /** Writes standaloneCode() where this set's validators are looked for; answers the file's path. */
  keepCode(): string {
    mkdirSync(VALIDATOR_CACHE_DIR, { recursive: true });
    const file = this.keptCodePath();
    // Whole or not at all: a process starting meanwhile finds no file, never part of one.
    const partial = `${file}.${process.pid}.partial`;
    writeFileSync(partial, this.standaloneCode());
    renameSync(partial, file);
    return file;
  }

  /** Where this set's validators are kept by the build (whether or not they are). */
  keptCodePath(): string {
    return resolve(VALIDATOR_CACHE_DIR, `${this.key}.js`);
  }

  #keyOf: string | undefined;
  /**
   * validatorKey() of these schemas and options: the name of their kept code, wherever it is kept,
   * and part of the key of anything kept that this set's checks decided (a seed file's index).
   */
  get key(): string {
    this.#keyOf ??= validatorKey(this.doc.components.schemas, this.options);
    return this.#keyOf;
  }

  /** The compiled validator of a named schema; throws when the name is unknown. */
  validator(name: string): ValidateFunction {
    let fn = this.#cache.get(name);
    if (!fn) {
      if (!(name in this.doc.components.schemas)) throw new Error(`contract: no schema named ${name}`);
      const where = this.#ref(name);
      const kept = this.#keptValidators;
      // Own properties only: a schema named `constructor` is no Object.
      if (kept && Object.hasOwn(kept, name)) fn = kept[name];
      if (!fn) {
        try {
          fn = this.#validators.getSchema(`${this.#id}${where}`);
        } catch (err) {
          throw new ContractError(where, `does not compile: ${(err as Error).message}`);
        }
      }
      if (!fn) throw new ContractError(where, "does not compile");
      this.#cache.set(name, fn);
    }
    return fn;
  }
  /** Validates `data` against a named schema; returns readable problems, empty when valid. */
  check(name: string, data: unknown): Problem[] {
    const fn = this.validator(name);
    return fn(data) ? [] : describeErrors(fn.errors ?? [], this.#datePatterns);
  }
}

/** One reason data does not fit a schema, with the field it concerns. */
export interface Problem {
  /** Dotted path of the field, "" for the whole body. */
  field: string;
  message: string;
}

/** Turns Ajv errors into one readable problem per field. */
export function describeErrors(errors: ErrorObject[], datePatterns: ReadonlySet<string> = new Set()): Problem[] {
  const out: Problem[] = [];
  const seen = new Set<string>();
  for (const e of errors) {
    const base = e.instancePath.split("/").slice(1).map(decodePointer).join(".");
    const field = e.keyword === "required" ? join(base, String(e.params.missingProperty)) : base;
    const message = explain(e, datePatterns);
    const key = `${field}\u0000${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ field, message });
  }
  return out;
}

const join = (a: string, b: string) => (a ? `${a}.${b}` : b);
const decodePointer = (s: string) => s.replaceAll("~1", "/").replaceAll("~0", "~");

function explain(e: ErrorObject, datePatterns: ReadonlySet<string>): string {
  switch (e.keyword) {
    case "required":
      return "is required";
    case "type":
      return `must be of type ${[e.params.type].flat().join(" or ")}`;
    case "pattern":
      return datePatterns.has(String(e.params.pattern))
        ? "must be a date written month/day/year (03/31/2024 or 3/31/2024)"
        : `must match ${e.params.pattern}`;
    case "enum":
      return `must be one of ${listed(e.params.allowedValues as unknown[])}`;
    case "const":
      return `must be ${JSON.stringify(e.params.allowedValue)}`;
    case "format":
      return e.params.format === MONTH_DAY_YEAR
        ? "is not a date that exists (month/day/year)"
        : e.params.format === "decimal"
          ? `must be a decimal from -${DECIMAL_MAX} to ${DECIMAL_MAX}`
          : `must be of format ${e.params.format}`;
    default:
      return e.message ?? e.keyword;
  }
}

/** An enum's values for a message: the first few, and how many in all when there are more. */
function listed(values: readonly unknown[]): string {
  const shown = values.slice(0, ENUM_VALUES_SHOWN).map((v) => JSON.stringify(v)?.slice(0, 100));
  return values.length > ENUM_VALUES_SHOWN
    ? `${shown.join(", ")}, ... (${values.length.toLocaleString("en")} values)`
    : shown.join(", ");
}
const ENUM_VALUES_SHOWN = 20;

// Keywords that come from our assumptions or the research notes, not from the description.
const NOT_IN_DESCRIPTION = ["minLength", "maxLength", "maxItems", "maxProperties", "default"];

/**
 * The contract as the service description alone supports it: every schema
 * node marked `x-assumption` is loosened to its bare `type`, and length
 * limits are dropped. Checks of kind `spec` validate against this view.
 */
export function specView(doc: OpenApiDocument): OpenApiDocument {
  const loosen = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(loosen);
    if (typeof node !== "object" || node === null) return node;
    const obj = node as Record<string, unknown>;
    if ("x-assumption" in obj && ("type" in obj || "properties" in obj)) {
      return { type: obj.type ?? "object", description: `loosened: ${String(obj["x-assumption"])}` };
    }
    return Object.fromEntries(
      Object.entries(obj)
        .filter(([k]) => !NOT_IN_DESCRIPTION.includes(k))
        .map(([k, v]) => [k, loosen(v)]),
    );
  };
  return {
    ...doc,
    components: { ...doc.components, schemas: loosen(doc.components.schemas) as Record<string, JsonSchema> },
  };
}
