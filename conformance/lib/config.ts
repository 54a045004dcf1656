// The target of a conformance run, from CONFORMANCE_* environment variables,
// optionally over a YAML/JSON file named by CONFORMANCE_CONFIG. `bawa
// conformance` turns its flags into these variables before Playwright starts.
import { readFileSync } from "node:fs";
import type { Operation } from "../../src/contract/index.ts";
// The yaml package (60 ms to load) only when a settings file is read: most runs have none.
import { parseYaml } from "../../src/yaml-file.ts";
import { annotatedTarget, TARGET_ANNOTATION } from "./requirements.ts";

export type Kind = "spec" | "oauth" | "assumption";
export const KINDS: readonly Kind[] = ["spec", "oauth", "assumption"];

/** One target of a run: settings over the environment, and which requirements to check there. */
export interface RunTarget {
  name: string;
  /** CONFORMANCE_* settings of this target, over the environment's. */
  settings: Record<string, string>;
  /** Only the checks of these requirement ids (the fault matrix); all when absent. */
  requirements?: string[];
  /**
   * Requirements expected to fail here (a fault's run, a profile). Those of
   * their checks that fail are marked so once they ended: Playwright then keeps
   * the worker after them instead of starting a new one with a new browser, and
   * one that passes needs no new worker either. Verdicts still come from each
   * check's own status.
   */
  expectFailures?: string[];
}

/** Names a JSON file of the run's targets (RunTarget[]): a run of several (the fault matrix, side by side). */
export const TARGETS_VARIABLE = "CONFORMANCE_TARGETS";

/** The targets CONFORMANCE_TARGETS lists; none when the run has one target of the environment's. */
export function listedTargets(env: NodeJS.ProcessEnv = process.env): RunTarget[] | undefined {
  const file = env[TARGETS_VARIABLE];
  return file === undefined ? undefined : (JSON.parse(readFileSync(file, "utf8")) as RunTarget[]);
}

/** How every target's group title begins. */
export const TARGET_TITLE = "[target ";

/**
 * The title of a target's group in a run of several (conformance/checks/every-target.spec.ts):
 * part of each of its checks' title path, which is how a project's grep finds that target's checks.
 */
export const targetTitle = (name: string) => `${TARGET_TITLE}${name}]`;

/** The name of the target a check runs against: its annotation (checks()), or the run's only target. */
export function targetNameOf(
  annotations: ReadonlyArray<{ type: string; description?: string }>,
  runTargets: readonly RunTarget[],
): string {
  const named = annotatedTarget(annotations);
  if (named !== undefined) return named;
  if (runTargets.length === 1) return runTargets[0]!.name;
  throw new Error(
    `a check without a ${TARGET_ANNOTATION} annotation in a run of ${runTargets.length} targets: register the checks of a file inside checks(() => ...) (conformance/lib/test.ts)`,
  );
}

export interface Client {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
}

export interface Target {
  /** Address of the environment without /v<version>. */
  baseUrl: string;
  apiVersion: string;
  database: string;
  client?: Client;
  scope?: string;
  username?: string;
  password?: string;
  refreshToken?: string;
  second?: Client;
  /** A registered application that is not active yet. */
  pending?: { clientId: string; redirectUri: string };
  /** A database the configured user may not use (assumption checks). */
  forbiddenDatabase?: string;
  selectors: { username: string; password: string; submit: string; allow: string; deny: string };
  kinds: ReadonlySet<Kind>;
  waitForExpiry: boolean;
  /**
   * Whether a walk fetches the target's pages for the browser and catches a redirect out where the
   * target answers it (decision 0029): for screens known to be plain forms, as bawa mock's.
   */
  catchRedirects: boolean;
  caseInsensitiveNames: boolean;
  /** Date formats besides month/day/year the checks that read dates accept (CUST-DATES still reports them). */
  acceptDateFormats: ReadonlySet<"iso" | "dmy">;
  /** What the names of everything the suite creates begin with (cleanup finds them by it). */
  namePrefix: string;
  /** The control token of a bawa mock on a non-loopback address (for its clock). */
  controlToken?: string;
  /** Run only the checks that change no customer data (a production environment). */
  readOnly: boolean;
  /**
   * Whether checks may open a browser (CONFORMANCE_BROWSER, default yes): without one, the checks
   * that walk the login and permission screens are not verified and no Chromium is started.
   */
  browser: boolean;
  /** How answers 429 and 503 are retried. */
  retries: RetryPolicy;
  /** The model-based exploration's budget, and the seed (and fast-check path) that replays one. */
  explore: { steps: number; seconds: number; seed: number; path?: string };
  /** How long one request may take, its answer read whole (CONFORMANCE_REQUEST_TIMEOUT). */
  requestTimeoutMs: number;
  /**
   * How long a walk through the screens waits for something to act on after the last navigation
   * (CONFORMANCE_SCREEN_TIMEOUT_MS).
   */
  screenTimeoutMs: number;
  /** The largest answer read; a larger one fails its check unread (CONFORMANCE_MAX_ANSWER_BYTES). */
  maxAnswerBytes: number;
  /**
   * Every setting as read, by variable name: `client` and `second` exist only when whole, and a
   * check that needs one names only the parts that are missing.
   */
  settings: Readonly<Record<string, string | undefined>>;
}

export interface RetryPolicy {
  /** Retries of one request at most. */
  times: number;
  /** The longest wait, in seconds, a Retry-After may ask for; a longer one ends the retries. */
  maxWaitSeconds: number;
}

/** Steps of the model-based exploration by default: a few seconds against a local target. */
export const DEFAULT_EXPLORE_STEPS = 240;

/** How long one request may take by default, in seconds (CONFORMANCE_REQUEST_TIMEOUT). */
export const DEFAULT_REQUEST_TIMEOUT_SECONDS = 15;
/** How long a walk waits on a screen with nothing to act on by default, in milliseconds. */
export const DEFAULT_SCREEN_TIMEOUT_MS = 5_000;
/** The largest answer the suite reads by default: far above any list a test environment gives. */
export const DEFAULT_MAX_ANSWER_BYTES = 64 * 1024 * 1024;

/** Every variable, documented once: `bawa conformance --help` prints this list. */
export const VARIABLES: ReadonlyArray<[name: string, meaning: string]> = [
  ["CONFORMANCE_BASE_URL", "address of the environment, without /v<version> (required)"],
  ["CONFORMANCE_API_VERSION", "API version number (default 1)"],
  ["CONFORMANCE_DATABASE", "database (administration) id the checks use (default DEMO)"],
  ["CONFORMANCE_CLIENT_ID", "Client Identifier of an active application"],
  ["CONFORMANCE_CLIENT_SECRET", "its Client Secret"],
  ["CONFORMANCE_REDIRECT_URI", "its registered redirect URI (the browser never leaves for it: the suite catches it)"],
  ["CONFORMANCE_SCOPE", "the single scope value"],
  ["CONFORMANCE_USERNAME", "a user for the login screen"],
  ["CONFORMANCE_PASSWORD", "that user's password"],
  ["CONFORMANCE_REFRESH_TOKEN", "a background user's refresh token: data checks then need no interactive login"],
  ["CONFORMANCE_SECOND_CLIENT_ID", "a second active application, for the client-binding checks"],
  ["CONFORMANCE_SECOND_CLIENT_SECRET", "its Client Secret"],
  ["CONFORMANCE_SECOND_REDIRECT_URI", "its registered redirect URI"],
  ["CONFORMANCE_PENDING_CLIENT_ID", "an application registered but not yet active"],
  ["CONFORMANCE_PENDING_REDIRECT_URI", "its registered redirect URI"],
  ["CONFORMANCE_FORBIDDEN_DATABASE", "a database the user may not use (assumption checks)"],
  ["CONFORMANCE_SELECTOR_USERNAME", 'login screen user field (default input[name="username"])'],
  ["CONFORMANCE_SELECTOR_PASSWORD", 'login screen password field (default input[name="password"])'],
  ["CONFORMANCE_SELECTOR_SUBMIT", 'login screen button (default button[type="submit"])'],
  ["CONFORMANCE_SELECTOR_ALLOW", 'permission screen allow button (default button[name="decision"][value="allow"])'],
  ["CONFORMANCE_SELECTOR_DENY", 'permission screen deny button (default button[name="decision"][value="deny"])'],
  ["CONFORMANCE_KINDS", "kinds of checks to run: spec,oauth (default) or spec,oauth,assumption"],
  ["CONFORMANCE_WAIT_FOR_EXPIRY", "1: on a target without /__mock/clock, really wait 7200 s for the expiry check"],
  [
    "CONFORMANCE_CATCH_REDIRECTS",
    "1: during a walk the suite fetches the screens for the browser and catches the redirect out at the target (cheaper; for plain-form screens such as bawa mock's, which the own-mock run sets); default: the browser sends every request itself",
  ],
  [
    "CONFORMANCE_SCREEN_TIMEOUT_MS",
    `how long a walk through the screens waits on a page with nothing to act on, in ms (default ${DEFAULT_SCREEN_TIMEOUT_MS}; a screen drawn by script may need more)`,
  ],
  [
    "CONFORMANCE_CASE_INSENSITIVE_NAMES",
    "1: compare field names case-insensitively (camelCase implementations; CUST-NAMES still reports them)",
  ],
  [
    "CONFORMANCE_ACCEPT_DATE_FORMATS",
    "iso,dmy: let the checks that read dates go on when dates are written so (CUST-DATES still reports it)",
  ],
  ["CONFORMANCE_NAME_PREFIX", "what the names of the objects the suite creates begin with (default Conformance)"],
  [
    "CONFORMANCE_READ_ONLY",
    "1: run only the checks that create, change and delete nothing (production); the others are reported not run",
  ],
  [
    "CONFORMANCE_BROWSER",
    "0: open no browser; the checks that walk the login and permission screens are reported not verified (a job without Chromium, data rules only); default 1",
  ],
  [
    "CONFORMANCE_STRICT",
    "1: fail the run on any requirement not verified (a setting missing, not verifiable on the target), not only on failures",
  ],
  [
    "CONFORMANCE_EXPLORE_STEPS",
    `steps of the model-based exploration (random create/read/replace/delete/list sequences; default ${DEFAULT_EXPLORE_STEPS}, 0 turns it off)`,
  ],
  ["CONFORMANCE_EXPLORE_SECONDS", "seconds after which the exploration starts no new sequence (default 30)"],
  [
    "CONFORMANCE_EXPLORE_SEED",
    "the exploration's seed (default 1, so runs explore alike; another explores other sequences; a failure prints the one that replays it)",
  ],
  ["CONFORMANCE_EXPLORE_PATH", "fast-check's path of a failing sequence (printed with it): replays only that one"],
  ["CONFORMANCE_SEED", "the seed of the generated invalid bodies (fixed in CI; a failure prints the one to replay)"],
  ["CONFORMANCE_RUNS", "generated invalid bodies per property (default 40)"],
  [
    "CONFORMANCE_WORKERS",
    "checks run at once against the target (default 1, gentle on an environment); the own mock: one mock per worker, 1 to 8 (default 2 where there are two cores)",
  ],
  ["CONFORMANCE_RETRIES", "times a request answered 429 or 503 is sent again, honouring Retry-After (default 3)"],
  [
    "CONFORMANCE_RETRY_MAX_WAIT",
    "longest Retry-After in seconds the suite waits out (default 10; longer ends the retries)",
  ],
  [
    "CONFORMANCE_REQUEST_TIMEOUT",
    `seconds one request may take, its answer read whole, before its check fails (default ${DEFAULT_REQUEST_TIMEOUT_SECONDS}); a target that stopped answering is not waited for again`,
  ],
  [
    "CONFORMANCE_MAX_ANSWER_BYTES",
    `the largest answer in bytes the suite reads (default ${DEFAULT_MAX_ANSWER_BYTES}, 64 MiB); a larger one fails its check, unread`,
  ],
  ["CONFORMANCE_REPORTS_DIR", "where the reports go (default ./reports/conformance of the current directory)"],
  ["CONFORMANCE_CONTROL_TOKEN", "the control token of a bawa mock that listens on a non-loopback address (its clock)"],
  [
    "CONFORMANCE_CONFIG",
    "a YAML or JSON file with these settings, keys without the CONFORMANCE_ prefix (a flag, then a variable, wins over it; paths are read from the current directory)",
  ],
  [
    "CONFORMANCE_CONTRACT",
    "the OpenAPI document of the target (default: BAWA_CONTRACT's, the one bawa mock serves, else the project's): its resources are what the generic checks check",
  ],
];

/**
 * The settings of the whole run, not of one target, each with why: read once for the run (by the
 * command, Playwright's configuration, the reporters, or a module every target's checks share).
 * Under a target of a config file (`targets.<name>`) they are refused, naming them, where they
 * would be ignored. (CONFIG is no file's at all.)
 */
export const RUN_SETTINGS: Readonly<Record<string, string>> = {
  CONFORMANCE_CONTRACT: "the checks are registered once, from one contract",
  CONFORMANCE_STRICT: "one gate judges the run",
  CONFORMANCE_REPORTS_DIR: "the run writes one folder of reports, each target's in it",
  CONFORMANCE_WORKERS: "the workers take target after target",
  CONFORMANCE_SEED: "the generated invalid bodies are drawn once for the run",
  CONFORMANCE_RUNS: "the generated invalid bodies are drawn once for the run",
};

/** What a setting is for, as --help says it: the words a message that needs it uses too. */
export const meaningOf = (name: string): string | undefined => VARIABLES.find(([n]) => n === name)?.[1];

/** The settings of the application the suite signs in with; a message that needs them names the missing ones. */
export const CLIENT_SETTINGS: readonly string[] = [
  "CONFORMANCE_CLIENT_ID",
  "CONFORMANCE_CLIENT_SECRET",
  "CONFORMANCE_REDIRECT_URI",
];

/** The settings of `names` that are not set (an empty value is none). */
export const missingOf = (t: Pick<Target, "settings">, names: readonly string[]): string[] =>
  names.filter((n) => !t.settings[n]);

/**
 * What a check that needs settings says when some are missing: each missing one by name, with
 * what it is for (its own words of --help, or `hint` for all of them); undefined when none is.
 */
export function needs(what: Record<string, unknown>, hint?: string): string | undefined {
  const missing = Object.keys(what).filter((k) => what[k] === undefined || what[k] === "");
  if (missing.length === 0) return undefined;
  if (hint) return `needs ${missing.join(", ")} (${hint})`;
  return `needs ${missing.map((n) => `${n} (${meaningOf(n) ?? "see bawa conformance --help"})`).join(", ")}`;
}

export class ConfigError extends Error {
  override name = "ConfigError";
}

/**
 * Reads the settings: each from the environment, else from the file named by CONFORMANCE_CONFIG
 * (`bawa conformance` has put its flags in the environment first: a flag, then the environment,
 * then the file).
 */
export function readSettings(env: NodeJS.ProcessEnv = process.env): Record<string, string | undefined> {
  const file = fileSettings(env);
  const out: Record<string, string | undefined> = {};
  for (const [name] of VARIABLES) out[name.replace(/^CONFORMANCE_/, "")] = givenOver(env[name], file[name]);
  return out;
}

/**
 * A variable's value over the config file's: an empty variable is none (a CI template that lists a
 * variable without a value), so it does not hide the file's value, and `STRICT: 1` stays strict.
 */
export const givenOver = (variable: string | undefined, file: string | undefined): string | undefined =>
  variable === undefined || variable === "" ? (file ?? variable) : variable;

/**
 * The settings the file named by CONFORMANCE_CONFIG gives at its top level, as CONFORMANCE_*
 * variables: only those it has (its `targets:` are each target's own: configTargets). A key that
 * is no setting, or one a file can not give, is refused, naming it: ignored, it would leave its
 * setting unset without a word, and the run would check less or gate otherwise than written.
 */
export function fileSettings(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const path = env.CONFORMANCE_CONFIG;
  if (!path) return {};
  const file = configFile(path);
  const unknown = Object.keys(file).filter(
    (k) =>
      !FILE_KEYS.has(k) && !(k === k.toLowerCase() && FILE_KEYS.has(k.toUpperCase())) && k.toUpperCase() !== "TARGETS",
  );
  if (unknown.length > 0) {
    throw new ConfigError(
      `CONFORMANCE_CONFIG ${path}: unknown setting${unknown.length > 1 ? "s" : ""} ${unknown.map(unknownKey).join(", ")}; the settings are those of bawa conformance --help, without the CONFORMANCE_ prefix`,
    );
  }
  const out: Record<string, string> = {};
  for (const [name] of VARIABLES) {
    const key = name.replace(/^CONFORMANCE_/, "");
    const value = settingValue(path, key, file[key] ?? file[key.toLowerCase()]);
    if (value !== undefined) out[name] = value;
  }
  if (out.CONFORMANCE_CONFIG !== undefined) throw new ConfigError(`CONFORMANCE_CONFIG ${path}: ${CONFIG_IN_FILE}`);
  return out;
}

/** Why a config file can not name a config file. */
const CONFIG_IN_FILE = "CONFIG can not be given in a config file: CONFORMANCE_CONFIG or --config names the one file";

/** The settings of a config file as parsed: a mapping of keys to values. */
function configFile(path: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = parseYaml(readFileSync(path, "utf8")) ?? {};
  } catch (err) {
    throw new ConfigError(`cannot read CONFORMANCE_CONFIG ${path}: ${(err as Error).message}`);
  }
  if (typeof parsed !== "object" || Array.isArray(parsed))
    throw new ConfigError(`CONFORMANCE_CONFIG ${path}: must map settings to values (BASE_URL: https://...)`);
  return parsed as Record<string, unknown>;
}

/**
 * A value of a config file as the variable would hold it: YAML's numbers and booleans as written
 * (`STRICT: true` is "true"), a list as its items with commas (`KINDS: [spec, oauth]`).
 */
function settingValue(path: string, key: string, value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (Array.isArray(value) && value.every((v) => typeof v !== "object" || v === null)) return value.join(",");
  if (typeof value === "object")
    throw new ConfigError(
      `CONFORMANCE_CONFIG ${path}: ${key} must be one value (a word, a number, a list), not a mapping`,
    );
  return String(value);
}

/**
 * The named targets of a config file (`targets: { test: { BASE_URL: ... }, prod: { ... } }`), each
 * with the settings it has of its own, as CONFORMANCE_* variables; the file's other keys are
 * shared by every target. None when the file names none.
 */
export function configTargets(
  env: NodeJS.ProcessEnv = process.env,
): Array<{ name: string; settings: Record<string, string> }> {
  const path = env.CONFORMANCE_CONFIG;
  if (!path) return [];
  fileSettings(env); // the file's own errors first
  const file = configFile(path);
  const targets = file.targets ?? file.TARGETS;
  if (targets === undefined) return [];
  if (typeof targets !== "object" || targets === null || Array.isArray(targets))
    throw new ConfigError(
      `CONFORMANCE_CONFIG ${path}: targets must map names to settings (test: { BASE_URL: https://... })`,
    );
  return Object.entries(targets as Record<string, unknown>).map(([name, own]) => {
    if (typeof own !== "object" || own === null || Array.isArray(own))
      throw new ConfigError(`CONFORMANCE_CONFIG ${path}: targets.${name} must map settings to values`);
    const settings: Record<string, string> = {};
    for (const [k, v] of Object.entries(own as Record<string, unknown>)) {
      const key = k.toUpperCase().replace(/^CONFORMANCE_/, "");
      if (!FILE_KEYS.has(key))
        throw new ConfigError(`CONFORMANCE_CONFIG ${path}: targets.${name}: unknown setting ${unknownKey(k)}`);
      if (key === "CONFIG") throw new ConfigError(`CONFORMANCE_CONFIG ${path}: targets.${name}: ${CONFIG_IN_FILE}`);
      const why = RUN_SETTINGS[`CONFORMANCE_${key}`];
      if (why !== undefined)
        throw new ConfigError(
          `CONFORMANCE_CONFIG ${path}: targets.${name}: ${k} is a setting of the whole run (${why}); give it at the top of the file`,
        );
      const value = settingValue(path, `targets.${name}.${k}`, v);
      if (value !== undefined) settings[`CONFORMANCE_${key}`] = value;
    }
    return { name, settings };
  });
}

/** The keys a config file may hold: the settings without the CONFORMANCE_ prefix (also in lower case). */
const FILE_KEYS = new Set(VARIABLES.map(([n]) => n.replace(/^CONFORMANCE_/, "")));

/** An unknown key of a config file, with the known key it is nearest to, if one is near. */
function unknownKey(key: string): string {
  const upper = key.toUpperCase();
  const unprefixed = upper.replace(/^CONFORMANCE_/, "");
  let near: string | undefined;
  if (unprefixed !== upper && FILE_KEYS.has(unprefixed)) near = unprefixed;
  else {
    let best = 3;
    for (const known of FILE_KEYS) {
      const d = editDistance(upper, known);
      if (d < best) [best, near] = [d, known];
    }
  }
  return `${key}${near ? ` (did you mean ${near}?)` : ""}`;
}

/** Levenshtein distance: the fewest letters to insert, delete or replace to turn a into b. */
function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++)
      next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}

/**
 * The own mock's run has a mock per worker (`bawa conformance` starts them): a check that moves one
 * mock's clock then moves no other worker's tokens. This variable lists each mock's settings (its
 * address and refresh token), over the run's; a worker takes the one of its parallel index.
 */
export const OWN_MOCKS_VARIABLE = "CONFORMANCE_OWN_MOCKS";

/** The settings of each own mock of the run; none when it checks a target of its own. */
export function ownMocks(env: NodeJS.ProcessEnv = process.env): Array<Record<string, string>> {
  const raw = env[OWN_MOCKS_VARIABLE];
  return raw ? (JSON.parse(raw) as Array<Record<string, string>>) : [];
}

/** The settings of this worker's own mock, or none when the run has no own mocks. */
export function ownMockOfWorker(parallelIndex: number, env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const mocks = ownMocks(env);
  return mocks.length > 0 ? mocks[parallelIndex % mocks.length]! : {};
}

export function loadTarget(env: NodeJS.ProcessEnv = process.env): Target {
  const s = readSettings(env);
  if (!s.BASE_URL)
    throw new ConfigError("CONFORMANCE_BASE_URL is not set: the address of the environment, without /v<version>");
  let base: URL;
  try {
    base = new URL(s.BASE_URL);
  } catch {
    throw new ConfigError(`CONFORMANCE_BASE_URL is not a URL: ${s.BASE_URL}`);
  }
  if (/\/[vV]\d+\/?$/.test(base.pathname))
    throw new ConfigError(
      `CONFORMANCE_BASE_URL must not end with the version segment (${base.pathname}); set CONFORMANCE_API_VERSION instead`,
    );
  const apiVersion = (s.API_VERSION ?? "1").replace(/^[vV]/, "");
  if (!/^\d+$/.test(apiVersion)) throw new ConfigError(`CONFORMANCE_API_VERSION must be digits, not ${s.API_VERSION}`);
  const kinds = new Set(
    (s.KINDS ?? "spec,oauth")
      .split(",")
      .map((k) => k.trim())
      .filter(Boolean),
  );
  for (const k of kinds)
    if (!KINDS.includes(k as Kind))
      throw new ConfigError(`CONFORMANCE_KINDS: unknown kind ${k} (spec, oauth, assumption)`);
  const client = (id?: string, secret?: string, uri?: string): Client | undefined =>
    id && secret && uri ? { clientId: id, clientSecret: secret, redirectUri: uri } : undefined;
  const yes = (v?: string) => v === "1" || v === "true" || v === "yes";
  const t: Target = {
    baseUrl: base.href.replace(/\/$/, ""),
    apiVersion,
    database: s.DATABASE ?? "DEMO",
    selectors: {
      username: s.SELECTOR_USERNAME ?? 'input[name="username"]',
      password: s.SELECTOR_PASSWORD ?? 'input[name="password"]',
      submit: s.SELECTOR_SUBMIT ?? 'button[type="submit"]',
      allow: s.SELECTOR_ALLOW ?? 'button[name="decision"][value="allow"]',
      deny: s.SELECTOR_DENY ?? 'button[name="decision"][value="deny"]',
    },
    kinds: kinds as Set<Kind>,
    waitForExpiry: yes(s.WAIT_FOR_EXPIRY),
    catchRedirects: yes(s.CATCH_REDIRECTS),
    caseInsensitiveNames: yes(s.CASE_INSENSITIVE_NAMES),
    acceptDateFormats: dateFormats(s.ACCEPT_DATE_FORMATS),
    namePrefix: s.NAME_PREFIX ?? "Conformance",
    readOnly: yes(s.READ_ONLY),
    browser: onOff("CONFORMANCE_BROWSER", s.BROWSER, true),
    retries: {
      times: count("CONFORMANCE_RETRIES", s.RETRIES, 3, 10),
      maxWaitSeconds: count("CONFORMANCE_RETRY_MAX_WAIT", s.RETRY_MAX_WAIT, 10, 60),
    },
    explore: {
      steps: count("CONFORMANCE_EXPLORE_STEPS", s.EXPLORE_STEPS, DEFAULT_EXPLORE_STEPS, 1_000_000),
      seconds: count("CONFORMANCE_EXPLORE_SECONDS", s.EXPLORE_SECONDS, 30, 86_400, 1),
      // A fixed seed by default: two runs of one target explore alike, and the fault matrix's verdicts do not vary.
      seed: count("CONFORMANCE_EXPLORE_SEED", s.EXPLORE_SEED, 1, 2 ** 31 - 1),
      ...(s.EXPLORE_PATH ? { path: s.EXPLORE_PATH } : {}),
    },
    requestTimeoutMs:
      count("CONFORMANCE_REQUEST_TIMEOUT", s.REQUEST_TIMEOUT, DEFAULT_REQUEST_TIMEOUT_SECONDS, 3600, 1) * 1000,
    screenTimeoutMs: count("CONFORMANCE_SCREEN_TIMEOUT_MS", s.SCREEN_TIMEOUT_MS, DEFAULT_SCREEN_TIMEOUT_MS, 600_000, 1),
    maxAnswerBytes: count("CONFORMANCE_MAX_ANSWER_BYTES", s.MAX_ANSWER_BYTES, DEFAULT_MAX_ANSWER_BYTES, 2 ** 31, 1024),
    settings: Object.fromEntries(Object.entries(s).map(([k, v]) => [`CONFORMANCE_${k}`, v])),
  };
  if (!t.browser && env.CONFORMANCE_TRACE === "1")
    throw new ConfigError(
      "CONFORMANCE_TRACE=1 records every check in a browser context of its own; it can not be combined with CONFORMANCE_BROWSER=0",
    );
  if (!/^[\p{L}\p{N} ._-]{1,24}$/u.test(t.namePrefix)) {
    throw new ConfigError(
      `CONFORMANCE_NAME_PREFIX must be 1 to 24 letters, digits, spaces, dots, dashes or underscores, not ${JSON.stringify(t.namePrefix)}`,
    );
  }
  const main = client(s.CLIENT_ID, s.CLIENT_SECRET, s.REDIRECT_URI);
  if (main) t.client = main;
  const second = client(s.SECOND_CLIENT_ID, s.SECOND_CLIENT_SECRET, s.SECOND_REDIRECT_URI);
  if (second) t.second = second;
  if (s.PENDING_CLIENT_ID && s.PENDING_REDIRECT_URI)
    t.pending = { clientId: s.PENDING_CLIENT_ID, redirectUri: s.PENDING_REDIRECT_URI };
  for (const [key, prop] of [
    ["SCOPE", "scope"],
    ["USERNAME", "username"],
    ["PASSWORD", "password"],
    ["REFRESH_TOKEN", "refreshToken"],
    ["FORBIDDEN_DATABASE", "forbiddenDatabase"],
    ["CONTROL_TOKEN", "controlToken"],
  ] as const) {
    if (s[key]) t[prop] = s[key];
  }
  return t;
}

function count(name: string, value: string | undefined, fallback: number, max: number, min = 0): number {
  if (value === undefined || value === "") return fallback;
  if (!/^\d+$/.test(value) || Number(value) > max || Number(value) < min)
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, not ${JSON.stringify(value)}`);
  return Number(value);
}

/** A setting that is on or off: 1/0, true/false, yes/no; anything else is refused, naming it. */
export function onOff(name: string, value: string | undefined, fallback: boolean): boolean {
  if (value === undefined || value === "") return fallback;
  const v = value.trim().toLowerCase();
  if (["1", "true", "yes"].includes(v)) return true;
  if (["0", "false", "no"].includes(v)) return false;
  throw new ConfigError(`${name} must be 1 or 0 (true/false, yes/no), not ${JSON.stringify(value)}`);
}

function dateFormats(value: string | undefined): Set<"iso" | "dmy"> {
  const out = new Set<"iso" | "dmy">();
  for (const f of (value ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)) {
    if (f !== "iso" && f !== "dmy")
      throw new ConfigError(`CONFORMANCE_ACCEPT_DATE_FORMATS: unknown format ${f} (iso, dmy)`);
    out.add(f);
  }
  return out;
}

/** The API's base address, with the version segment in the spelling asked for. */
export const apiBase = (t: Target, letter: "v" | "V" = "v") => `${t.baseUrl}/${letter}${t.apiVersion}`;

/** A path of the contract on the target: `{database}` filled in, `{id}` when given, under `/v<version>`. */
export function urlOf(t: Target, op: Operation, id?: string, letter: "v" | "V" = "v"): string {
  let path = op.path;
  if (op.databaseParam) path = path.replace(`{${op.databaseParam}}`, encodeURIComponent(t.database));
  if (op.idParam) path = path.replace(`{${op.idParam}}`, encodeURIComponent(id ?? ""));
  return `${apiBase(t, letter)}${path}`;
}

/** The setting a refused refresh grant may be about, named where the refusal is reported. */
export const STORED_REFRESH_TOKEN = "the stored refresh token (CONFORMANCE_REFRESH_TOKEN)";
/**
 * A stored token the target refuses may be the target's fault or the setting's: the suite can not
 * tell the two apart, so the message names both, and what to do about the second.
 */
export const STALE_SETTING =
  "if that token was revoked, has expired or is another client's, set a fresh one (against a bawa mock: npx bawa refresh-token)";
