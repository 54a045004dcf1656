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
import { isDeepStrictEqual, parseArgs } from "node:util";
import { parse, parseDocument, stringify } from "yaml";

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
  const rename = renaming(from, to);
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

/**
 * Renames `from` to `to` everywhere in a JSON value, as copyResource renames the copies (seed
 * objects of the copied resource are renamed the same way).
 * @param {string} from
 * @param {string} to
 * @returns {<T>(value: T) => T}
 */
export function renaming(from, to) {
  const hold = "\u0000SWAP\u0000";
  return (value) =>
    JSON.parse(
      JSON.stringify(value)
        .replaceAll(`${to}Id`, hold)
        .replaceAll(`${from}Id`, `${to}Id`)
        .replaceAll(from, to)
        .replaceAll(from.toLowerCase(), to.toLowerCase())
        .replaceAll(hold, `${from}Id`),
    );
}

/**
 * Writes openapi.yaml with the copy to `out`; returns the path. The hand-written text is kept
 * byte for byte (its comments, anchors and layout): each copy is inserted as text at the end of
 * the block it joins (paths, a kind of components, tags), written out in full.
 */
export function writeCopy({ from = "Customer", to = "Supplier", out } = {}) {
  const file = resolve(out ?? resolve(ROOT, "reports/second-resource/openapi.yaml"));
  // The contract in use: a team's own (BAWA_CONTRACT), else the project's.
  const source = process.env.BAWA_CONTRACT ? resolve(process.env.BAWA_CONTRACT) : resolve(ROOT, "openapi/openapi.yaml");
  const text = readFileSync(source, "utf8");
  const options = { maxAliasCount: 1000 };
  const plain = parse(text, options);
  const paths = Object.keys(plain.paths);
  if (!paths.some((p) => p.includes(from) || p.includes(from.toLowerCase())))
    throw new UsageError(`${source} has no path named after ${from}`);
  if (paths.some((p) => p.includes(to))) throw new UsageError(`${source} already has paths named after ${to}`);
  const copy = copyResource(plain, from, to);
  const doc = parseDocument(text, options);
  /** @type {Array<{ at: number, text: string }>} */
  const inserts = [];
  const append = (where, added) => {
    const node = doc.getIn(where, true);
    if (!node?.items?.length || node.flow) throw new Error(`${where.join(".")} is not a block collection to add to`);
    const first = node.items[0].key?.range?.[0] ?? node.items[0].range[0];
    const column = first - text.lastIndexOf("\n", first) - 1 - (node.items[0].key ? 0 : 2);
    const yaml = stringify(added, { aliasDuplicateObjects: false, lineWidth: 0 });
    const at = node.range[2];
    const indented = yaml.replace(/^(?=.)/gm, " ".repeat(column));
    inserts.push({ at, text: text[at - 1] === "\n" ? indented : `\n${indented}` });
  };
  const fresh = (all, old) => Object.fromEntries(Object.entries(all ?? {}).filter(([k]) => !(k in (old ?? {}))));
  append(["paths"], fresh(copy.paths, plain.paths));
  for (const kind of Object.keys(copy.components ?? {})) {
    const added = fresh(copy.components[kind], plain.components[kind]);
    if (Object.keys(added).length) append(["components", kind], added);
  }
  if ((copy.tags?.length ?? 0) > (plain.tags?.length ?? 0)) append(["tags"], copy.tags.slice(plain.tags.length));
  let result = text;
  for (const { at, text: t } of inserts.sort((a, b) => b.at - a.at))
    result = result.slice(0, at) + t + result.slice(at);
  // The text must say what the copy is; anything else is a bug of this script, not a contract to write.
  if (!isDeepStrictEqual(parse(result, options), copy))
    throw new Error("the copy inserted as text does not read back as the copy");
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, result);
  return file;
}

class UsageError extends Error {}

const USAGE = `usage: node scripts/copy-resource.mjs [--from Customer] [--to Supplier] [--out <file>]

Writes openapi/openapi.yaml with every path and component named after --from copied
under --to (names inside the copies renamed too: CustomerGroupId becomes SupplierGroupId)
to --out (default reports/second-resource/openapi.yaml), and prints the file's path.
The hand-written text is kept byte for byte; the copies are inserted into it.`;

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const { values } = parseArgs({
      options: {
        from: { type: "string" },
        to: { type: "string" },
        out: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
    if (values.help) {
      console.log(USAGE);
    } else {
      for (const k of ["from", "to"])
        if (values[k] !== undefined && !/^[A-Z][A-Za-z0-9]*$/.test(values[k]))
          throw new UsageError(
            `--${k} must be a resource name in PascalCase (Customer), not ${JSON.stringify(values[k])}`,
          );
      delete values.help;
      console.log(writeCopy(values));
    }
  } catch (err) {
    if (!(err instanceof UsageError) && !(err instanceof TypeError && /^ERR_PARSE_ARGS/.test(err.code ?? "")))
      throw err;
    console.error(`copy-resource: ${err.message}\n\n${USAGE}`);
    process.exitCode = 2;
  }
}
