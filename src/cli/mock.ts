import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { ContractError, detachedText, warmContract, warmSteps } from "../contract/index.ts";
import { DEFAULT_CONFIG } from "../mock/core/app.ts";
import { servedFrom } from "../mock/core/examples.ts";
import { checkRules, DEFAULT_RULES, RULE_NAMES, type Rules } from "../mock/core/rules.ts";
import { FAULTS, SWITCHES, switchesNamed, TOLERATED } from "../mock/faults/index.ts";
import { buildMock } from "../mock/index.ts";
import { COMPACT_AT_BYTES } from "../mock/node/data-dir.ts";
import { type Listening, listen } from "../mock/node/listen.ts";
import { keepHeapSettled, settleHeap } from "../mock/node/memory.ts";
import { DEFAULT_SEED_DIR } from "../mock/seed.ts";
import {
  CONTROL_OPTIONS,
  type Command,
  contractOf,
  contractPath,
  controlSettings,
  listenError,
  portSetting,
  SERVER_OPTIONS,
  setting,
  UsageError,
  unusableContract,
  versionsSetting,
} from "./options.ts";
import { printRequests } from "./request-lines.ts";

export const mockCommand: Command = {
  summary: "run the stateful mock (customer API + OAuth 2.0 server)",
  usage: `usage: bawa mock [options]

Serves the Business Administration Web API from the contract, with state:
every resource the contract declares is served by its result kind (objects
created stay created), tokens expire after 7200 s on the mock's clock.
The dashboard at /__mock/ switches scenarios while it runs.

options (flag, else environment variable, else default):
  --host <addr>       BAWA_HOST       address to listen on            (127.0.0.1)
  --port <n>          BAWA_PORT       port; 0 picks a free one        (4010)
  --versions <list>   BAWA_VERSIONS   API versions served, e.g. 1,18  (1)
  --seed <dir>        BAWA_SEED_DIR   seed data folder                (mock-data)
  --contract <file>   BAWA_CONTRACT   the OpenAPI document to serve   (openapi/openapi.yaml)
                                      (a team's own, bigger one of this family: every
                                      resource in it is served; README "Adding a resource")
  --scope <value>     BAWA_SCOPE      the single OAuth scope          (${DEFAULT_CONFIG.scope})
  --data-dir <dir>    BAWA_DATA_DIR   keep objects, apps, tokens across restarts (in memory)
  --compact-at <bytes> BAWA_COMPACT_AT  journal size that folds it into a new snapshot
                                      (${COMPACT_AT_BYTES}; the snapshot's size if larger)
  --allowed-hosts <list> BAWA_ALLOWED_HOSTS  more Host names the portal and control
                                      calls answer to (a proxy's name); the listen
                                      address and, on loopback, localhost always work
  --control-token <t> BAWA_CONTROL_TOKEN  the token the control calls, the dashboard and the
                                      portal require (at least 16 of A-Z a-z 0-9 . _ ~ -); on
                                      a non-loopback address one is made up and printed
  --cors-origins <list|*> BAWA_CORS_ORIGINS  origins a browser page may call from (* opens
                                      the API and token endpoint, not the control calls)
                                      (default: those of the active applications' redirect URIs)
  --json-names <pascal|camel> BAWA_JSON_NAMES  property names of JSON answers   (pascal)
  --rules <list>                      rules that differ from the start, e.g.
                                      accessTokenSeconds=60,rotateRefreshTokens=true
                                      (--list-faults lists every rule)
  --quiet                             no request log
  --faults <list>                     switches on from the start: faults (break rules on
                                      purpose, to test a conformance suite) and behaviours
                                      of the real service family (command line only)
  --list-faults                       print the switches, what each does, and the rules
  -h, --help                          this text`,
  options: {
    ...SERVER_OPTIONS,
    scope: { type: "string" },
    quiet: { type: "boolean" },
    faults: { type: "string" },
    rules: { type: "string" },
    "data-dir": { type: "string" },
    "compact-at": { type: "string" },
    ...CONTROL_OPTIONS,
    "json-names": { type: "string" },
    "list-faults": { type: "boolean" },
  },
  async run(values) {
    if (values["list-faults"]) {
      console.log(listSwitches());
      return 0;
    }
    let switches: string[] = [];
    try {
      if (typeof values.faults === "string") switches = switchesNamed(values.faults).map((s) => s.name);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    const rules = typeof values.rules === "string" ? parseRules(values.rules) : {};
    const jsonNames = setting(values, "json-names", "BAWA_JSON_NAMES", "pascal");
    if (jsonNames !== "pascal" && jsonNames !== "camel") {
      throw new UsageError(`--json-names (BAWA_JSON_NAMES) is pascal or camel, not ${jsonNames}`);
    }
    if (jsonNames === "camel") rules.jsonNames = "camel";
    const host = setting(values, "host", "BAWA_HOST", "127.0.0.1");
    // A shared mock must not be switched into a fault by a stray request: off loopback, a token is required.
    const { controlToken, allowedHosts, corsOrigins } = controlSettings(values, host);
    const port = portSetting(values, "port", "BAWA_PORT", 4010);
    const versions = versionsSetting(values);
    const scope = setting(values, "scope", "BAWA_SCOPE", DEFAULT_CONFIG.scope);
    if (!/^http:\/\/[^/.]+\.[^/.]+\.API\/Web\/WebApi\/\*$/.test(scope)) {
      throw new UsageError(`--scope must look like http://<vendor>.<product>.API/Web/WebApi/*, not ${scope}`);
    }
    const givenSeed = setting(values, "seed", "BAWA_SEED_DIR", "");
    const seedDir = resolve(givenSeed || DEFAULT_SEED_DIR);
    if (givenSeed && !existsSync(seedDir))
      throw new UsageError(
        `--seed (BAWA_SEED_DIR): there is no folder ${seedDir}; give a folder of seed data shaped as mock-data/ is (a folder or file per resource)`,
      );
    const contract = await contractOf(values, { eager: false });
    // Validators the build kept were compiled from this very contract, and are warmed after the
    // port opens. A contract of the team's own is compiled now: a schema Ajv refuses (a required
    // property it does not declare) must stop the start with exit 2, not a mock that said it
    // listens and then went away.
    if (!contract.answers.kept || !contract.requests.kept) {
      try {
        warmContract(contract);
      } catch (err) {
        throw unusableContract(contractPath(values), err);
      }
    }

    const dataDir = setting(values, "data-dir", "BAWA_DATA_DIR", "");
    const compactAt = setting(values, "compact-at", "BAWA_COMPACT_AT", String(COMPACT_AT_BYTES));
    if (!/^[1-9][0-9]{0,15}$/.test(compactAt))
      throw new UsageError(`--compact-at must be a number of bytes above 0, not ${JSON.stringify(compactAt)}`);
    const compactAtBytes = Number(compactAt);
    const mock = tryContract(contractPath(values), () =>
      buildMock({
        seedDir,
        config: { versions, scope, corsOrigins, ...(controlToken ? { controlToken } : {}) },
        switches,
        rules,
        contract,
        // The project's own seed may hold resources another contract lacks: those are left out, saying so.
        seedOptions: {
          strict: givenSeed !== "",
          warn: (m) => console.error(`bawa mock: ${m}`),
          // A large seed file's bytes, let go once every object was read, collected after the answer.
          allRead: () => setImmediate(settleHeap),
        },
        ...(dataDir ? { dataDir: resolve(dataDir), dataDirOptions: { compactAtBytes } } : {}),
      }),
    );
    const printed = values.quiet ? undefined : printRequests(mock.log, "bawa mock");
    let listening: Listening;
    try {
      listening = await listen(mock, { host, port, allowedHosts });
    } catch (err) {
      throw listenError(err, host, port);
    }
    // From the process's start, as the bench's start-up figure is (Node.js and the modules loading
    // included): measured from here, the banner said 123 ms where the bench read 0.47 s.
    const ms = Math.round(performance.now());
    // Compile the remaining validators now, before most clients need them, one per turn of the
    // event loop so a request arriving meanwhile waits for one compilation, not all of them.
    // A broken contract stops the mock.
    const steps = warmSteps(mock.ctx.contract);
    const warm = () => {
      try {
        steps.shift()?.();
      } catch (err) {
        console.error(`bawa mock: ${unusableContract(contractPath(values), err).message}`);
        process.exit(2);
      }
      if (steps.length) setImmediate(warm);
    };
    setImmediate(warm);
    // A large heap is held close to what it holds (decision 0014).
    keepHeapSettled();
    const base = `${listening.url}/v${versions[0]}`;
    const lists = contract.resources.operations.filter((o) => o.action === "list");
    const firstList = lists.find((o) => o.databaseParam !== undefined) ?? lists[0];
    const listPath = firstList?.path.replace(`{${firstList.databaseParam}}`, "DEMO") ?? "/api/...";
    const dashboard = `${listening.url}/__mock/${controlToken ? `?token=${controlToken}` : ""}`;
    console.log(`bawa mock listening on ${listening.url} (started in ${ms} ms)
  API:        ${base}${listPath}   (versions ${versions.map((v) => `v${v}`).join(", ")}; V works too)
  resources:  ${[...contract.resources.resources].map(([name, r]) => `${name} (${r.kind})`).join(", ")}${contract.resources.unsupported.length ? `\n  stateless:  ${contract.resources.unsupported.map((u) => `${u.method} ${u.path} answered from its ${servedFrom(contract.doc, u)} (${u.reason})`).join("; ")}` : ""}${contract.resources.detached.map((d) => `\n  detached:   ${detachedText(d)}`).join("")}
  authorize:  ${base}/OAuth/Authorize   token: ${base}/OAuth/Token
  apps:       ${mock.registry
    .applications()
    .map((a) => `${a.clientId} (${a.status})`)
    .join(", ")}
  dashboard:  ${dashboard}
  control:    POST ${listening.url}/__mock/reset, GET/POST ${listening.url}/__mock/clock (JSON)${controlToken ? `\n  control token: ${controlToken} (header X-Bawa-Control-Token)` : ""}
  state:      ${dataDir ? `objects, applications and tokens kept in ${resolve(dataDir)}` : "in memory (--data-dir keeps them across restarts)"}
  commands:   npx bawa refresh-token, npx bawa activate find this mock at ${listening.url} with ${listening.url === "http://127.0.0.1:4010" ? "no setting" : `BAWA_MOCK_URL=${listening.url}${process.env.BAWA_PORT ? " (or the same BAWA_PORT)" : ""}`}
Ctrl-C stops it.`);
    const scenario = mock.scenarios.summary();
    if (scenario) {
      console.log(
        `\n!!! SCENARIOS ON: ${scenario}. This mock departs from the contract on purpose; every answer carries X-Bawa-Faults.${FAULTS.some((f) => switches.includes(f.name)) ? " Do not build against it." : ""}\n`,
      );
    }
    await new Promise<void>((done) => {
      // Every answered request's line is written before the process says it stopped.
      const stop = () => void listening.close().then(() => printed?.flush().then(done) ?? done());
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
    });
    console.log("bawa mock stopped");
    return 0;
  },
};

/** Runs what compiles parts of the contract (the seed's validators): a schema that does not is a usage error. */
function tryContract<T>(path: string, build: () => T): T {
  try {
    return build();
  } catch (err) {
    if (err instanceof ContractError) throw unusableContract(path, err);
    throw err;
  }
}

/** `name=value,name=value` into rules; wrong names or values are a usage error that names them. */
function parseRules(text: string): Partial<Rules> {
  // A map, not an object: a name such as __proto__ is then a name like any other, and refused as one.
  const input = new Map<string, unknown>();
  for (const pair of text.split(",").filter((p) => p.trim())) {
    const [name = "", value = ""] = pair.split("=").map((s) => s.trim());
    if (!value && !pair.includes("=")) throw new UsageError(`--rules: ${name} needs a value, as in ${name}=true`);
    const want = Object.hasOwn(DEFAULT_RULES, name) ? DEFAULT_RULES[name as keyof Rules] : undefined;
    const parsed =
      typeof want === "boolean"
        ? value === "true"
          ? true
          : value === "false"
            ? false
            : value
        : typeof want === "number"
          ? Number(value)
          : value;
    input.set(name, parsed);
  }
  const checked = checkRules(Object.fromEntries(input));
  if (!checked.ok) throw new UsageError(`--rules: ${checked.message}`);
  return checked.rules;
}

function listSwitches(): string {
  const line = (name: string, text: string) => `  ${name.padEnd(34)} ${text}`;
  return [
    "Faults (each breaks rules of the description or of OAuth; the suite must report what it breaks):",
    ...FAULTS.map((f) => line(f.name, `breaks ${f.breaks?.join(", ")}: ${f.what}`)),
    "",
    "Behaviours of the real service family (the suite must tolerate them, or report one finding):",
    ...TOLERATED.map((t) => line(t.name, t.what)),
    "",
    `Rules (--rules name=value,...; defaults shown):`,
    ...RULE_NAMES.map((r) => line(r, String(DEFAULT_RULES[r]))),
    "",
    `${SWITCHES.length} switches. Switch them while the mock runs at /__mock/ (the dashboard) or POST /__mock/scenarios/<name>.`,
  ].join("\n");
}
