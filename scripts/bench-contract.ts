// `npm run bench:contract`: what a contract at the limits of A-LIMITS costs (src/contract/bounds.ts,
// decision 0021): reading and checking it, compiling its validators, matching its patterns and
// enums. Figures, not tests: each is the median of three runs on this machine (a pattern's, of one
// cold run).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import {
  compileContract,
  loadContract,
  MAX_CONTRACT_NODES,
  MAX_ENUM_VALUES,
  MAX_PATTERN_SIZE,
  MAX_SCHEMA_PROPERTIES,
  SchemaSet,
  warmContract,
} from "../src/contract/index.ts";
import { linearPattern } from "../src/contract/patterns.ts";

const median = (runs: number[]) => runs.sort((a, b) => a - b)[Math.floor(runs.length / 2)]!;
function time(what: string, fn: () => unknown, unit: "ms" | "s" = "ms", rounds = 3): void {
  const runs = Array.from({ length: rounds }, () => {
    const start = performance.now();
    fn();
    return performance.now() - start;
  });
  const ms = median(runs);
  console.log(`${what.padEnd(72)} ${unit === "s" ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(1)} ms`}`);
}

const dir = mkdtempSync(join(tmpdir(), "bawa-bench-contract-"));
try {
  // The project's contract, and one as large as a contract may be: schemas of the most properties
  // a schema may declare, as many as the nodes allow (each property below is five nodes).
  time("read and check openapi/openapi.yaml", () => loadContract());
  time("compile every validator of openapi/openapi.yaml", () => warmContract(compileContract()));
  const doc = structuredClone(loadContract());
  const room = MAX_CONTRACT_NODES - 2_000;
  const schemas = Math.floor(room / (MAX_SCHEMA_PROPERTIES * 5 + 3));
  for (let n = 0; n < schemas; n++) {
    const properties: Record<string, unknown> = {};
    for (let i = 0; i < MAX_SCHEMA_PROPERTIES; i++) properties[`P${i}`] = { type: ["string", "null"], maxLength: 255 };
    doc.components.schemas[`Wide${n}`] = { type: "object", properties };
  }
  const wide = join(dir, "wide.yaml");
  writeFileSync(wide, stringify(doc, { aliasDuplicateObjects: false }));
  time(`read and check a contract with ${schemas} schemas of ${MAX_SCHEMA_PROPERTIES} properties`, () =>
    loadContract(wide),
  );
  time(
    `compile every validator of it (the proxy does before listening)`,
    () => warmContract(compileContract(wide)),
    "s",
  );

  // Patterns: a MiB of text against the contract's own, a common one, and the worst shape at the
  // limit (the engine's state machine outgrows its cache and it steps every instruction per character).
  // a and b in an order no cache of states can keep up with (a fixed pseudo-random sequence).
  let seed = 1;
  const mib = Array.from({ length: 1024 * 1024 }, () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed & 0x10000 ? "a" : "b";
  }).join("");
  const worst = `[ab]*a[ab]{${MAX_PATTERN_SIZE - 6}}$`;
  for (const [name, pattern] of [
    ["the contract's date pattern", "^(0?[1-9]|1[0-2])/(0?[1-9]|[12][0-9]|3[01])/[0-9]{4}$"],
    ["^(a+)+$ (exponential on a backtracking engine)", "^(a+)+$"],
    ["an e-mail pattern", "^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$"],
    [`${worst} (worst shape, ${linearPattern(worst).size} instructions)`, worst],
  ] as const) {
    // Once, cold: the engine keeps the states it met, and a later text meets them again for less.
    const p = linearPattern(pattern);
    time(`1 MiB against ${name}`, () => p.test(`${mib}c`), "s", 1);
  }

  // An enum at the limit: one wrong value, and the message about it.
  const values = Array.from({ length: MAX_ENUM_VALUES }, (_, i) => `value-${i}`);
  const set = new SchemaSet({ ...doc, components: { schemas: { Big: { enum: values } } } });
  set.validator("Big");
  time(`one wrong value against an enum of ${MAX_ENUM_VALUES} values (message included)`, () =>
    set.check("Big", "nope"),
  );
  console.log(`  the message: ${set.check("Big", "nope")[0]!.message.length} characters`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
