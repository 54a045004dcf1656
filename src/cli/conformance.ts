import { type ChildProcess, spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { availableParallelism, tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import type { Readable } from "node:stream";
import {
  BaselineError,
  FAIL_ON,
  type FailOn,
  type GatedSummary,
  gateFails,
  readBaseline,
} from "../../conformance/lib/baseline.ts";
import {
  apiBase,
  ConfigError,
  configTargets,
  fileSettings,
  givenOver,
  loadTarget,
  meaningOf,
  OWN_MOCKS_VARIABLE,
  onOff,
  ownMocks,
  type Target,
  VARIABLES,
} from "../../conformance/lib/config.ts";
import { takeForGone } from "../../conformance/lib/gone.ts";
import { isBlobName } from "../../conformance/lib/reporters.ts";
import { CUT_FILE, RUN_DIR_VARIABLE, RunSecrets } from "../../conformance/lib/secrets.ts";
import { findChromium } from "../../scripts/ensure-browser.mjs";
import { DEFAULT_CONFIG } from "../mock/core/router.ts";
import type { BawaMock } from "../mock/index.ts";
import type { Listening } from "../mock/node/listen.ts";
import { seedAccounts } from "../mock/seed.ts";
import { codePath, PROJECT_ROOT, SOURCE_EXTENSION } from "../paths.ts";
import { MARK } from "../rules/redact.ts";
import { type Command, contractOf, UsageError } from "./options.ts";
import type { startPrism } from "./prism.ts";

const FLAGS: Record<string, string> = {
  "base-url": "CONFORMANCE_BASE_URL",
  "api-version": "CONFORMANCE_API_VERSION",
  database: "CONFORMANCE_DATABASE",
  "client-id": "CONFORMANCE_CLIENT_ID",
  "client-secret": "CONFORMANCE_CLIENT_SECRET",
  "redirect-uri": "CONFORMANCE_REDIRECT_URI",
  scope: "CONFORMANCE_SCOPE",
  username: "CONFORMANCE_USERNAME",
  password: "CONFORMANCE_PASSWORD",
  "refresh-token": "CONFORMANCE_REFRESH_TOKEN",
  kinds: "CONFORMANCE_KINDS",
  config: "CONFORMANCE_CONFIG",
  contract: "CONFORMANCE_CONTRACT",
  "explore-steps": "CONFORMANCE_EXPLORE_STEPS",
  "explore-seed": "CONFORMANCE_EXPLORE_SEED",
};

/** The settings the suite needs to check the project's own mock, everything included. */
export function ownMockSettings(url: string, refreshToken: string, seed = seedAccounts()): Record<string, string> {
  return {
    CONFORMANCE_REFRESH_TOKEN: refreshToken,
    CONFORMANCE_BASE_URL: url,
    CONFORMANCE_API_VERSION: "1",
    CONFORMANCE_DATABASE: seed.database,
    CONFORMANCE_CLIENT_ID: seed.app.clientId,
    CONFORMANCE_CLIENT_SECRET: seed.app.clientSecret,
    CONFORMANCE_REDIRECT_URI: seed.app.redirectUri,
    CONFORMANCE_SCOPE: DEFAULT_CONFIG.scope,
    CONFORMANCE_USERNAME: seed.user.username,
    CONFORMANCE_PASSWORD: seed.user.password,
    CONFORMANCE_SECOND_CLIENT_ID: seed.second.clientId,
    CONFORMANCE_SECOND_CLIENT_SECRET: seed.second.clientSecret,
    CONFORMANCE_SECOND_REDIRECT_URI: seed.second.redirectUri,
    CONFORMANCE_PENDING_CLIENT_ID: seed.pending.clientId,
    CONFORMANCE_PENDING_REDIRECT_URI: seed.pending.redirectUri,
    CONFORMANCE_FORBIDDEN_DATABASE: seed.forbiddenDatabase,
    CONFORMANCE_KINDS: "spec,oauth,assumption",
    // The mock's screens are plain forms: a walk may fetch them for the browser (decision 0029).
    CONFORMANCE_CATCH_REDIRECTS: "1",
  };
}

export const conformanceCommand: Command = {
  summary: "run the conformance suite against an environment (default: the project's own mock)",
  usage: `usage: bawa conformance [options] [-- playwright options]

Checks an implementation of the Business Administration Web API rule by rule.
Without a target (no --base-url, CONFORMANCE_BASE_URL or config file) it starts
the project's own mock and checks it with every kind of check.

Exit code 0 only when no selected requirement failed or lacks a check, and at
least one was verified: a run that verified nothing, or could not obtain an
access token (settings missing), fails, naming the settings. --strict also fails on anything not verified. Reports in ./reports/conformance/ of the current
directory (--output): matrix.html, matrix.md, summary.json, junit.xml,
results.json, html/ (Playwright report). No secret reaches them or this
terminal: client secrets, passwords, tokens, codes, cookies and the control
token, given or handed out by the target, stand as ${MARK} (traces and blobs
included). SIGINT or SIGTERM stops the run and still writes the reports,
marked as cut; the exit code is then 1.

options (each also an environment variable):
${Object.entries(FLAGS)
  .map(([f, v]) => `  --${f.padEnd(15)} ${v}`)
  .join("\n")}
  --assumptions      also run assumption checks (CONFORMANCE_KINDS=spec,oauth,assumption)
  --wait-for-expiry  CONFORMANCE_WAIT_FOR_EXPIRY=1
  --read-only        CONFORMANCE_READ_ONLY=1: only checks that create, change and delete nothing;
                     the others are reported "not run (read-only)" (for production)
  --strict           CONFORMANCE_STRICT=1: any requirement not verified fails the run too (CI gates)
  --workers <n>      CONFORMANCE_WORKERS: ${meaningOf("CONFORMANCE_WORKERS")}
  --shard <i>/<n>    run part i of n (Playwright's sharding); each part writes its blob under the
                     reports folder, \`bawa conformance merge\` makes one verdict of them
  --output <dir>     where the reports go (CONFORMANCE_REPORTS_DIR; default ./reports/conformance)
  --grep <pattern>   only the checks whose title or requirement id matches (e.g. TOK-EXPIRY)
  --target <name>=<url>  a named target; repeat it to run the suite against each, side by side
                     (e.g. --target test=https://test.example.com --target prod=https://example.com;
                     or targets: in the config file, each with the settings it has of its own).
                     Each target's reports go to targets/<name>/; comparison.html shows each
                     requirement per target and where the answers to the same requests differ
  --baseline <file>  compare with an earlier run's summary.json: which rows newly fail, were fixed,
                     stay failed (terminal, matrix, summary.json: sinceBaseline)
  --fail-on <what>   any (default): any failure fails the run; new: only rows the baseline did not
                     fail (a run cut short, or one that verified nothing, still fails)
  --sarif <file>     also write the findings as SARIF 2.1.0 (one rule per requirement; results at
                     the contract's line, else the requirement's in conformance/requirements.yaml)
  --profile prism    start Prism on the contract and check it against its known results
                     (conformance/profiles/prism.yaml: the failures a stateless mock must show)
  -h, --help         this text

every setting:
${VARIABLES.map(([n, m]) => `  ${n.padEnd(34)} ${m}`).join("\n")}

bawa conformance merge <dir>...
  merges the blobs of shard runs found in the folders into one matrix, JUnit file, HTML
  report and exit code (in --output, default ./reports/conformance); its exit code is the
  gate the shards' run has: give it the same --baseline, --fail-on, --strict, --profile
bawa conformance cleanup [--yes] [--contract <file>]
  lists what runs left behind (names: CONFORMANCE_NAME_PREFIX, a space, eight hex digits) in
  CONFORMANCE_DATABASE, in every editable resource of the contract; --yes deletes them. Needs
  CONFORMANCE_REFRESH_TOKEN and the client settings.

Arguments after -- go to Playwright (for example -- --grep TOK-EXPIRY).`,
  options: {
    ...Object.fromEntries(Object.keys(FLAGS).map((f) => [f, { type: "string" as const }])),
    assumptions: { type: "boolean" },
    "wait-for-expiry": { type: "boolean" },
    grep: { type: "string" },
    output: { type: "string" },
    "read-only": { type: "boolean" },
    strict: { type: "boolean" },
    shard: { type: "string" },
    yes: { type: "boolean" },
    workers: { type: "string" },
    profile: { type: "string" },
    baseline: { type: "string" },
    "fail-on": { type: "string" },
    target: { type: "string", multiple: true },
    sarif: { type: "string" },
  },
  positionals: true,
  async run(values, positionals = []) {
    const { env, written } = runSettings(values);
    // On or off as the reporter reads it; a value that is neither is refused before the run.
    onOff("CONFORMANCE_STRICT", env.CONFORMANCE_STRICT, false);
    if (env.CONFORMANCE_WORKERS !== undefined && !/^[1-9]\d?$/.test(env.CONFORMANCE_WORKERS))
      throw new UsageError(`${written("CONFORMANCE_WORKERS")}: must be a whole number from 1 to 99`, { usage: false });
    Object.assign(env, gateSettings(values));
    // The contract of the run: its resources are what the generic checks check (and the own mock serves).
    if (env.CONFORMANCE_CONTRACT) {
      const path = resolve(env.CONFORMANCE_CONTRACT);
      // Named as it was given: the flag, the variable or the file's key (BAWA_CONTRACT is the mock's).
      if (!existsSync(path))
        throw new UsageError(`${written("CONFORMANCE_CONTRACT")}: there is no file ${path}`, { usage: false });
      env.CONFORMANCE_CONTRACT = path;
    }
    const contractFile = env.CONFORMANCE_CONTRACT || undefined;
    // A contract that can not be used is refused before anything starts, naming its node (exit 2).
    const contract = contractFile ? await contractOf({ contract: contractFile }) : undefined;

    // The mock's, Prism's and the cleanup's code load only where they run: a run against a target
    // (most runs, and every CI job) loads this module in an eighth of the CPU without them (0033).
    if (positionals[0] === "cleanup") return (await import("./cleanup.ts")).cleanup(env, values.yes === true);
    if (values.profile !== undefined && values.profile !== "prism")
      throw new UsageError(`unknown profile ${String(values.profile)}; there is: prism`);
    const profile = values.profile === "prism" ? resolve(PROJECT_ROOT, "conformance/profiles/prism.yaml") : undefined;
    // A merge judges the shards as their run would: with its profile's known results too.
    if (positionals[0] === "merge")
      return merge(positionals.slice(1), profile ? { ...env, CONFORMANCE_PROFILE: profile } : env);
    const shard = typeof values.shard === "string" ? values.shard : undefined;
    if (shard !== undefined) {
      const [i, n] = shard.split("/").map(Number);
      if (!/^\d+\/\d+$/.test(shard) || !i || !n || i > n)
        throw new UsageError(`--shard must be <i>/<n> with 1 <= i <= n, not ${JSON.stringify(shard)}`);
      // A part judges only what it ran; the merge judges coverage of the whole suite.
      env.CONFORMANCE_SHARD = shard;
    }

    const named = namedTargets(values, env);

    const own: Listening[] = [];
    let prism: ReturnType<typeof startPrism> | undefined;
    let runDir: string | undefined;
    if (profile) {
      const { freePort } = await import("../mock/node/listen.ts");
      const port = await freePort();
      prism = (await import("./prism.ts")).startPrism({
        host: "127.0.0.1",
        port,
        versions: ["1"],
        output: "pipe",
        ...(contractFile ? { contract: contractFile } : {}),
      });
      await prism.ready;
      Object.assign(env, ownMockSettings(prism.url, "prism-refresh-token"), {
        CONFORMANCE_KINDS: "spec,oauth",
        CONFORMANCE_PROFILE: profile,
        // Prism answers at once and draws no screen: a page with nothing to act on stays so.
        CONFORMANCE_SCREEN_TIMEOUT_MS: env.CONFORMANCE_SCREEN_TIMEOUT_MS ?? "1000",
      });
      console.log(`bawa conformance: checking Prism at ${prism.url} against its known results`);
    } else if (named.length === 0 && !env.CONFORMANCE_BASE_URL && !env.CONFORMANCE_CONFIG) {
      // One mock per worker: a check that moves a mock's clock then moves no other worker's tokens,
      // and one worker's objects are not in another's lists. Two workers by default (where there
      // are two cores): most of a check is waiting on the browser or the mock, so two halve the run.
      const given = env.CONFORMANCE_WORKERS;
      if (given !== undefined && !/^[1-8]$/.test(given))
        throw new UsageError(
          `${written("CONFORMANCE_WORKERS")}: the own mock runs one mock per worker, 1 to 8 of them`,
          { usage: false },
        );
      const workers = given ? Number(given) : Math.min(2, availableParallelism());
      const mocks: Array<Record<string, string>> = [];
      // Compiled once for every mock: the validators are the same.
      const compiled = contract ?? (await contractOf({}));
      const [{ buildMock }, { listen }] = await Promise.all([
        import("../mock/index.ts"),
        import("../mock/node/listen.ts"),
      ]);
      for (let i = 0; i < workers; i++) {
        const mock = buildMock({ contract: compiled, ...(contract ? { seedOptions: { strict: false } } : {}) });
        const listening = await listen(mock, { host: "127.0.0.1", port: 0 });
        own.push(listening);
        mocks.push({
          CONFORMANCE_BASE_URL: listening.url,
          CONFORMANCE_REFRESH_TOKEN: backgroundRefreshToken(mock),
        });
      }
      Object.assign(env, {
        ...ownMockSettings(mocks[0]!.CONFORMANCE_BASE_URL!, mocks[0]!.CONFORMANCE_REFRESH_TOKEN!),
        ...(env.CONFORMANCE_KINDS ? { CONFORMANCE_KINDS: env.CONFORMANCE_KINDS } : {}),
        CONFORMANCE_WORKERS: String(workers),
        [OWN_MOCKS_VARIABLE]: JSON.stringify(mocks),
      });
      console.log(
        `bawa conformance: no target given; checking the project's own mock at ${own.map((o) => o.url).join(" and ")}${workers > 1 ? ` (one per worker, ${workers} workers)` : ""}`,
      );
    }
    try {
      // Every target's settings are read before any starts: one that can not run stops them all.
      const targets: Array<{ name: string | undefined; target: Target }> = [];
      for (const t of named.length > 0 ? named : [{ name: undefined, settings: {} }]) {
        try {
          targets.push({ name: t.name, target: loadTarget({ ...env, ...t.settings }) });
        } catch (err) {
          if (err instanceof ConfigError)
            throw new UsageError(`${t.name ? `target ${t.name}: ` : ""}${err.message}`, { usage: false });
          throw err;
        }
      }
      for (const { name, target } of targets) {
        const probeMs = Math.min(target.requestTimeoutMs, 10_000);
        await reachable(target.baseUrl, probeMs);
        // The API's paths are asked for a hint only: one slower than that is no 404, and the run goes on.
        const hintMs = Math.min(probeMs, 3_000);
        await looksLikeTheApi(target, hintMs, name);
        // One target's checks spread over several workers: one worker's move of the target's
        // clock would expire the tokens another holds, a false TOK-EXPIRY. Listed targets take a
        // worker each, and the own mocks are one per worker.
        const workers = Number(env.CONFORMANCE_WORKERS ?? 1);
        if (named.length === 0 && own.length === 0 && !prism && workers > 1 && (await movableClock(target, hintMs))) {
          console.log(
            `bawa conformance: ${target.baseUrl}/__mock/clock moves the target's clock: one worker, not ${workers} (${written("CONFORMANCE_WORKERS")}), so that a check that moves it expires no other worker's tokens (without a target, each worker gets a mock of its own)`,
          );
          env.CONFORMANCE_WORKERS = "1";
        }
        console.log(
          `bawa conformance: ${name ? `target ${name}: ` : "target "}${target.baseUrl}/v${target.apiVersion}, database ${target.database}, kinds ${[...target.kinds].join(", ")}`,
        );
      }
      // CONFORMANCE_BROWSER=0 on every target: a job without Chromium runs the rest.
      if (targets.some(({ target }) => target.browser) && !findChromium())
        throw new Error(
          "no Chromium for the checks that drive the login and permission screens; run `npx bawa ensure-browser` (or set BAWA_CHROMIUM), or CONFORMANCE_BROWSER=0 to leave those checks not verified",
        );
      if (typeof values.grep === "string" || positionals.length > 0) env.CONFORMANCE_FILTERED = "1";
      // What the workers learn (tokens, codes, cookies) and what ends the run early, in a folder
      // of this run's alone: never in the reports (decision 0023).
      const folder = mkdtempSync(join(tmpdir(), "bawa-conformance-run-"));
      runDir = folder;
      env[RUN_DIR_VARIABLE] = folder;
      const secrets = new RunSecrets(folder);
      for (const { target } of targets) secrets.addSettings(target.settings);
      // The own mocks' refresh tokens, one per worker (the first is the run's own setting).
      for (const mock of ownMocks(env)) secrets.addSettings(mock);
      if (named.length > 0) {
        // A run of listed targets: each a group of its own (conformance/playwright.config.ts).
        const file = join(runDir, "targets.json");
        writeFileSync(file, JSON.stringify(named), { mode: 0o600 });
        env.CONFORMANCE_TARGETS = file;
        if (named.length > 1) env.CONFORMANCE_COMPARE = "1";
      }
      const child = spawnSuite(
        env,
        [
          ...(typeof values.grep === "string" ? ["--grep", values.grep] : []),
          ...(shard ? ["--shard", shard] : []),
          ...positionals,
        ],
        { output: "pipe", ownGroup: true },
      );
      const relayed = Promise.all([
        relay(child.stdout!, process.stdout, secrets),
        relay(child.stderr!, process.stderr, secrets),
      ]);
      // Playwright stops gracefully at one SIGINT and writes the reports; its own process group
      // keeps a terminal's Ctrl-C or a CI's SIGTERM from reaching it twice, or as SIGTERM.
      let signals = 0;
      const stop = () => child.kill("SIGINT");
      const onSignal = (signal: NodeJS.Signals) => {
        signals++;
        if (signals === 1) {
          writeFileSync(join(runDir!, CUT_FILE), signal);
          console.error(
            `\nbawa conformance: ${signal}: stopping the run; the reports are written with the checks that ended.`,
          );
          stop();
        } else if (signals === 2) {
          console.error(`bawa conformance: ${signal}: still writing the reports; a third signal stops without them.`);
        } else {
          child.kill("SIGKILL");
        }
      };
      process.on("SIGINT", onSignal);
      process.on("SIGTERM", onSignal);
      // A target found gone is recorded where every check looks before it runs and every request
      // before it is sent: the checks left end at once, not checked, and the verdict says once that
      // the target stopped answering. A check that waits on something else (a wait for expiry) is
      // stopped after a request's time.
      let stopping: NodeJS.Timeout | undefined;
      const watchdogs = targets.map(({ target }) =>
        watchTarget(target.baseUrl, (why) => {
          takeForGone(target.baseUrl, `${target.baseUrl} did not answer twice in a row (${why})`, { dir: folder });
          const grace = target.requestTimeoutMs + 15_000;
          stopping ??= setTimeout(() => {
            console.error(
              `\nbawa conformance: the target at ${target.baseUrl} stopped answering, and a check still runs ${grace / 1000} s later; stopping the run.`,
            );
            stop();
          }, grace);
        }),
      );
      const code = await new Promise<number>((done) => child.on("close", (c, signal) => done(c ?? (signal ? 130 : 1))));
      await relayed;
      for (const w of watchdogs) clearInterval(w);
      clearTimeout(stopping);
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
      return code === 0 && !targets.some(({ target }) => stopped.has(target.baseUrl)) && signals === 0 ? 0 : 1;
    } finally {
      if (runDir) rmSync(runDir, { recursive: true, force: true });
      await Promise.all(own.map((o) => o.close()));
      prism?.child.kill("SIGTERM");
    }
  },
};

/** The settings of a run, and how each was written where it was given. */
export interface RunSettings {
  /** Every setting as a CONFORMANCE_* variable, as Playwright and the checks then read it. */
  env: Record<string, string | undefined>;
  /**
   * A setting as the user wrote it, for a message about its value: `--workers 9`,
   * `CONFORMANCE_WORKERS=9` or `WORKERS: 9 in /ci/bawa.yaml`.
   */
  written(variable: string): string;
}

/**
 * The run's settings: a flag, else the environment, else the config file (CONFORMANCE_CONFIG or
 * --config). The file's are put in the environment here, once: whatever reads a setting (this
 * command, Playwright's configuration, the reporters, the checks) then reads it alike wherever it
 * was given.
 */
export function runSettings(
  values: Record<string, unknown>,
  environment: NodeJS.ProcessEnv = process.env,
): RunSettings {
  const env: Record<string, string | undefined> = { ...environment };
  const flagged = new Map<string, string>();
  const set = (variable: string, value: string, flag: string) => {
    env[variable] = value;
    flagged.set(variable, flag);
  };
  for (const [flag, variable] of Object.entries(FLAGS))
    if (typeof values[flag] === "string") set(variable, values[flag] as string, `--${flag} ${values[flag]}`);
  if (values.assumptions) set("CONFORMANCE_KINDS", "spec,oauth,assumption", "--assumptions");
  if (values["wait-for-expiry"]) set("CONFORMANCE_WAIT_FOR_EXPIRY", "1", "--wait-for-expiry");
  if (values["read-only"]) set("CONFORMANCE_READ_ONLY", "1", "--read-only");
  if (values.strict) set("CONFORMANCE_STRICT", "1", "--strict");
  if (typeof values.workers === "string") set("CONFORMANCE_WORKERS", values.workers, `--workers ${values.workers}`);
  if (typeof values.output === "string") set("CONFORMANCE_REPORTS_DIR", values.output, `--output ${values.output}`);
  // Playwright runs in the project's folder: a config file is found from where the command ran.
  if (env.CONFORMANCE_CONFIG) env.CONFORMANCE_CONFIG = resolve(env.CONFORMANCE_CONFIG);
  const config = env.CONFORMANCE_CONFIG;
  let file: Record<string, string>;
  try {
    file = fileSettings(env);
  } catch (err) {
    if (err instanceof ConfigError) throw new UsageError(err.message, { usage: false });
    throw err;
  }
  const fromFile = new Set<string>();
  for (const [variable, value] of Object.entries(file))
    if (givenOver(env[variable], value) !== env[variable]) {
      env[variable] = value;
      fromFile.add(variable);
    }
  // Paths are read from where the command ran, wherever they were given: Playwright runs elsewhere.
  if (env.CONFORMANCE_REPORTS_DIR) env.CONFORMANCE_REPORTS_DIR = resolve(env.CONFORMANCE_REPORTS_DIR);
  return {
    env,
    written: (variable) =>
      flagged.get(variable) ??
      (fromFile.has(variable)
        ? `${variable.replace(/^CONFORMANCE_/, "")}: ${file[variable]} in ${config}`
        : `${variable}=${environment[variable] ?? ""}`),
  };
}

/**
 * The named targets of a run: `--target <name>=<url>`, repeated, else the config file's `targets:`.
 * Each has its own CONFORMANCE_* settings over the run's (at least its address).
 */
function namedTargets(
  values: Record<string, unknown>,
  env: Record<string, string | undefined>,
): Array<{ name: string; settings: Record<string, string> }> {
  const flags = (values.target as string[] | undefined) ?? [];
  let out: Array<{ name: string; settings: Record<string, string> }>;
  try {
    out = flags.length > 0 ? [] : configTargets(env);
  } catch (err) {
    if (err instanceof ConfigError) throw new UsageError(err.message, { usage: false });
    throw err;
  }
  for (const flag of flags) {
    const m = /^([A-Za-z0-9][A-Za-z0-9_.-]{0,39})=(.+)$/.exec(flag);
    if (!m)
      throw new UsageError(
        `--target must be <name>=<url> (a name of letters, digits, . _ -, e.g. test=https://test.example.com), not ${JSON.stringify(flag)}`,
      );
    let url: URL;
    try {
      url = new URL(m[2]!);
    } catch {
      throw new UsageError(`--target ${m[1]}: ${JSON.stringify(m[2])} is not a URL such as https://test.example.com`);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:")
      throw new UsageError(`--target ${m[1]}: ${m[2]} is not an http or https URL`);
    out.push({ name: m[1]!, settings: { CONFORMANCE_BASE_URL: m[2]! } });
  }
  const names = out.map((t) => t.name);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice) throw new UsageError(`--target ${twice} is named twice: each target needs a name of its own`);
  if (out.length > 0 && typeof values["base-url"] === "string")
    throw new UsageError(
      "--base-url and --target name the target twice: give either one --base-url or named --targets",
    );
  if (out.length > 0 && (values.profile !== undefined || values.shard !== undefined))
    throw new UsageError("--target runs several targets at once; it can not be combined with --profile or --shard");
  return out;
}

/**
 * --baseline, --fail-on and --sarif as the matrix reporter reads them; a baseline that is not a
 * summary.json, or a gate without one, is refused before anything runs.
 */
function gateSettings(values: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  const failOn = values["fail-on"];
  if (failOn !== undefined) {
    if (!FAIL_ON.includes(failOn as FailOn))
      throw new UsageError(`--fail-on must be ${FAIL_ON.join(" or ")}, not ${JSON.stringify(failOn)}`);
    if (failOn === "new" && typeof values.baseline !== "string")
      throw new UsageError("--fail-on new needs --baseline <summary.json of an earlier run>: new compared with what?");
    out.CONFORMANCE_FAIL_ON = failOn as string;
  }
  if (typeof values.baseline === "string") {
    const file = resolve(values.baseline);
    try {
      readBaseline(file);
    } catch (err) {
      if (err instanceof BaselineError) throw new UsageError(`--baseline: ${err.message}`, { usage: false });
      throw err;
    }
    out.CONFORMANCE_BASELINE = file;
  }
  if (typeof values.sarif === "string") {
    if (values.sarif === "") throw new UsageError("--sarif needs a file name (e.g. --sarif reports/conformance.sarif)");
    out.CONFORMANCE_SARIF = resolve(values.sarif);
    out.CONFORMANCE_CWD = process.cwd();
  }
  return out;
}

/** One verdict from the blobs of shard runs: Playwright's merge-reports with the suite's reporters. */
async function merge(dirs: string[], env: Record<string, string | undefined>): Promise<number> {
  if (dirs.length === 0) throw new UsageError("merge needs the folders that hold the shards' blobs");
  const blobs = mkdtempSync(join(tmpdir(), "bawa-merge-"));
  try {
    let found = 0;
    for (const dir of dirs) {
      if (!existsSync(dir)) throw new UsageError(`${dir} does not exist`);
      for (const file of readdirSync(dir, { recursive: true, encoding: "utf8" }))
        if (isBlobName(basename(file))) copyFileSync(join(dir, file), join(blobs, `${found++}-${basename(file)}`));
    }
    if (found === 0) throw new UsageError(`no blob (shard-<i>-of-<n>.zip) of a shard run in ${dirs.join(", ")}`);
    const reports = resolve(env.CONFORMANCE_REPORTS_DIR ?? "reports/conformance");
    console.log(`bawa conformance merge: ${found} shards into ${reports}`);
    const cli = createRequire(import.meta.url).resolve("@playwright/test/cli");
    const child = spawn(
      process.execPath,
      [cli, "merge-reports", "--config", codePath("conformance/merge.config.ts"), blobs],
      {
        stdio: "inherit",
        env: {
          ...env,
          ...suiteColour(env, { terminal: process.stdout.isTTY === true, piped: false }),
          ...compiledSuite,
          CONFORMANCE_REPORTS_DIR: reports,
        },
        cwd: PROJECT_ROOT,
      },
    );
    const code = await new Promise<number>((done) => child.on("exit", (c) => done(c ?? 1)));
    const summary = join(reports, "summary.json");
    if (code !== 0 || !existsSync(summary)) return 1;
    // Playwright's merge exits 0 unless a reporter failed: the gate is the merged summary's, as a
    // run's (--fail-on new passes what the baseline failed too). Shards are of one target: --shard
    // is refused beside several.
    const failOn: FailOn = env.CONFORMANCE_FAIL_ON === "new" ? "new" : "any";
    return gateFails(JSON.parse(readFileSync(summary, "utf8")) as GatedSummary, failOn) ? 1 : 0;
  } finally {
    rmSync(blobs, { recursive: true, force: true });
  }
}

export interface SuiteProcess {
  /** Where Playwright's output goes: ours, nowhere, or pipes to read (and redact) it from. */
  output: "inherit" | "ignore" | "pipe";
  /** A process group of its own: only this process signals it. */
  ownGroup?: boolean;
}

/**
 * Compiled, the suite is JavaScript Node.js loads as it is: Playwright's loader hooks for
 * TypeScript would only pass every import of the runner and of each worker through a thread of
 * their own (a fifth of a small run's CPU). From the sources (tsx) they are needed.
 */
const compiledSuite = SOURCE_EXTENSION === ".js" ? { PW_DISABLE_TS_ESM: "1" } : {};

/**
 * Whether Playwright colours what it writes. Its terminal output follows its own stdout, which is
 * no terminal when we pipe it (then colours are asked for when ours is one); but outside a CI (CI
 * unset) it colours the failures' code frames whatever its output is: they carry escape codes into
 * results.json and the HTML report, and the runner highlights the whole source file of each
 * failed check to make them (9.5 of the fault matrix runner's 22.6 CPU-s). So where our output is
 * no terminal, none. FORCE_COLOR, when set, decides; then NO_COLOR (which Playwright's code frames
 * do not read).
 */
export function suiteColour(
  env: Record<string, string | undefined>,
  { terminal, piped }: { terminal: boolean; piped: boolean },
): { FORCE_COLOR?: string } {
  if (env.FORCE_COLOR !== undefined) return {};
  if (!terminal || env.NO_COLOR) return { FORCE_COLOR: "0" };
  return piped ? { FORCE_COLOR: "1" } : {};
}

/** Starts Playwright on the suite with the given settings. */
export function spawnSuite(
  env: Record<string, string | undefined>,
  args: string[],
  { output, ownGroup = false }: SuiteProcess,
): ChildProcess {
  const cli = createRequire(import.meta.url).resolve("@playwright/test/cli");
  const colour = suiteColour(env, { terminal: process.stdout.isTTY === true, piped: output === "pipe" });
  const child = spawn(process.execPath, [cli, "test", "-c", codePath("conformance/playwright.config.ts"), ...args], {
    stdio: ["ignore", output, output],
    env: {
      ...env,
      ...colour,
      ...compiledSuite,
      CONFORMANCE_REPORTS_DIR: resolve(env.CONFORMANCE_REPORTS_DIR ?? "reports/conformance"),
    },
    cwd: PROJECT_ROOT,
    detached: ownGroup,
  });
  if (ownGroup) {
    // A group of its own outlives this process: it must not go on if this one ends first.
    const orphaned = () => child.kill("SIGKILL");
    process.once("exit", orphaned);
    child.once("exit", () => process.off("exit", orphaned));
  }
  return child;
}

/** Copies a child's output to ours a line at a time, each with the run's secrets replaced. */
function relay(from: Readable, to: NodeJS.WritableStream, secrets: RunSecrets): Promise<void> {
  let pending = "";
  from.setEncoding("utf8");
  from.on("data", (chunk: string) => {
    pending += chunk;
    // A whole line at a time, so a secret is never cut in two; a line without end is let out when long.
    const end = pending.length > 65_536 ? pending.length : pending.lastIndexOf("\n") + 1;
    if (end === 0) return;
    to.write(secrets.redact(pending.slice(0, end)));
    pending = pending.slice(end);
  });
  return new Promise((done) =>
    from.on("end", () => {
      if (pending) to.write(secrets.redact(pending));
      done();
    }),
  );
}

/** A refresh token of the mock's background user for the seed's first application, from its generator. */
export function backgroundRefreshToken(mock: BawaMock, { app } = seedAccounts()): string {
  const generated = mock.handle({
    method: "POST",
    url: "/__mock/refresh-tokens",
    headers: { "content-type": "application/json" },
    body: Buffer.from(JSON.stringify({ clientId: app.clientId, clientSecret: app.clientSecret })),
  });
  const token = (JSON.parse(generated.body ?? "{}") as { refresh_token?: string }).refresh_token;
  if (!token) throw new Error(`the mock's refresh-token generator failed: ${generated.status} ${generated.body}`);
  return token;
}

const stopped = new Set<string>();

/** Calls `onDown` once when the target has not answered twice in a row (every 2 s). */
function watchTarget(baseUrl: string, onDown: (why: string) => void): NodeJS.Timeout {
  let misses = 0;
  const timer = setInterval(() => {
    fetch(baseUrl, { redirect: "manual", signal: AbortSignal.timeout(3_000) }).then(
      () => (misses = 0),
      (err: Error) => {
        if (++misses === 2 && !stopped.has(baseUrl)) {
          stopped.add(baseUrl);
          onDown(String(err.cause ?? err.message));
        }
      },
    );
  }, 2_000);
  timer.unref();
  return timer;
}

/**
 * Stops a run whose address answers but is not the API's, before its checks fail one by one (a
 * base URL with the version in it, or another service's, took 1 min 37 s and 32 failures before
 * anything said so). Whatever else an implementation gets wrong, it answers where the token
 * endpoint and the customer list stand: a token request without a grant is 400 or 401, a list
 * without a token 401. Both 404 says the address is not the API's: a setting to change, exit 2
 * as a wrong configuration is. Anything else goes on: the checks judge it.
 */
async function looksLikeTheApi(target: Target, timeoutMs: number, name: string | undefined): Promise<void> {
  const ask = async (url: string, init: RequestInit): Promise<number | undefined> => {
    try {
      const res = await fetch(url, { ...init, redirect: "manual", signal: AbortSignal.timeout(timeoutMs) });
      await res.body?.cancel();
      return res.status;
    } catch {
      // The checks meet an address that stops answering and say so; the probe is not the place.
      return undefined;
    }
  };
  const token = `${apiBase(target)}/OAuth/Token`;
  const list = `${apiBase(target)}/api/${encodeURIComponent(target.database)}/CustomerInfoList`;
  const [tokenStatus, listStatus] = await Promise.all([
    ask(token, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "" }),
    ask(list, { method: "GET", headers: { accept: "application/json" } }),
  ]);
  if (tokenStatus !== 404 || listStatus !== 404) return;
  throw new UsageError(
    `${name ? `target ${name}: ` : ""}the target at ${target.baseUrl} does not look like the API: POST ${token} and GET ${list} both answered 404; CONFORMANCE_BASE_URL is the address the API's paths follow (the suite adds /v${target.apiVersion}/OAuth/Token and /v${target.apiVersion}/api/{database}/...). No check was run.`,
    { usage: false },
  );
}

/** Whether the target has a clock the suite's checks move (a bawa mock's GET /__mock/clock). */
async function movableClock(target: Target, timeoutMs: number): Promise<boolean> {
  try {
    const res = await fetch(`${target.baseUrl}/__mock/clock`, {
      headers: target.controlToken ? { "x-bawa-control-token": target.controlToken } : {},
      redirect: "manual",
      signal: AbortSignal.timeout(timeoutMs),
    });
    const body = res.status === 200 ? ((await res.json().catch(() => undefined)) as { now?: unknown }) : undefined;
    if (!body) await res.body?.cancel().catch(() => undefined);
    return typeof body?.now === "string";
  } catch {
    return false;
  }
}

/** Fails fast, with the address, when nothing answers there within `timeoutMs`. */
async function reachable(baseUrl: string, timeoutMs: number): Promise<void> {
  try {
    const res = await fetch(baseUrl, { method: "GET", signal: AbortSignal.timeout(timeoutMs), redirect: "manual" });
    await res.body?.cancel();
  } catch (err) {
    const why =
      (err as Error).name === "TimeoutError"
        ? `no answer within ${timeoutMs / 1000} s (CONFORMANCE_REQUEST_TIMEOUT)`
        : String((err as Error).cause ?? (err as Error).message);
    throw new Error(`cannot reach the target at ${baseUrl}: ${why}`);
  }
}
