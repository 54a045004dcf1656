#!/usr/bin/env node
// A contract with one more resource, made by copying another: every path and
// component whose name holds `from` again under `to` (`Customer` → `Supplier`,
// `customer_id` → `supplier_id`, `CustomerId` → `SupplierId`). It is how the
// tests prove that a new resource is an edit of the contract and nothing else:
// the mock and the suite serve and check the copy with no TypeScript change.
//
//   node scripts/copy-resource.mjs [--from Customer] [--to Supplier] [--out <file>]
//
// Writes the contract (openapi.yaml's, with the copy) as YAML to --out (default
// reports/second-resource/openapi.yaml) and prints its path.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { parse, stringify } from "yaml";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * The document with every path and component named after `from` copied under `to`. Inside the
 * copies, names are replaced whatever their case (`customer_id`, `createCustomer`, `Customer`);
 * `<to>Id` and `<from>Id` swap, so a copied property that already had the new id's name (a
 * customer's `SupplierId` code) keeps its meaning under the old one.
 * @param {Record<string, any>} doc
 * @param {string} from
 * @param {string} to
 */
export function copyResource(doc, from, to) {
  const out = structuredClone(doc);
  const hold = "\u0000SWAP\u0000";
  const rename = (value) =>
    JSON.parse(
      JSON.stringify(value)
        .replaceAll(`${to}Id`, hold)
        .replaceAll(`${from}Id`, `${to}Id`)
        .replaceAll(from, to)
        .replaceAll(from.toLowerCase(), to.toLowerCase())
        .replaceAll(hold, `${from}Id`),
    );
  const named = (name) => name.includes(from) || name.includes(from.toLowerCase());
  const renameKey = (k) => k.replaceAll(from, to).replaceAll(from.toLowerCase(), to.toLowerCase());
  for (const [path, item] of Object.entries(doc.paths)) {
    if (named(path)) out.paths[renameKey(path)] = rename(item);
  }
  for (const [kind, components] of Object.entries(doc.components ?? {})) {
    for (const [name, component] of Object.entries(components ?? {})) {
      if (named(name)) out.components[kind][renameKey(name)] = rename(component);
    }
  }
  if (Array.isArray(doc.tags) && doc.tags.some((t) => t.name === from)) {
    out.tags.push(rename(doc.tags.find((t) => t.name === from)));
  }
  return out;
}

/** Writes openapi.yaml with the copy to `out`; returns the path. */
export function writeCopy({ from = "Customer", to = "Supplier", out } = {}) {
  const file = resolve(out ?? resolve(ROOT, "reports/second-resource/openapi.yaml"));
  const doc = parse(readFileSync(resolve(ROOT, "openapi/openapi.yaml"), "utf8"), { maxAliasCount: 1000 });
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, stringify(copyResource(doc, from, to), { aliasDuplicateObjects: false }));
  return file;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: { from: { type: "string" }, to: { type: "string" }, out: { type: "string" } },
  });
  console.log(writeCopy(values));
}
