// The document Prism serves: the contract, with every path under each
// version segment in both spellings (Prism ignores the base path of
// `servers`) and the examples taken from mock-data/.
import type { CompiledContract, OpenApiDocument } from "../contract/index.ts";
import { everyObject, project, type Seed } from "../mock/core/store.ts";

export function prismDocument(
  contract: CompiledContract,
  seed: Seed,
  versions: readonly string[],
  scope: string,
): OpenApiDocument {
  const doc = structuredClone(contract.doc);
  const examples: Record<string, unknown> = {};
  // Every resource's example: the first database's seed objects, as each operation's view shows them.
  for (const op of contract.resources.operations) {
    const first = Object.values(seed[op.collection.name] ?? {})[0];
    const objects = first ? everyObject(first()) : [];
    if (objects.length === 0) continue;
    const views = objects.map((o) => project(o, op.view.properties));
    examples[op.answers] ??= op.action === "list" ? views : views[0];
    examples[op.collection.schema] ??= objects[0];
  }
  Object.assign(examples, {
    TokenResponse: {
      access_token: "prism-access-token",
      token_type: "bearer",
      expires_in: 7200,
      refresh_token: "prism-refresh-token",
      scope,
    },
  });
  const paths: OpenApiDocument["paths"] = {};
  for (const [path, item] of Object.entries(doc.paths)) {
    addExamples(item, examples);
    for (const v of versions) for (const letter of ["v", "V"]) paths[`/${letter}${v}${path}`] = item;
  }
  doc.paths = paths;
  doc.servers = [{ url: "/" }];
  return doc;
}

/** Puts the seed's example on every media type whose schema is one of the named schemas. */
function addExamples(node: unknown, examples: Record<string, unknown>): void {
  if (typeof node !== "object" || node === null) return;
  for (const [key, value] of Object.entries(node)) {
    const media = value as { schema?: { $ref?: string }; example?: unknown } | null;
    if (key.includes("/") && media && typeof media === "object" && media.schema?.$ref) {
      const name = media.schema.$ref.split("/").pop()!;
      if (name in examples && examples[name] !== undefined) media.example = examples[name];
    }
    addExamples(value, examples);
  }
}
