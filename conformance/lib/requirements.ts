// The requirements list (conformance/requirements.yaml), read once.
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import type { Kind } from "./config.ts";

export interface Requirement {
  id: string;
  kind: Kind;
  section: string;
  text: string;
}

export const REQUIREMENTS_PATH = resolve(dirname(fileURLToPath(import.meta.url)), "../requirements.yaml");

let cache: Map<string, Requirement> | undefined;

export function requirements(): Map<string, Requirement> {
  if (!cache) {
    const doc = parse(readFileSync(REQUIREMENTS_PATH, "utf8")) as { requirements: Requirement[] };
    cache = new Map(doc.requirements.map((r) => [r.id, r]));
    if (cache.size !== doc.requirements.length)
      throw new Error(`${REQUIREMENTS_PATH}: a requirement id is listed twice`);
  }
  return cache;
}

/** Tag of a requirement id on a check. */
export const requirementTag = (id: string) => `@${id}`;
/** Tag of a check's kind, the one the kind filter selects on. */
export const kindTag = (kind: Kind) => `@kind:${kind}`;
export const kindGrep = (kinds: Iterable<Kind>) => new RegExp(`${[...kinds].map((k) => kindTag(k)).join("|")}(\\s|$)`);
