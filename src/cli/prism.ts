import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { stringify } from "yaml";
import { compileContract } from "../contract/index.ts";
import { DEFAULT_CONFIG } from "../mock/core/app.ts";
import { DEFAULT_SEED_DIR, loadSeed } from "../mock/seed.ts";
import { prismDocument } from "../prism/document.ts";
import { type Command, portSetting, SERVER_OPTIONS, setting, versionsSetting } from "./options.ts";

export const prismCommand: Command = {
  summary: "run Prism's stateless contract mock of the same document",
  usage: `usage: bawa prism [options]

Runs Stoplight Prism on the contract, with the examples from mock-data/ and
every path under /v<version> and /V<version>. Stateless: it answers from
examples, accepts any bearer token and forgets every POST. Use it to see the
contract's shapes; use \`bawa mock\` to build against real behaviour.

options (flag, else environment variable, else default):
  --host <addr>       BAWA_PRISM_HOST     address to listen on            (127.0.0.1)
  --port <n>          BAWA_PRISM_PORT     port                            (4011)
  --versions <list>   BAWA_VERSIONS       API versions served, e.g. 1,18  (1)
  --seed <dir>        BAWA_SEED_DIR       seed data folder for examples   (mock-data)
  --dynamic                               generate answers from the schemas instead of examples
  -h, --help                              this text`,
  options: {
    ...SERVER_OPTIONS,
    dynamic: { type: "boolean" },
  },
  async run(values) {
    const host = setting(values, "host", "BAWA_PRISM_HOST", "127.0.0.1");
    const port = portSetting(values, "port", "BAWA_PRISM_PORT", 4011);
    const versions = versionsSetting(values);
    const contract = compileContract();
    const seed = loadSeed(contract, resolve(setting(values, "seed", "BAWA_SEED_DIR", DEFAULT_SEED_DIR)));
    const dir = mkdtempSync(join(tmpdir(), "bawa-prism-"));
    const file = join(dir, "openapi.prism.yaml");
    writeFileSync(file, stringify(prismDocument(contract.doc, seed.customers, versions, DEFAULT_CONFIG.scope), { aliasDuplicateObjects: false }));

    const prism = createRequire(import.meta.url).resolve("@stoplight/prism-cli/dist/index.js");
    const args = [prism, "mock", file, "--host", host, "--port", String(port), "--errors", "false"];
    if (values.dynamic) args.push("--dynamic");
    console.log(`bawa prism: serving ${versions.map((v) => `/v${v}, /V${v}`).join(", ")} on http://${host}:${port} (Prism, stateless)`);
    const child = spawn(process.execPath, args, { stdio: "inherit" });
    const stop = () => child.kill("SIGTERM");
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
    const code = await new Promise<number>((done) => child.on("exit", (c) => done(c ?? 1)));
    rmSync(dir, { recursive: true, force: true });
    return code === 0 || code === 143 ? 0 : code;
  },
};
