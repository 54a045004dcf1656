// Part of `npm run build`: the code of the project's contract's validators, as Ajv makes it, kept
// under dist/validators/ (src/contract/contract.ts, VALIDATOR_CACHE_DIR) for every process that
// checks data to load instead of compiling: the mock's answers and request bodies, and the
// judge's view of the description (bawa proxy, the suite's workers). Keyed by the schemas, the
// options and the code that makes them, so an edit is compiled as before until the next build.
// A set whose file is there already is not made again (its key says it is the same); files of
// other keys go after the new ones are written, so a process starting meanwhile finds a whole
// file or none (decision 0036).
import { existsSync, readdirSync, rmSync } from "node:fs";
import { basename, join } from "node:path";
import {
  compileContract,
  PROJECT_CONTRACT_PATH,
  SchemaSet,
  specView,
  VALIDATOR_CACHE_DIR,
} from "../dist/src/contract/index.js";

const contract = compileContract(PROJECT_CONTRACT_PATH, { eager: false });
const sets = [contract.answers, contract.requests, new SchemaSet(specView(contract.doc))];
const wanted = new Set();
for (const set of sets) {
  const file = set.keptCodePath();
  wanted.add(basename(file));
  if (!existsSync(file)) set.keepCode();
}
for (const name of existsSync(VALIDATOR_CACHE_DIR) ? readdirSync(VALIDATOR_CACHE_DIR) : []) {
  if (!wanted.has(name)) rmSync(join(VALIDATOR_CACHE_DIR, name), { force: true });
}
