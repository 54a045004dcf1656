// Part of `npm run build`: the contract as JSON beside the compiled code, so
// the compiled mock and suite skip parsing YAML at every start. The YAML stays
// the one hand-written source; this copy is rebuilt with dist/.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const out = resolve(root, "dist/openapi/openapi.json");
mkdirSync(dirname(out), { recursive: true });
const doc = parse(readFileSync(resolve(root, "openapi/openapi.yaml"), "utf8"), { maxAliasCount: 1000 });
writeFileSync(out, JSON.stringify(doc));
