import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { stringify } from "yaml";
import { compileContract } from "../contract/index.ts";
import { DEFAULT_CONFIG } from "../mock/core/app.ts";
import { DEFAULT_SEED_DIR, loadSeed } from "../mock/seed.ts";
import { prismDocument } from "../prism/document.ts";
import { type Command, contractPath, portSetting, SERVER_OPTIONS, setting, versionsSetting } from "./options.ts";

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
  --contract <file>   BAWA_CONTRACT       the OpenAPI document to serve   (openapi/openapi.yaml)
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
    const prism = startPrism({
      host,
      port,
      versions,
      seedDir: resolve(setting(values, "seed", "BAWA_SEED_DIR", DEFAULT_SEED_DIR)),
      contract: contractPath(values),
      dynamic: values.dynamic === true,
      output: "inherit",
    });
    console.log(
      `bawa prism: serving ${versions.map((v) => `/v${v}, /V${v}`).join(", ")} on ${prism.url} (Prism, stateless)`,
    );
    const stop = () => prism.child.kill("SIGTERM");
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
    const code = await prism.exited;
    return code === 0 || code === 143 ? 0 : code;
  },
};

export interface RunningPrism {
  url: string;
  child: ChildProcess;
  /** Resolves, once Prism says it listens, to nothing; rejects with its output when it exits first. */
  ready: Promise<void>;
  exited: Promise<number>;
}

/** Starts Prism on the contract with versioned paths and the seed's examples. */
export function startPrism(opts: {
  host: string;
  port: number;
  versions: readonly string[];
  seedDir?: string;
  /** The OpenAPI document (default: the project's openapi/openapi.yaml). */
  contract?: string;
  dynamic?: boolean;
  output?: "inherit" | "pipe" | "ignore";
  /** Prism's proxy mode in front of this URL (the bench's), instead of its mock. */
  upstream?: string;
}): RunningPrism {
  const contract = compileContract(opts.contract);
  const seed = loadSeed(contract, opts.seedDir ?? DEFAULT_SEED_DIR, { strict: false });
  const dir = mkdtempSync(join(tmpdir(), "bawa-prism-"));
  const file = join(dir, "openapi.prism.yaml");
  writeFileSync(
    file,
    stringify(prismDocument(contract, seed.objects, opts.versions, DEFAULT_CONFIG.scope), {
      aliasDuplicateObjects: false,
    }),
  );
  let prism: string;
  try {
    prism = createRequire(import.meta.url).resolve("@stoplight/prism-cli/dist/index.js");
  } catch {
    // An optional peer dependency: most users of the package never start Prism.
    throw new Error(
      "Prism is not installed: it is an optional peer dependency of bawa. Install it beside bawa: npm install @stoplight/prism-cli@5.14.2",
    );
  }
  const mode = opts.upstream ? ["proxy", file, opts.upstream] : ["mock", file];
  const args = [prism, ...mode, "--host", opts.host, "--port", String(opts.port), "--errors", "false"];
  if (opts.dynamic) args.push("--dynamic");
  const child = spawn(process.execPath, args, {
    stdio: opts.output === "pipe" ? ["ignore", "pipe", "pipe"] : (opts.output ?? "inherit"),
  });
  const exited = new Promise<number>((done) =>
    child.on("exit", (c) => {
      rmSync(dir, { recursive: true, force: true });
      done(c ?? 1);
    }),
  );
  let output = "";
  const ready = new Promise<void>((done, fail) => {
    if (opts.output !== "pipe") return done();
    const onData = (d: Buffer) => {
      output += d;
      if (/Prism is listening/.test(output)) done();
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    void exited.then((c) => fail(new Error(`Prism exited with ${c} before listening: ${output.slice(-500)}`)));
  });
  return { url: `http://${opts.host}:${opts.port}`, child, ready, exited };
}
