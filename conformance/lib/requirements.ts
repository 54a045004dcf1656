// The requirements list (conformance/requirements.yaml), read once.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { PROJECT_ROOT } from "../../src/paths.ts";
import { parseYaml } from "../../src/yaml-file.ts";
import type { Kind } from "./config.ts";

export interface Requirement {
  id: string;
  kind: Kind;
  /** The check file (conformance/checks/) that holds its checks, or where a missing check goes. */
  file: string;
  section: string;
  text: string;
}

/** The requirements list; CONFORMANCE_REQUIREMENTS names another (the suite's own tests use that). */
export const REQUIREMENTS_PATH =
  process.env.CONFORMANCE_REQUIREMENTS ?? resolve(PROJECT_ROOT, "conformance/requirements.yaml");

let cache: Map<string, Requirement> | undefined;

export function requirements(): Map<string, Requirement> {
  if (!cache) {
    const doc = parseYaml(readFileSync(REQUIREMENTS_PATH, "utf8")) as { requirements: Requirement[] };
    cache = new Map(doc.requirements.map((r) => [r.id, r]));
    if (cache.size !== doc.requirements.length)
      throw new Error(`${REQUIREMENTS_PATH}: a requirement id is listed twice`);
    for (const r of cache.values()) {
      if (!/^[a-z0-9-]+\.spec\.ts$/.test(r.file ?? "")) {
        throw new Error(
          `${REQUIREMENTS_PATH}: ${r.id} needs file: <the check file in conformance/checks/ that covers it>`,
        );
      }
    }
  }
  return cache;
}

/** The annotation that names a check's subject (a resource of the contract): the matrix has a row per subject. */
export const SUBJECT_ANNOTATION = "subject";
/** How a check begins its skip reason when the contract has nothing it applies to (a generic per-resource rule). */
export const NOT_APPLICABLE = "not applicable: ";
/**
 * How a check begins its skip reason when what it checks rests on an assumption (a resource whose
 * path carries `x-assumption`) and the run does not check assumptions: the row is not selected.
 */
export const NOT_SELECTED = "not selected: ";
/** How a check skipped because of another requirement's finding begins its reason (findings.ts). */
export const NOT_CHECKED = "not checked because of ";
/** How a check begins its skip reason when the target can not show the rule, or a setting is missing. */
export const NOT_VERIFIED = "not verified: ";
/**
 * Ends the skip reason of a check that could not obtain an access token (a client or a user
 * missing): a run with such skips fails, since it verified only what needs no token.
 */
export const WITHOUT_A_TOKEN = "without them no access token can be obtained";
/**
 * How the skip reason of a check begins when the target stopped answering before it or while it
 * ran (http.ts targetDown): the row is not checked, and the run fails once, on the target.
 */
export const TARGET_DOWN = `${NOT_CHECKED}the target, which stopped answering`;
/** The skip reason of a check that writes, in a read-only run. */
export const READ_ONLY = "not run (read-only): this check creates, changes or deletes customers";
/** The skip reason of a check that needs a browser, in a run that opens none (CONFORMANCE_BROWSER=0). */
export const NO_BROWSER = `${NOT_VERIFIED}CONFORMANCE_BROWSER=0: this check drives the screens in a browser, and the run opens none`;
/** Tag of a check that creates, changes or deletes customer data (left out of read-only runs). */
export const WRITES_TAG = "@writes";

/**
 * Annotation of every check of one target in a run of several (conformance/checks/every-target.spec.ts
 * registers the checks once per target): the target's name.
 */
export const TARGET_ANNOTATION = "target";

/** The target a check's annotations name (a run of several targets), if any. */
export const annotatedTarget = (annotations: ReadonlyArray<{ type: string; description?: string }>) =>
  annotations.find((a) => a.type === TARGET_ANNOTATION)?.description;

/** Tag of a requirement id on a check. */
export const requirementTag = (id: string) => `@${id}`;
/** Tag of a check's kind, the one the kind filter selects on. */
export const kindTag = (kind: Kind) => `@kind:${kind}`;
