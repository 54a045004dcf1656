// A run of several targets (CONFORMANCE_TARGETS: the fault matrix, environments side by side) has
// this file alone as its test file (playwright.config.ts). It registers every check file's checks
// once per target, each target's in a group of its own: one worker checks a target's checks in
// order, as in a run of that target alone, then takes the next target's group. A worker per
// target (a project each) cost about 3 CPU-s to start, most of the fault matrix's CPU.
import { readdirSync } from "node:fs";
import { basename, dirname, extname } from "node:path";
import { fileURLToPath } from "node:url";
import { listedTargets, targetTitle } from "../lib/config.ts";
import { TARGET_ANNOTATION } from "../lib/requirements.ts";
import { registeredChecks, test } from "../lib/test.ts";

const self = fileURLToPath(import.meta.url);
// Every check file of this folder, in the order a run of one target lists them; each hands its
// registration to checks() instead of registering at once (CONFORMANCE_TARGETS is set).
for (const file of readdirSync(dirname(self))
  .filter((f) => f.endsWith(`.spec${extname(self)}`) && f !== basename(self))
  .sort()) {
  const before = registeredChecks().length;
  await import(`./${file}`);
  // A file that registers at once would put its checks outside every target's group, where no
  // target's selection finds them: they would go unchecked without a word.
  if (registeredChecks().length === before)
    throw new Error(`${file} registers no checks through checks(() => ...) (conformance/lib/test.ts)`);
}

// Targets' groups run side by side, each on one worker; inside a group, the checks in order.
test.describe.configure({ mode: "parallel" });
for (const t of listedTargets() ?? []) {
  test.describe(targetTitle(t.name), { annotation: { type: TARGET_ANNOTATION, description: t.name } }, () => {
    test.describe.configure({ mode: "default" });
    for (const register of registeredChecks()) register();
  });
}
