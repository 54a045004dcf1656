#!/usr/bin/env node
// The whole conformance suite (spec, oauth and assumption checks) through bawa
// proxy in front of the project's own mock: the proxy must judge not one of its
// hundreds of exchanges a violation, since the mock conforms. Proves the proxy
// never flags what a conforming implementation does, as the suite drives it.
//
//   npm run conformance:proxy [-- --faults <switches of the mock>]
//
// With --faults the mock runs with those switches and the proxy's verdict is
// printed, not judged (to look at what it sees of a drift). Needs `npm run build`.
// Exit 0 when the suite passed and the proxy saw no violation; 1 otherwise.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { DEFAULT_CONFIG } from "../dist/src/mock/core/app.js";
import { seedAccounts } from "../dist/src/mock/seed.js";

const root = resolve(import.meta.dirname, "..");
const bin = resolve(root, "bin/bawa.js");
const reports = resolve(root, "reports/proxy-suite");
const { values } = parseArgs({ options: { faults: { type: "string" } } });

/** Starts a bawa command and resolves with its address once it prints that it listens. */
function serve(args) {
  const child = spawn(process.execPath, [bin, ...args], { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((done, fail) => {
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
      const m = /listening on (http:\/\/[^\s,]+)/.exec(out);
      if (m) done({ child, url: m[1] });
    });
    child.on("exit", (code) => fail(new Error(`bawa ${args[0]} exited with ${code}: ${out}`)));
  });
}

const stopped = (child) => new Promise((done) => (child.exitCode === null ? child.on("exit", done) : done()));

const mock = await serve(["mock", "--port", "0", "--quiet", ...(values.faults ? ["--faults", values.faults] : [])]);
const proxy = await serve(["proxy", "--target", mock.url, "--port", "0", "--quiet", "--report", reports]);
const { app, second, pending, user, database, forbiddenDatabase } = seedAccounts();
const suite = spawn(
  process.execPath,
  [bin, "conformance", "--assumptions", "--output", resolve(reports, "conformance")],
  {
    stdio: "inherit",
    env: {
      ...process.env,
      CONFORMANCE_BASE_URL: proxy.url,
      CONFORMANCE_DATABASE: database,
      CONFORMANCE_CLIENT_ID: app.clientId,
      CONFORMANCE_CLIENT_SECRET: app.clientSecret,
      CONFORMANCE_REDIRECT_URI: app.redirectUri,
      CONFORMANCE_SCOPE: DEFAULT_CONFIG.scope,
      CONFORMANCE_USERNAME: user.username,
      CONFORMANCE_PASSWORD: user.password,
      CONFORMANCE_SECOND_CLIENT_ID: second.clientId,
      CONFORMANCE_SECOND_CLIENT_SECRET: second.clientSecret,
      CONFORMANCE_SECOND_REDIRECT_URI: second.redirectUri,
      CONFORMANCE_PENDING_CLIENT_ID: pending.clientId,
      CONFORMANCE_PENDING_REDIRECT_URI: pending.redirectUri,
      CONFORMANCE_FORBIDDEN_DATABASE: forbiddenDatabase,
    },
  },
);
const suiteCode = await new Promise((done) => suite.on("exit", done));
proxy.child.kill("SIGTERM");
await stopped(proxy.child);
mock.child.kill("SIGTERM");
await stopped(mock.child);

const report = JSON.parse(readFileSync(resolve(reports, "violations.json"), "utf8"));
const broken = report.requirements.map((r) => `${r.id} ×${r.count}`);
console.log(
  `\nbawa proxy saw ${report.exchanges} exchanges of the suite, ${report.violatedExchanges} broke a rule${broken.length ? `: ${broken.join(", ")}` : ""} (${resolve(reports, "violations.md")})`,
);
if (values.faults) process.exit(0);
process.exit(suiteCode === 0 && broken.length === 0 ? 0 : 1);
