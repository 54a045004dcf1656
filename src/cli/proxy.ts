import { resolve } from "node:path";
import { PER_CLIENT, POOL_SIZE } from "../proxy/fair.ts";
import { startProxy } from "../proxy/node.ts";
import { RecordingError } from "../proxy/record.ts";
import {
  CONTROL_OPTIONS,
  type Command,
  contractOf,
  controlSettings,
  listenError,
  portSetting,
  setting,
  UsageError,
} from "./options.ts";
import { printRequests } from "./request-lines.ts";

export const proxyCommand: Command = {
  summary: "put bawa between a client and a real environment: judge every answer, record what it saw",
  usage: `usage: bawa proxy --target <base URL> [options]

Forwards every request (the API under the version segment, the OAuth endpoints,
the screens) to the target and returns its answer unchanged, so a browser app
or a client works through it as against the target. Each answer is judged
against the description (the contract with our assumptions loosened) and the
rules an exchange can show, with the conformance suite's requirement ids; an
answer that breaks one carries X-Bawa-Violations: <count>, and the request log
(GET /__mock/requests) and the dashboard (/__mock/) show what it broke; what it
shows and writes never holds a token, code or password of a query or fragment.
A bawa mock's control calls (/__mock/...) and portal (/portal) behind it pass
only the mock's own guard, applied at the proxy's address: its Host names, its
control token. Each client address has ${PER_CLIENT} of the proxy's ${POOL_SIZE} upstream sockets.

options (flag, else environment variable, else default):
  --target <url>      BAWA_PROXY_TARGET  the environment's base URL, without /v<version>
  --host <addr>       BAWA_HOST       address to listen on            (127.0.0.1)
  --port <n>          BAWA_PORT       port; 0 picks a free one        (4013)
  --contract <file>   BAWA_CONTRACT   the OpenAPI document to judge by (openapi/openapi.yaml)
  --record <dir>                      write what the answers showed as seed data for
                                      \`bawa mock --seed <dir>\` (mock-data/'s layout);
                                      never tokens, codes, secrets, passwords or cookies
  --report <dir>                      write violations.md and violations.json, grouped
                                      by requirement, and coverage.json (what of the
                                      contract the traffic exercised) when the proxy stops
  --allowed-hosts <list> BAWA_ALLOWED_HOSTS  more Host names its own pages answer to
  --control-token <t> BAWA_CONTROL_TOKEN  the token its dashboard, GET /__mock/requests and
                                      a mock's control calls and portal through it require;
                                      on a non-loopback address one is made up
  --cors-origins <list> BAWA_CORS_ORIGINS  origins a page may read its request log from,
                                      by name (* opens none of its own calls; forwarded calls
                                      carry the target's own CORS answers)
  --quiet                             no request log on standard output
  -h, --help                          this text`,
  options: {
    target: { type: "string" },
    host: { type: "string" },
    port: { type: "string" },
    contract: { type: "string" },
    record: { type: "string" },
    report: { type: "string" },
    ...CONTROL_OPTIONS,
    quiet: { type: "boolean" },
  },
  async run(values) {
    const target = setting(values, "target", "BAWA_PROXY_TARGET", "");
    if (!target) throw new UsageError("--target (BAWA_PROXY_TARGET) is required: the base URL of the environment");
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      throw new UsageError(`--target ${target} is not a URL such as https://test.example.com`);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw new UsageError(`--target must be an http or https URL, not ${target}`);
    }
    if (/\/[vV]\d+\/?$/.test(url.pathname)) {
      throw new UsageError(`--target is the base URL without the version segment (${url.origin}), not ${target}`);
    }
    if (url.username || url.password) throw new UsageError("--target must not carry a user name or password");
    const host = setting(values, "host", "BAWA_HOST", "127.0.0.1");
    const port = portSetting(values, "port", "BAWA_PORT", 4013);
    const { controlToken, allowedHosts, corsOrigins } = controlSettings(values, host);
    const recordDir = typeof values.record === "string" ? resolve(values.record) : undefined;
    const reportDir = typeof values.report === "string" ? resolve(values.report) : undefined;
    const contract = await contractOf(values);

    let proxy: Awaited<ReturnType<typeof startProxy>>;
    try {
      proxy = await startProxy({
        target: url.href,
        host,
        port,
        contract,
        allowedHosts,
        controlToken: controlToken || undefined,
        // No applications are registered at the proxy: only the origins named may read its log.
        corsOrigins: corsOrigins === "registered" ? [] : corsOrigins,
        recordDir,
        coverage: reportDir !== undefined,
      });
    } catch (err) {
      if (err instanceof RecordingError) throw new UsageError(`--record: ${err.message}`);
      throw listenError(err, host, port);
    }
    const printed = values.quiet ? undefined : printRequests(proxy.log, "bawa proxy");
    const dashboard = `${proxy.url}/__mock/${controlToken ? `?token=${controlToken}` : ""}`;
    console.log(`bawa proxy listening on ${proxy.url}, in front of ${url.origin}${url.pathname.replace(/\/$/, "")}
  judges:     every answer against the description (the contract, assumptions loosened) and the suite's rules
  dashboard:  ${dashboard}   (requests and the rules their answers broke; GET ${proxy.url}/__mock/requests)${controlToken ? `\n  control token: ${controlToken} (header X-Bawa-Control-Token)` : ""}
  record:     ${recordDir ? `${recordDir} (serve it with: npx bawa mock --seed ${recordDir})` : "off (--record <dir>)"}
  report:     ${reportDir ? `${reportDir}/violations.md and .json when the proxy stops` : "off (--report <dir>)"}
Ctrl-C stops it.`);
    await new Promise<void>((done) => {
      const stop = () => void proxy.close().then(() => printed?.flush().then(done) ?? done());
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
    });
    const broken = proxy.report.rows();
    if (reportDir) {
      const [md] = proxy.report.write(reportDir, { target: url.origin });
      console.log(`bawa proxy: report written to ${md}`);
    }
    console.log(
      `bawa proxy stopped: ${proxy.report.exchanges} exchanges, ${proxy.report.violated} broke a rule${broken.length ? ` (${broken.map((r) => `${r.id} ×${r.count}`).join(", ")})` : ""}${recordDir ? `; recording in ${recordDir}` : ""}`,
    );
    return 0;
  },
};
