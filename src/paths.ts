import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The folder that holds package.json, openapi/ and mock-data/. */
export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
