// The document Prism serves: the contract, with every path under each
// version segment in both spellings (Prism ignores the base path of
// `servers`) and the examples taken from mock-data/.
import type { OpenApiDocument } from "../contract/index.ts";
import { infoOf, type Seed } from "../mock/core/store.ts";

export function prismDocument(
  contract: OpenApiDocument,
  seed: Seed,
  versions: readonly string[],
  scope: string,
): OpenApiDocument {
  const doc = structuredClone(contract);
  const first = Object.values(seed)[0];
  const customers = first ? first() : [];
  const examples: Record<string, unknown> = {
    Customer: customers[0],
    CustomerInfoList: customers.map(infoOf),
    TokenResponse: {
      access_token: "prism-access-token",
      token_type: "bearer",
      expires_in: 7200,
      refresh_token: "prism-refresh-token",
      scope,
    },
  };
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
