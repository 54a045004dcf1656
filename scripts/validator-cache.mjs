// Part of `npm run build`: the code of the project's contract's validators, as Ajv makes it, kept
// under dist/validators/ (src/contract/contract.ts, VALIDATOR_CACHE_DIR) for every process that
// checks data to load instead of compiling: the mock's answers and request bodies, and the
// judge's view of the description (bawa proxy, the suite's workers). Keyed by the schemas, the
// options and the code that makes them, so an edit is compiled as before until the next build.
import { rmSync } from "node:fs";
import {
  compileContract,
  PROJECT_CONTRACT_PATH,
  SchemaSet,
  specView,
  VALIDATOR_CACHE_DIR,
} from "../dist/src/contract/index.js";

rmSync(VALIDATOR_CACHE_DIR, { recursive: true, force: true });
const contract = compileContract(PROJECT_CONTRACT_PATH, { eager: false });
for (const set of [contract.answers, contract.requests, new SchemaSet(specView(contract.doc))]) set.keepCode();
