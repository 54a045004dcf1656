// The run's findings as SARIF 2.1.0, the format code-scanning views read: one
// rule per requirement, one result per failed check or observed violation,
// located at the contract node it concerns (the schema property of a
// field-level finding, else the path of the resource it concerns) or, where no
// node fits, at the requirement's line in conformance/requirements.yaml.
import { readFileSync } from "node:fs";
import { isAbsolute, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { isAlias, isMap, isScalar, LineCounter, type Node, parseDocument } from "yaml";
import type { Requirement } from "./requirements.ts";

/** What SARIF reads of a target's summary (matrix-reporter.ts Summary). */
export interface SarifSummary {
  target: string;
  requirements: ReadonlyArray<{
    id: string;
    row: string;
    subject?: string;
    verdict: string;
    checks: ReadonlyArray<{ title: string; file: string; status: string; reason?: string; observed?: true }>;
  }>;
}

/** A place in a file: line and column count from 1. */
export interface Place {
  file: string;
  line: number;
  column: number;
  /** The node's path in the document (`components.schemas.Customer.properties.Name`). */
  node?: string;
}

/** Row verdicts that are findings. */
const FINDINGS = new Set(["failed", "uncovered", "unexpected pass"]);

/** The lines of a YAML file's nodes, read once. */
class YamlPlaces {
  readonly #doc;
  readonly #lines = new LineCounter();

  constructor(
    readonly file: string,
    text: string,
  ) {
    this.#doc = parseDocument(text, { lineCounter: this.#lines, keepSourceTokens: false });
  }

  /** The key of the node at `path` (its line), or undefined. */
  at(path: readonly string[]): Place | undefined {
    let node: unknown = this.#doc.contents;
    let offset: number | undefined;
    for (const key of path) {
      // An alias (`properties: *customerProperties`) stands for its anchor's node: the line is the anchor's.
      if (isAlias(node)) node = node.resolve(this.#doc);
      if (!isMap(node)) return undefined;
      const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === key);
      if (!pair) return undefined;
      offset = (pair.key as Node).range?.[0];
      node = pair.value;
    }
    if (offset === undefined) return undefined;
    const { line, col } = this.#lines.linePos(offset);
    return { file: this.file, line, column: col, node: path.join(".") };
  }

  /** The plain value at `path` (`$ref`s are not followed). */
  value(path: readonly string[]): unknown {
    return this.#doc.getIn(path, false);
  }
}

/** Where findings of the contract and of the requirements are located. */
export class Locator {
  readonly #contract: YamlPlaces;
  readonly #requirementLines = new Map<string, number>();
  readonly #requirementsFile: string;

  constructor(contractFile: string, requirementsFile: string) {
    this.#contract = new YamlPlaces(contractFile, readFileSync(contractFile, "utf8"));
    this.#requirementsFile = requirementsFile;
    readFileSync(requirementsFile, "utf8")
      .split("\n")
      .forEach((line, i) => {
        const id = /^\s*-\s*id:\s*([A-Z0-9-]+)\s*$/.exec(line)?.[1];
        if (id) this.#requirementLines.set(id, i + 1);
      });
  }

  /** The schema a resource's objects are written in: `Customer`, or an info list's item schema. */
  #schemaOf(resource: string): string | undefined {
    const ref = (v: unknown) => (typeof v === "string" ? v.split("/").pop() : undefined);
    const schema = this.#contract.value(["components", "schemas", resource]);
    if (schema === undefined) return undefined;
    const items = ref(this.#contract.value(["components", "schemas", resource, "items", "$ref"]));
    return items ?? resource;
  }

  /** The schema property a finding names (`body.Name`, `0.CustomerId is required`), for a resource. */
  field(resource: string, field: string): Place | undefined {
    const schema = this.#schemaOf(resource);
    return schema ? this.#contract.at(["components", "schemas", schema, "properties", field]) : undefined;
  }

  /** The first path of the contract that addresses a resource (`/api/{database_id}/Customer`). */
  resourcePath(resource: string): Place | undefined {
    const paths = this.#contract.value(["paths"]) as { items?: Array<{ key: unknown }> } | undefined;
    for (const pair of paths?.items ?? []) {
      const path = String((pair.key as { value?: unknown })?.value ?? "");
      const last = path
        .split("/")
        .filter((s) => s && !s.startsWith("{"))
        .pop();
      if (last === resource) return this.#contract.at(["paths", path]);
    }
    return undefined;
  }

  requirement(id: string): Place {
    return { file: this.#requirementsFile, line: this.#requirementLines.get(id) ?? 1, column: 1 };
  }

  /** The best place for a finding of a row: a field of its resource, the resource, else the requirement. */
  locate(id: string, resource: string | undefined, text: string): Place {
    if (resource) {
      for (const field of fieldsNamed(text)) {
        const place = this.field(resource, field);
        if (place) return place;
      }
      const path = this.resourcePath(resource);
      if (path) return path;
    }
    return this.requirement(id);
  }
}

/** Field names a finding's text points at: `body.Name`, `body.Addresses.0.City`, `0.CustomerId is required`, `Name: ...`. */
export function fieldsNamed(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/\bbody\.([A-Za-z_][\w]*)/g)) out.push(m[1]!);
  for (const m of text.matchAll(
    /(?:^|[\s:(])(?:\d+\.)?([A-Z][A-Za-z0-9_]*)(?:\.[\w.]+)? (?:is required|must |should )/g,
  ))
    out.push(m[1]!);
  return [...new Set(out)];
}

/** The resource a row concerns: its subject, or the customer for the customer's own rows (CUST-*). */
const resourceOf = (row: { id: string; subject?: string }) =>
  row.subject ?? (row.id.startsWith("CUST-") ? "Customer" : undefined);

/** A file as SARIF names it: relative to the directory the run started in where it lies inside it. */
function artifact(file: string, cwd: string): { uri: string; uriBaseId?: string } {
  const rel = relative(cwd, file);
  return rel && !rel.startsWith("..") && !isAbsolute(rel)
    ? { uri: rel.split("\\").join("/"), uriBaseId: "%SRCROOT%" }
    : { uri: pathToFileURL(file).href };
}

export interface SarifOptions {
  requirements: ReadonlyMap<string, Requirement>;
  locator: Locator;
  version: string;
  /** The directory paths are given relative to (the run's working directory). */
  cwd: string;
}

/** The SARIF log of a run: one `run` per target. */
export function sarifLog(summaries: readonly SarifSummary[], opts: SarifOptions): object {
  const rules = [...opts.requirements.values()];
  const index = new Map(rules.map((r, i) => [r.id, i]));
  const driver = {
    name: "bawa conformance",
    version: opts.version,
    informationUri: "https://www.npmjs.com/package/bawa",
    rules: rules.map((r) => ({
      id: r.id,
      shortDescription: { text: r.text.length > 200 ? `${r.text.slice(0, 197)}...` : r.text },
      fullDescription: { text: `${r.text} (${r.section})` },
      defaultConfiguration: { level: "error" },
      properties: { kind: r.kind, section: r.section, tags: [r.kind] },
    })),
  };
  const runs = summaries.map((s) => ({
    tool: { driver },
    automationDetails: { id: `bawa-conformance/${s.target}` },
    results: s.requirements
      .filter((row) => FINDINGS.has(row.verdict))
      .flatMap((row) => {
        const failed = row.checks.filter((c) => c.status === "failed" || c.status === "timedOut" || c.observed);
        const findings = failed.length
          ? failed.map((c) => `${c.title}: ${c.reason ?? c.status}`)
          : [`${row.verdict}${row.checks[0]?.reason ? `: ${row.checks[0].reason}` : ""}`];
        return findings.map((text) => {
          const place = opts.locator.locate(row.id, resourceOf(row), text);
          return {
            ruleId: row.id,
            ruleIndex: index.get(row.id) ?? -1,
            level: "error",
            message: { text: `${row.row} against ${s.target}: ${text}` },
            locations: [
              {
                physicalLocation: {
                  artifactLocation: artifact(place.file, opts.cwd),
                  region: { startLine: place.line, startColumn: place.column },
                },
                ...(place.node ? { logicalLocations: [{ fullyQualifiedName: place.node, kind: "member" }] } : {}),
              },
            ],
            properties: { row: row.row, target: s.target },
          };
        });
      })
      .map((r) => (r.ruleIndex < 0 ? { ...r, ruleIndex: undefined } : r)),
  }));
  return {
    $schema: "https://json.schemastore.org/sarif-2.1.0.json",
    version: "2.1.0",
    runs,
  };
}
