// The requirement ids of conformance/requirements.yaml as a TypeScript module:
// a union type every rule, violation, fault switch and check names, so a typo
// in an id is a type error instead of a switch that silently catches nothing.
// `npm run generate` writes it beside the contract's types; `npm run
// check:types` fails while it is stale.
import { readFile } from "node:fs/promises";
import { relative, resolve } from "node:path";
import { parse } from "yaml";
import { PROJECT_ROOT } from "../src/paths.ts";

export const DEFAULT_REQUIREMENTS = resolve(PROJECT_ROOT, "conformance/requirements.yaml");
export const DEFAULT_REQUIREMENT_IDS = resolve(PROJECT_ROOT, "src/rules/generated/requirements.ts");

interface Listed {
  id: string;
  kind: string;
  section: string;
  text: string;
}

/** Renders the module of the requirement ids listed in `yamlPath`. */
export async function generateRequirementIds(yamlPath: string): Promise<string> {
  const doc = parse(await readFile(yamlPath, "utf8")) as { requirements?: Listed[] };
  const listed = doc.requirements ?? [];
  for (const r of listed) {
    if (!/^[A-Z][A-Z0-9-]*$/.test(r.id ?? "")) throw new Error(`${yamlPath}: ${JSON.stringify(r.id)} is not an id`);
    if (!["spec", "oauth", "assumption"].includes(r.kind)) throw new Error(`${yamlPath}: ${r.id} has kind ${r.kind}`);
  }
  const lines = listed.flatMap((r) => [
    `  ${JSON.stringify(r.id)}: {`,
    `    kind: ${JSON.stringify(r.kind)},`,
    `    section: ${JSON.stringify(r.section)},`,
    `    text: ${JSON.stringify(r.text)},`,
    "  },",
  ]);
  return [
    `// This file is generated from ${relative(PROJECT_ROOT, yamlPath).replaceAll("\\", "/")} by \`npm run generate\`.`,
    "// Do not edit it by hand: change the requirements and regenerate. `npm test` fails when it is stale.",
    "",
    "/** Every requirement of the suite: its kind (spec, oauth or assumption), section and text. */",
    "export const REQUIREMENTS = {",
    ...lines,
    "} as const;",
    "",
    "/** The id of a requirement of conformance/requirements.yaml. */",
    "export type RequirementId = keyof typeof REQUIREMENTS;",
    "",
    "/** The kind of each requirement. */",
    'export const REQUIREMENT_KINDS: Readonly<Record<RequirementId, "spec" | "oauth" | "assumption">> =',
    "  Object.fromEntries(Object.entries(REQUIREMENTS).map(([id, r]) => [id, r.kind])) as never;",
    "",
  ].join("\n");
}
