#!/usr/bin/env -S npx tsx
// Generates the TypeScript types of the contract, or (--check) verifies that
// the committed types are what the contract generates today.
import { readFile, writeFile } from "node:fs/promises";
import { relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import openapiTS, { astToString } from "openapi-typescript";
import { PROJECT_ROOT } from "../src/paths.ts";
import { DEFAULT_REQUIREMENT_IDS, DEFAULT_REQUIREMENTS, generateRequirementIds } from "./generate-requirements.ts";

export const DEFAULT_SPEC = resolve(PROJECT_ROOT, "openapi/openapi.yaml");
export const DEFAULT_TYPES = resolve(PROJECT_ROOT, "src/contract/generated/openapi.ts");

const header = (specPath: string) =>
  [
    "// This file is generated from " +
      relative(PROJECT_ROOT, specPath).replaceAll("\\", "/") +
      " by `npm run generate`.",
    "// Do not edit it by hand: change the contract and regenerate. `npm test` fails when it is stale.",
    "",
    "",
  ].join("\n");

/** Renders the types module for the OpenAPI document at `specPath`. */
export async function generateTypes(specPath: string): Promise<string> {
  const ast = await openapiTS(pathToFileURL(specPath), {
    alphabetize: false,
    immutable: false,
    defaultNonNullable: false,
  });
  return header(specPath) + astToString(ast);
}

export type DriftResult = { upToDate: true } | { upToDate: false; reason: string };

/** Compares the types file in the working tree with what the contract generates now. */
export async function checkTypes(specPath: string, typesPath: string): Promise<DriftResult> {
  return compare(await generateTypes(specPath), typesPath);
}

async function compare(want: string, typesPath: string): Promise<DriftResult> {
  let have: string;
  try {
    have = await readFile(typesPath, "utf8");
  } catch {
    return { upToDate: false, reason: `${typesPath} does not exist` };
  }
  if (have === want) return { upToDate: true };
  const haveLines = have.split("\n");
  const wantLines = want.split("\n");
  const line = wantLines.findIndex((l, i) => l !== haveLines[i]);
  return {
    upToDate: false,
    reason: `first difference at line ${line + 1}: the file has ${JSON.stringify(haveLines[line] ?? "<end of file>")}, its source gives ${JSON.stringify(wantLines[line] ?? "<end of file>")}`,
  };
}

const USAGE = `usage: generate-types [--check] [--spec openapi.yaml] [--out types.ts]
  writes the contract's TypeScript types and, without --out, the requirement ids of
  conformance/requirements.yaml (src/rules/generated/requirements.ts); --check only
  verifies them (exit 1 when stale)
exit codes: 0 done, 1 stale types or generation failed, 2 wrong command line`;

/** What the command prints, and where: the process's streams, or a test's. */
export interface Io {
  out(line: string): void;
  err(line: string): void;
}
const PROCESS_IO: Io = { out: (l) => console.log(l), err: (l) => console.error(l) };

type Options = { check: boolean; spec: string; out: string; requirements: boolean };

/** The command line's options, or the exit code to end with (0 for --help, 2 for a wrong one). */
function options(argv: string[], io: Io): Options | number {
  try {
    const { values } = parseArgs({
      args: argv,
      options: {
        check: { type: "boolean", default: false },
        spec: { type: "string", default: DEFAULT_SPEC },
        out: { type: "string", default: DEFAULT_TYPES },
        help: { type: "boolean", short: "h" },
      },
    });
    if (values.help) {
      io.out(USAGE);
      return 0;
    }
    // Another --out is a contract of someone's own: the project's requirement ids are left alone.
    const requirements = resolve(values.out) === DEFAULT_TYPES;
    return { check: values.check, spec: resolve(values.spec), out: resolve(values.out), requirements };
  } catch (err) {
    io.err(`generate-types: ${(err as Error).message}\n${USAGE}`);
    return 2;
  }
}

/**
 * The command: writes (or with --check compares) the types and the requirement ids; its exit
 * code. The tests run it in process; the script's own process exits with what it returns.
 */
export async function main(argv: string[], io: Io = PROCESS_IO): Promise<number> {
  const opts = options(argv, io);
  if (typeof opts === "number") return opts;
  const outputs: Array<{ what: string; source: string; out: string; make: () => Promise<string> }> = [
    { what: "types", source: opts.spec, out: opts.out, make: () => generateTypes(opts.spec) },
    ...(opts.requirements
      ? [
          {
            what: "requirement ids",
            source: DEFAULT_REQUIREMENTS,
            out: DEFAULT_REQUIREMENT_IDS,
            make: () => generateRequirementIds(DEFAULT_REQUIREMENTS),
          },
        ]
      : []),
  ];
  let stale = false;
  for (const { what, source, out, make } of outputs) {
    try {
      if (opts.check) {
        const result = await compare(await make(), out);
        if (!result.upToDate) {
          io.err(
            `generate-types: ${relative(process.cwd(), out)} in the working tree is not up to date with ${relative(process.cwd(), source)}.`,
          );
          io.err(`  ${result.reason}`);
          io.err("  Run `npm run generate` and commit the result.");
          stale = true;
        } else io.out(`generate-types: ${relative(process.cwd(), out)} is up to date.`);
      } else {
        await writeFile(out, await make());
        io.out(`generate-types: wrote ${relative(process.cwd(), out)}`);
      }
    } catch (err) {
      // A source that does not generate is a failed run (1), not a wrong command line (2).
      io.err(`generate-types: could not generate ${what} from ${source}: ${(err as Error).message}`);
      return 1;
    }
  }
  return stale ? 1 : 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  process.exitCode = await main(process.argv.slice(2));
}
