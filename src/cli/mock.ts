import { resolve } from "node:path";
import { compileContract, warmContract } from "../contract/index.ts";
import { DEFAULT_CONFIG } from "../mock/core/app.ts";
import { FAULTS, type Fault, faultsNamed } from "../mock/faults/faults.ts";
import { buildMock } from "../mock/index.ts";
import { type Listening, listen } from "../mock/node/server.ts";
import { DEFAULT_SEED_DIR } from "../mock/seed.ts";
import { type Command, portSetting, SERVER_OPTIONS, setting, UsageError, versionsSetting } from "./options.ts";

export const mockCommand: Command = {
  summary: "run the stateful mock (customer API + OAuth 2.0 server)",
  usage: `usage: bawa mock [options]

Serves the Business Administration Web API from the contract, with state:
customers created stay created, tokens expire after 7200 s on the mock's clock.

options (flag, else environment variable, else default):
  --host <addr>       BAWA_HOST       address to listen on            (127.0.0.1)
  --port <n>          BAWA_PORT       port; 0 picks a free one        (4010)
  --versions <list>   BAWA_VERSIONS   API versions served, e.g. 1,18  (1)
  --seed <dir>        BAWA_SEED_DIR   seed data folder                (mock-data)
  --scope <value>     BAWA_SCOPE      the single OAuth scope          (${DEFAULT_CONFIG.scope})
  --data-dir <dir>    BAWA_DATA_DIR   keep customers across restarts   (in memory)
  --allowed-hosts <list> BAWA_ALLOWED_HOSTS  more Host names the portal and control
                                      calls answer to (a proxy's name); the listen
                                      address and, on loopback, localhost always work
  --quiet                             no request log
  --faults <list>                     break rules on purpose, to test a conformance suite
                                      (command line only; --list-faults names them)
  --list-faults                       print the fault switches and the rules each breaks
  -h, --help                          this text`,
  options: {
    ...SERVER_OPTIONS,
    scope: { type: "string" },
    quiet: { type: "boolean" },
    faults: { type: "string" },
    "data-dir": { type: "string" },
    "allowed-hosts": { type: "string" },
    "list-faults": { type: "boolean" },
  },
  async run(values) {
    if (values["list-faults"]) {
      for (const f of FAULTS) console.log(`${f.name.padEnd(32)} breaks ${f.breaks.join(", ")}: ${f.what}`);
      return 0;
    }
    let faults: Fault[] = [];
    if (typeof values.faults === "string") {
      try {
        faults = faultsNamed(values.faults);
      } catch (err) {
        throw new UsageError((err as Error).message);
      }
    }
    const host = setting(values, "host", "BAWA_HOST", "127.0.0.1");
    const port = portSetting(values, "port", "BAWA_PORT", 4010);
    const versions = versionsSetting(values);
    const scope = setting(values, "scope", "BAWA_SCOPE", DEFAULT_CONFIG.scope);
    if (!/^http:\/\/[^/.]+\.[^/.]+\.API\/Web\/WebApi\/\*$/.test(scope)) {
      throw new UsageError(`--scope must look like http://<vendor>.<product>.API/Web/WebApi/*, not ${scope}`);
    }
    const seedDir = resolve(setting(values, "seed", "BAWA_SEED_DIR", DEFAULT_SEED_DIR));

    const started = performance.now();
    const dataDir = setting(values, "data-dir", "BAWA_DATA_DIR", "");
    const mock = buildMock({
      seedDir,
      config: { versions, scope },
      faults,
      contract: compileContract(undefined, { eager: false }),
      ...(dataDir ? { dataDir: resolve(dataDir) } : {}),
    });
    const app = values.quiet ? mock : withLog(mock);
    let listening: Listening;
    try {
      const allowedHosts = setting(values, "allowed-hosts", "BAWA_ALLOWED_HOSTS", "")
        .split(",")
        .map((h) => h.trim())
        .filter(Boolean);
      listening = await listen(app, { host, port, allowedHosts });
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      if (e.code === "EADDRINUSE")
        throw new Error(`port ${port} on ${host} is in use; pick another with --port or BAWA_PORT`);
      if (e.code === "EADDRNOTAVAIL")
        throw new Error(`cannot listen on ${host}: no such local address (--host, BAWA_HOST)`);
      throw err;
    }
    const ms = Math.round(performance.now() - started);
    // Compile the remaining validators now, before the first client needs them; a broken contract stops the mock.
    setImmediate(() => {
      try {
        warmContract(mock.ctx.contract);
      } catch (err) {
        console.error(`bawa mock: the contract does not compile: ${(err as Error).message}`);
        process.exit(1);
      }
    });
    const base = `${listening.url}/v${versions[0]}`;
    console.log(`bawa mock listening on ${listening.url} (started in ${ms} ms)
  API:        ${base}/api/DEMO/CustomerInfoList   (versions ${versions.map((v) => `v${v}`).join(", ")}; V works too)
  authorize:  ${base}/OAuth/Authorize   token: ${base}/OAuth/Token
  apps:       ${mock.registry
    .applications()
    .map((a) => `${a.clientId} (${a.status})`)
    .join(", ")}
  control:    POST ${listening.url}/__mock/reset, GET/POST ${listening.url}/__mock/clock
  state:      ${dataDir ? `customers kept in ${resolve(dataDir)}` : "in memory (--data-dir keeps customers across restarts)"}
Ctrl-C stops it.`);
    if (faults.length > 0) {
      console.log(
        `\n!!! FAULTS ON: ${faults.map((f) => f.name).join(", ")}. This mock breaks the rules on purpose; every answer carries X-Bawa-Faults. Do not build against it.\n`,
      );
    }

    await new Promise<void>((done) => {
      const stop = () => void listening.close().then(done);
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
    });
    console.log("bawa mock stopped");
    return 0;
  },
};

function withLog(mock: ReturnType<typeof buildMock>) {
  const log = (method: string, url: string, status: number, ms: number) =>
    console.log(
      `${new Date().toISOString()} ${method} ${url.length > 100 ? `${url.slice(0, 100)}...` : url} -> ${status} (${ms.toFixed(1)} ms)`,
    );
  return {
    ...mock,
    handle: (req: Parameters<typeof mock.handle>[0]) => {
      const t = performance.now();
      const res = mock.handle(req);
      log(req.method, req.url, res.status, performance.now() - t);
      return res;
    },
    tooLarge: (req: Parameters<typeof mock.handle>[0]) => {
      const res = mock.tooLarge(req);
      log(req.method, req.url, res.status, 0);
      return res;
    },
  };
}
