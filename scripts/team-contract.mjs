#!/usr/bin/env node
// The contract and seed data of a team that added resources of its own, which
// the fault matrix runs on (npm run faults): the project's contract with the
// customer copied as `Supplier` (scripts/copy-resource.mjs) and `Product`, a
// resource shaped unlike the customer (scripts/fixtures/product.yaml), each
// with seed data of its own. Every fault that acts on resources must then be
// caught on all three, and no rule may fail either new one falsely.
//
//   node scripts/team-contract.mjs [--out <dir>]
//
// Writes <dir>/openapi.yaml and <dir>/mock-data/ (default reports/second-resource)
// and prints the contract's path.
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { parse, parseDocument } from "yaml";
import { renaming, writeCopy } from "./copy-resource.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * Writes the team's contract and seed folder into `out`; returns the contract's path.
 * @param {{ out?: string }} options
 */
export function writeTeamContract({ out, supplier = true } = {}) {
  const dir = resolve(out ?? resolve(ROOT, "reports/second-resource"));
  mkdirSync(dir, { recursive: true });
  const file = supplier
    ? writeCopy({ from: "Customer", to: "Supplier", out: join(dir, "openapi.yaml") })
    : join(dir, "openapi.yaml");
  if (!supplier) cpSync(resolve(ROOT, "openapi/openapi.yaml"), file);
  const fixture = parse(readFileSync(resolve(ROOT, "scripts/fixtures/product.yaml"), "utf8"));
  const doc = parseDocument(readFileSync(file, "utf8"), { maxAliasCount: 1000 });
  for (const [path, item] of Object.entries(fixture.paths)) doc.setIn(["paths", path], doc.createNode(item));
  for (const [name, schema] of Object.entries(fixture.components.schemas))
    doc.setIn(["components", "schemas", name], doc.createNode(schema));
  writeFileSync(file, doc.toString({ lineWidth: 0 }));

  const seed = join(dir, "mock-data");
  rmSync(seed, { recursive: true, force: true });
  cpSync(resolve(ROOT, "mock-data"), seed, { recursive: true });
  if (supplier) {
    const rename = renaming("Customer", "Supplier");
    mkdirSync(join(seed, "Supplier"), { recursive: true });
    for (const name of readdirSync(join(seed, "Customer"))) {
      const objects = JSON.parse(readFileSync(join(seed, "Customer", name), "utf8"));
      writeFileSync(join(seed, "Supplier", name), `${JSON.stringify(rename(objects), null, 2)}\n`);
    }
  }
  mkdirSync(join(seed, "Product"), { recursive: true });
  for (const [database, objects] of Object.entries(fixture.seed)) {
    writeFileSync(join(seed, "Product", `${database}.json`), `${JSON.stringify(objects, null, 2)}\n`);
  }
  return file;
}

const USAGE = `usage: node scripts/team-contract.mjs [--out <dir>] [--product-only]

Writes <dir>/openapi.yaml (the project's contract with Supplier, a copy of the customer,
and Product, scripts/fixtures/product.yaml) and <dir>/mock-data/ (the project's seed with
both), default reports/second-resource, and prints the contract's path. --product-only adds
Product alone: the project's contract as a team edits it, which the project's own tests
(scripts/team-contract.test.ts) must pass on.`;

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const { values } = parseArgs({
      options: { out: { type: "string" }, "product-only": { type: "boolean" }, help: { type: "boolean", short: "h" } },
    });
    if (values.help) console.log(USAGE);
    else console.log(writeTeamContract({ out: values.out, supplier: !values["product-only"] }));
  } catch (err) {
    if (!(err instanceof TypeError && /^ERR_PARSE_ARGS/.test(err.code ?? ""))) throw err;
    console.error(`team-contract: ${err.message}\n\n${USAGE}`);
    process.exitCode = 2;
  }
}
