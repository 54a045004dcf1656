// The suite's test function and the fixtures every check can use: the target,
// the contract, an API client, the target's clock and the configured user's
// session; `covers` tags a check with the requirements it checks.
import { type Browser, type BrowserContext, test as base, type TestInfo } from "@playwright/test";
import { type CompiledContract, SchemaSet, specView } from "../../src/contract/index.ts";
import { asMonthDayYear } from "../../src/rules/dates.ts";
import { described } from "../../src/rules/names.ts";
import {
  CLIENT_SETTINGS,
  type Client,
  type Kind,
  loadTarget,
  needs,
  ownMockOfWorker,
  type RunTarget,
  TARGETS_VARIABLE,
  type Target,
  targetNameOf,
} from "./config.ts";
import { infoListUrl } from "./customers.ts";
import { DATE_FIELDS, describedFields, type Findings, notCheckedBecause, probe } from "./findings.ts";
import { takeForGone, targetDown } from "./gone.ts";
import {
  type Api,
  apiFor,
  countsText,
  probeTarget,
  REQUESTS_ANNOTATION,
  type Reply,
  send,
  skipOtherSuccess,
  takeCounts,
} from "./http.ts";
import {
  ANSWERS_ANNOTATION,
  COVERAGE_ANNOTATION,
  OBSERVED_ANNOTATION,
  type Observed,
  observeBrowser,
  observedText,
  observeTarget,
  takeCoverage,
  takeObserved,
  takeShapes,
} from "./observed.ts";
import {
  kindTag,
  NO_BROWSER,
  NOT_CHECKED,
  NOT_SELECTED,
  NOT_VERIFIED,
  READ_ONLY,
  requirements,
  requirementTag,
  SUBJECT_ANNOTATION,
  TARGET_DOWN,
  WITHOUT_A_TOKEN,
  WRITES_TAG,
} from "./requirements.ts";
import { resources, suiteContract } from "./resources.ts";
import { BrowserLaunchError, codeOf, isKeptPage, keptPage, resetKeptPage, throughScreens } from "./screens.ts";
import { knowSettings } from "./secrets.ts";
import { formatStepStacksPlainly } from "./stacks.ts";
import { clientParams, codeFlowToken, tokenRequest, userTokens } from "./tokens.ts";

/** Whether every check records a trace in a context of its own (slower; for looking into failures). */
export const TRACE = process.env.CONFORMANCE_TRACE === "1";

export interface Contract {
  compiled: CompiledContract;
  /** Validators of what the service description alone supports (kind spec). */
  spec: SchemaSet;
  /** Validators of the whole contract, assumptions included (kind assumption). */
  full: SchemaSet;
}

/** The target's clock, when it has one a check may move (a bawa mock's POST /__mock/clock). */
export interface TargetClock {
  readonly available: boolean;
  /** Seconds this worker moved it. */
  readonly advanced: number;
  /** Skips the check, saying why, on a target without a movable clock. */
  require(): void;
  advance(seconds: number): Promise<void>;
}

export interface Session {
  /** A valid access token of the configured user, obtained once and renewed when time moved. */
  accessToken(): Promise<string>;
  /** Headers of an authorized JSON request, with a token the target was seen to accept. */
  auth(): Promise<Record<string, string>>;
  /** The same headers, the token untried: for the checks of whether the target accepts it. */
  bare(): Promise<Record<string, string>>;
}

interface WorkerFixtures {
  /** The targets of this run (one, or several in one project: the fault matrix, side by side). */
  runTargets: RunTarget[];
  /**
   * The worker's browser, launched when first asked for, and shared by every target the worker
   * checks: a worker whose checks need none (data checks with a refresh token, as most of the
   * fault matrix's are) starts no Chromium. A launch that failed stays failed for the target's
   * checks (each fails with the same BrowserLaunchError); `renew()`, at the next target, launches
   * again after a failed launch or a browser that went away.
   */
  workerBrowser: WorkerBrowser;
  contract: Contract;
  /** What the worker keeps of the target it checks: made at its first check, let go at the next target's. */
  targetStates: TargetStates;
}

type WorkerBrowser = (() => Promise<Browser>) & { renew(): void };

interface TestFixtures {
  // biome-ignore lint/suspicious/noConfusingVoidType: Playwright's type of a fixture that gives no value
  targetAnswers: void;
  /** The state of the target this check runs against. */
  targetState: TargetState;
  /**
   * The worker's browser for this check's target. In a run that opens no browser
   * (CONFORMANCE_BROWSER=0) asking for it skips the check, saying so.
   */
  launchedBrowser: () => Promise<Browser>;
  /**
   * The browser context the checks of a target share (unless CONFORMANCE_TRACE=1 asks for traces),
   * made when first asked for, as the browser is.
   */
  sharedContext: () => Promise<BrowserContext>;
  target: Target;
  api: Api;
  clock: TargetClock;
  session: Session;
  findings: FindingsFixture;
  flows: SharedFlows;
}

/**
 * What a worker keeps of one target between its checks: the settings read, the token, the walks
 * through the screens, the browser context. Made when the target's first check runs.
 */
interface TargetState {
  name: string;
  target: Target;
  api: Api;
  /** Requirement ids expected to fail on this target (see RunTarget.expectFailures). */
  expectedFailures: readonly string[];
  launchedBrowser: () => Promise<Browser>;
  sharedContext: () => Promise<BrowserContext>;
  clock: () => Promise<TargetClock>;
  session: Session;
  findings: FindingsFixture;
  flows: SharedFlows;
  /** Closes what the target's checks opened (its browser context). */
  close(): Promise<void>;
}

interface TargetStates {
  of(testInfo: TestInfo): TargetState;
}

/** Where an authorization through the screens landed, and which screens it went through. */
export interface Landing {
  landed: URL;
  seen: { login: boolean; permission: boolean };
  state: string;
}

/**
 * Authorizations that several checks look at, each walked once per worker
 * (a walk through the screens costs most of a check's time): the code flow
 * and its exchange, and the implicit flow. Their states carry characters
 * that must be encoded on the way.
 */
export interface SharedFlows {
  code(): Promise<Landing>;
  /** The exchange of the shared code flow's code, its answer. */
  exchange(): Promise<Reply>;
  implicit(): Promise<Landing>;
}

export interface FindingsFixture {
  get(): Promise<Findings>;
  /** Skips the check as not checked because of a finding its result would depend on. */
  require(on: { names?: boolean; dates?: boolean }): Promise<void>;
  /** The described fields of an answer under their table names, dates as month/day/year where accepted. */
  view(value: unknown): Record<string, unknown>;
}

function makeTargetState(
  run: RunTarget,
  { workerBrowser, parallelIndex }: { workerBrowser: () => Promise<Browser>; parallelIndex: number },
): TargetState {
  const target = loadTarget({ ...process.env, ...run.settings, ...ownMockOfWorker(parallelIndex) });
  knowSettings(target.settings);
  const api = apiFor(target);
  // The browser, the shared context and the shared flows are functions, not values: one set up
  // for a check that then skips would stay failed for the target.
  const launchedBrowser = () => {
    needBrowser(target);
    return workerBrowser();
  };
  let context: Promise<BrowserContext> | undefined;
  const sharedContext = () => {
    needBrowser(target);
    context ??= launchedBrowser().then(async (browser) => {
      const made = await browser.newContext();
      // A page of the screens is a request of this target: its CONFORMANCE_REQUEST_TIMEOUT, which
      // a target of a config file may have of its own (the configuration's is the run's).
      made.setDefaultNavigationTimeout(target.requestTimeoutMs);
      observeBrowser(made, target.baseUrl);
      return made;
    });
    // A context that could not be made is made again for the next check (a launch that failed
    // stays failed: the next check fails with the same BrowserLaunchError).
    context.catch(() => (context = undefined));
    return context;
  };
  let clocked: Promise<TargetClock> | undefined;
  const clock = () => {
    clocked ??= targetClock(api, target);
    return clocked;
  };
  const session = targetSession(target, api, launchedBrowser, clock);
  return {
    name: run.name,
    target,
    api,
    expectedFailures: run.expectFailures ?? [],
    launchedBrowser,
    sharedContext,
    clock,
    session,
    findings: targetFindings(target, api, session),
    flows: sharedFlows(target, api, sharedContext),
    close: async () => {
      await context?.then(
        (made) => made.close(),
        () => undefined,
      );
    },
  };
}

/** The target's clock, probed once: whether it has POST /__mock/clock, and how far this worker moved it. */
async function targetClock(api: Api, target: Target): Promise<TargetClock> {
  const url = `${target.baseUrl}/__mock/clock`;
  const headers = target.controlToken ? { "x-bawa-control-token": target.controlToken } : {};
  const probe = await send(api, "GET", url, { headers }).catch(() => undefined);
  const available = probe?.status === 200 && typeof jsonOf(probe)?.now === "string";
  let advanced = 0;
  return {
    available,
    get advanced() {
      return advanced;
    },
    require: () => test.skip(!available, `${NOT_VERIFIED}the target has no GET/POST /__mock/clock to move time`),
    advance: async (seconds) => {
      const res = await send(api, "POST", url, {
        headers: { ...headers, "content-type": "application/json" },
        body: JSON.stringify({ advanceSeconds: seconds }),
      });
      if (res.status !== 200) throw new Error(`moving the target's clock failed: ${res.status} ${res.text}`);
      advanced += seconds;
    },
  };
}

function targetFindings(target: Target, api: Api, session: Session): FindingsFixture {
  const fields = describedFields(suiteContract().doc);
  let probed: Promise<Findings> | undefined;
  const get = () => {
    // A probe that failed (a check skipped for want of a token) is not kept: the next
    // check asks again, so its own skip carries the reason.
    probed ??= session
      .auth()
      .then((auth) => probe(api, target, auth, fields))
      .catch((err: unknown) => {
        probed = undefined;
        throw err;
      });
    return probed;
  };
  return {
    get,
    require: async (on) => {
      const reason = notCheckedBecause(await get(), target, on);
      test.skip(reason !== undefined, reason);
    },
    view: (value) => {
      const out = described(value, fields, target);
      for (const f of DATE_FIELDS) if (f in out) out[f] = asMonthDayYear(out[f]);
      return out;
    },
  };
}

function sharedFlows(target: Target, api: Api, sharedContext: () => Promise<BrowserContext>): SharedFlows {
  const walk = async (responseType: "code" | "token", state: string): Promise<Landing> => {
    // A page of its own, not the check's: a check may be using that one when it asks.
    const context = await sharedContext();
    const page = await context.newPage();
    try {
      await context.clearCookies();
      const seen = { login: false, permission: false };
      return { landed: await throughScreens(page, target, { responseType, state, seen }), seen, state };
    } finally {
      await page.close();
    }
  };
  // Every flow walks the screens: a run without a browser skips each check that asks, saying so.
  const once = <T, A extends unknown[] = []>(make: (...args: A) => Promise<T>) => {
    let made: Promise<T> | undefined;
    return (...args: A) => {
      needBrowser(target);
      made ??= make(...args);
      return made;
    };
  };
  // HTML's special characters too: a server that wrote state into its page escaped sent back &amp;.
  const code = once(() => walk("code", `${LONG_BASE64}+/= ~ünïcode &<>"'`));
  // The code is read in each check that asks (codeOf skips that check when there is none).
  const exchanged = once(async (theCode: string) =>
    tokenRequest(api, target, { grant_type: "authorization_code", code: theCode, ...clientParams(target.client!) }),
  );
  const exchange = async () => exchanged(codeOf((await code()).landed));
  return { code, exchange, implicit: once(() => walk("token", `s/1 2+3 ~é ${LONG_BASE64}`)) };
}

/**
 * The flows' states hold base64 text as the description's example has it, long as an application's
 * own state is (a return address, a nonce): a server that cut state at 100 characters passed states
 * of 48. 360 characters, under 1,000 encoded: within the 2,048 of a query an IIS front takes by default.
 */
const LONG_BASE64 = "eyJyZXR1cm4iOiIvb3JkZXJzP3BhZ2U9MiJ9".repeat(10);

function targetSession(
  target: Target,
  api: Api,
  launchedBrowser: () => Promise<Browser>,
  clock: () => Promise<TargetClock>,
): Session {
  let current: { token: string; at: number; advanced: number } | undefined;
  const obtain = async () => {
    // A check that needs a token but has no settings to get one is not verified, naming them.
    needClient(target);
    test.skip(
      !target.refreshToken && !(target.username && target.password),
      `${NOT_VERIFIED}needs CONFORMANCE_REFRESH_TOKEN, or CONFORMANCE_USERNAME and CONFORMANCE_PASSWORD: ${WITHOUT_A_TOKEN}`,
    );
    // A token the target does not give is the finding of the check of that grant; every
    // check that only needs one is not checked because of it, not failed as well.
    const grant = target.refreshToken ? "TOK-REFRESH" : "TOK-CODE-EXCHANGE";
    let tokens: Awaited<ReturnType<typeof userTokens>> | undefined;
    let why = "";
    try {
      tokens = await userTokens(api, launchedBrowser, target);
    } catch (err) {
      // A step that skipped the check already (no code: AUTHZ-CODE-REDIRECT's) named its reason;
      // a browser that did not start is this machine's failure, not the target's finding.
      if (test.info().expectedStatus === "skipped" || err instanceof BrowserLaunchError) throw err;
      why = String((err as Error).message ?? err).split("\n")[0]!;
    }
    if (tokens && typeof tokens.access_token !== "string") why = "the token response has no access_token";
    test.skip(
      why !== "",
      `${NOT_CHECKED}${/JSON|Unexpected token/.test(why) ? "TOKEN-FORM-BODY" : grant}: no access token could be obtained (${why.slice(0, 200)})`,
    );
    current = { token: tokens!.access_token, at: Date.now(), advanced: (await clock()).advanced };
    return current.token;
  };
  const accessToken = async () => {
    if (!current) return obtain();
    const age = (Date.now() - current.at) / 1000 + ((await clock()).advanced - current.advanced);
    return age > 6000 ? obtain() : current.token;
  };
  // Each token is tried once on a data call before checks use it: a token the target
  // refuses is DATA-BEARER's finding (its check uses the token without this), and the
  // checks that only need one are not checked because of it. When the token came from the
  // stored refresh token and one of the code flow works, the refresh grant is the cause:
  // TOK-REFRESH's finding.
  const tried = new Map<string, string | undefined>();
  const refusedBecause = async (headers: Record<string, string>) => {
    const res = await send(api, "GET", infoListUrl(target), { headers });
    if (res.status !== 401) return undefined;
    const refused = `${res.call} refused the access token (401)`;
    if (target.refreshToken && target.username && target.password) {
      const viaCode = await codeFlowToken(api, launchedBrowser, target);
      const again =
        viaCode === undefined
          ? undefined
          : await send(api, "GET", infoListUrl(target), {
              headers: { ...headers, authorization: `Bearer ${viaCode}` },
            });
      if (again && again.status >= 200 && again.status < 300) {
        return `TOK-REFRESH: ${res.call} refused (401) the access token of the stored refresh token's grant and accepted one of the code flow`;
      }
    }
    return `DATA-BEARER: ${refused}`;
  };
  const auth = async () => {
    const token = await accessToken();
    const headers = { authorization: `Bearer ${token}`, accept: "application/json" };
    if (!tried.has(token)) tried.set(token, await refusedBecause(headers));
    const refused = tried.get(token);
    test.skip(refused !== undefined, `${NOT_CHECKED}${refused}`);
    return headers;
  };
  return {
    accessToken,
    auth,
    bare: async () => ({ authorization: `Bearer ${await accessToken()}`, accept: "application/json" }),
  };
}

// The compiled suite's steps find their line without source-map-support (stacks.ts).
formatStepStacksPlainly(import.meta.url.endsWith(".js"));

/** A fixture that is plumbing: no step of its own in the reports. */
const PLUMBING = { box: "self" } as const;

export const test = base.extend<TestFixtures, WorkerFixtures>({
  runTargets: [[], { option: true, scope: "worker" }],
  workerBrowser: [
    async ({ playwright, browserName, launchOptions }, use) => {
      let launched: Promise<Browser> | undefined;
      let usable = true;
      await use(
        Object.assign(
          () => {
            launched ??= playwright[browserName].launch(launchOptions).then(
              (browser) => {
                browser.on("disconnected", () => (usable = false));
                return browser;
              },
              (err: Error) => {
                usable = false;
                throw new BrowserLaunchError(err);
              },
            );
            return launched;
          },
          {
            renew: () => {
              if (usable) return;
              launched = undefined;
              usable = true;
            },
          },
        ),
      );
      await launched?.then(
        (browser) => browser.close(),
        () => undefined,
      );
    },
    { scope: "worker", timeout: 0 },
  ],
  // Only Playwright's own context fixture (CONFORMANCE_TRACE=1) asks for this one; a check asks for
  // launchedBrowser, which skips it in a run without a browser (loadTarget refuses a traced run
  // without one).
  browser: [async ({ workerBrowser }, use) => use(await workerBrowser()), { scope: "worker", timeout: 0 }],
  contract: [
    async ({}, use) => {
      const compiled = suiteContract();
      await use({ compiled, spec: new SchemaSet(specView(compiled.doc)), full: compiled.answers });
    },
    { scope: "worker" },
  ],
  targetStates: [
    async ({ runTargets, workerBrowser }, use, workerInfo) => {
      // A worker checks a target's checks one after the other, then the next target's: it keeps the
      // state of one (a worker that took over a target's rest starts it afresh).
      let current: TargetState | undefined;
      await use({
        of: (testInfo) => {
          const name = targetNameOf(testInfo.annotations, runTargets);
          if (current?.name === name) return current;
          const run = runTargets.find((t) => t.name === name);
          if (!run) throw new Error(`a check of target ${name}, which this run does not list`);
          void current?.close().catch(() => undefined);
          workerBrowser.renew();
          current = makeTargetState(run, { workerBrowser, parallelIndex: workerInfo.parallelIndex });
          return current;
        },
      });
      await current?.close();
    },
    { scope: "worker" },
  ],
  // The check's target's state, read from the worker's: lookups with no step of their own in the
  // reports (box "self"). A step costs a stack and two messages to the runner, which hands them
  // to every reporter; these were about 40 % of a run's steps.
  targetState: [async ({ targetStates }, use, testInfo) => use(targetStates.of(testInfo)), PLUMBING],
  target: [async ({ targetState }, use) => use(targetState.target), PLUMBING],
  api: [async ({ targetState }, use) => use(targetState.api), PLUMBING],
  clock: async ({ targetState }, use) => use(await targetState.clock()),
  session: [async ({ targetState }, use) => use(targetState.session), PLUMBING],
  findings: [async ({ targetState }, use) => use(targetState.findings), PLUMBING],
  flows: [async ({ targetState }, use) => use(targetState.flows), PLUMBING],
  launchedBrowser: [async ({ targetState }, use) => use(targetState.launchedBrowser), PLUMBING],
  sharedContext: [async ({ targetState }, use) => use(targetState.sharedContext), PLUMBING],
  // A context per check costs a fifth of a second; checks share one, each starting without
  // cookies, pages or routes, as a new browser would. With CONFORMANCE_TRACE=1 every check gets
  // its own context again, which Playwright traces (the HTML report then holds a trace of failures).
  ...(TRACE
    ? {
        context: async ({ context, target }, use) => {
          context.setDefaultNavigationTimeout(target.requestTimeoutMs);
          observeBrowser(context, target.baseUrl);
          await use(context);
        },
      }
    : {
        context: async ({ sharedContext }, use) => {
          const context = await sharedContext();
          await context.clearCookies();
          await use(context);
          await context.unrouteAll({ behavior: "ignoreErrors" });
          for (const page of context.pages()) if (!isKeptPage(page)) await page.close();
        },
        // Checks share a page too (a new one costs Chromium a renderer process), left as a new
        // page would be: without listeners, routes or document.
        page: async ({ context }, use) => {
          const page = await keptPage(context);
          await use(page);
          await resetKeptPage(page);
        },
      }),
  // Before every check: once the target stopped answering, every check after it in the run is
  // not checked, at once, instead of each waiting out its own timeouts. After it: a check of a
  // requirement expected to fail that failed is marked so.
  targetAnswers: [
    async ({ targetState, contract }, use, testInfo) => {
      const { target, api, expectedFailures } = targetState;
      const mayFail = testInfo.tags.some((tag) => expectedFailures.includes(tag.slice(1)));
      observeTarget(targetState.name, contract.compiled, target.kinds);
      await takeObserved();
      await takeCoverage();
      await takeShapes();
      takeCounts();
      testInfo.skip(target.readOnly && testInfo.tags.includes(WRITES_TAG), READ_ONLY);
      // A rule checked on a resource the description does not show is checked at the assumption kind.
      const subject = testInfo.annotations.find((a) => a.type === SUBJECT_ANNOTATION)?.description;
      const assumed = subject === undefined ? undefined : resources().find((r) => r.name === subject)?.assumption;
      testInfo.skip(
        assumed !== undefined && !target.kinds.has("assumption"),
        `${NOT_SELECTED}${subject} rests on ${assumed} (openapi/ASSUMPTIONS.md), not on the description; --assumptions checks it`,
      );
      // The first check to find the target gone says so in the verdict, as every later one: no
      // check fails for it (a stack trace of ours would be all it showed).
      const why = targetDown(target.baseUrl) === undefined ? await probeTarget(api) : undefined;
      if (why) takeForGone(target.baseUrl, `${target.baseUrl} did not answer (${why})`, { before: testInfo.title });
      const gone = targetDown(target.baseUrl);
      testInfo.skip(gone !== undefined, `${TARGET_DOWN} (${gone})`);
      await use();
      // The matrix reporter sums these into the run's request counts (shards included).
      const counts = takeCounts();
      if (counts.requests > 0)
        testInfo.annotations.push({ type: REQUESTS_ANNOTATION, description: countsText(counts) });
      // What the rule layer found in this check's exchanges goes to the matrix, each under its
      // own requirement; one of this check's own requirement (and subject) fails the check.
      const observed = await takeObserved();
      const exercised = await takeCoverage();
      if (Object.keys(exercised).length > 0)
        testInfo.annotations.push({ type: COVERAGE_ANNOTATION, description: JSON.stringify(exercised) });
      const answers = await takeShapes();
      if (answers.length > 0)
        testInfo.annotations.push({ type: ANSWERS_ANNOTATION, description: JSON.stringify(answers) });
      const own: string[] = [];
      for (const o of observed) {
        const { requirement, resource, where, expected, found, kind } = o;
        const travels: Observed = { requirement, where, expected, found, kind, ...(resource ? { resource } : {}) };
        testInfo.annotations.push({ type: OBSERVED_ANNOTATION, description: JSON.stringify(travels) });
        const mine = testInfo.tags.includes(requirementTag(requirement)) && (!subject || subject === resource);
        if (mine) own.push(`${requirement} ${observedText(o)}`);
      }
      if (own.length > 0 && testInfo.status === "passed" && !mayFail) {
        throw new Error(`observed: in this check's exchanges, ${[...new Set(own)].join("; ")}`);
      }
      // Marked only once it failed: Playwright starts a new worker (Node.js, the suite's modules,
      // the contract: 2.5 to 3 CPU-s) after every check whose status is not the expected one, and
      // most faults break some checks of a requirement, not all (a replacement's validation
      // fails PUT's checks of A-INVALID-BODIES, not POST's). Marked before it ran, every check that
      // passed took a new worker: 19 for that fault alone. A verdict comes from each check's
      // own status either way.
      if (mayFail && testInfo.status === "failed") testInfo.fail();
    },
    { auto: true, ...PLUMBING },
  ],
});

export const expect = test.expect;

const registrations: Array<() => void> = [];

/**
 * A check file's checks: `checks(() => { test(...); ... })`. In a run of one target they are
 * registered at once; in a run of several (CONFORMANCE_TARGETS), once per target by
 * checks/every-target.spec.ts, inside that target's group. What the checks of a file keep between
 * them belongs inside the function, so each target has its own.
 */
export function checks(register: () => void): void {
  if (process.env[TARGETS_VARIABLE] === undefined) register();
  else registrations.push(register);
}

/** The check files' registrations a run of several targets repeats per target (checks()). */
export const registeredChecks = (): ReadonlyArray<() => void> => registrations;

/**
 * The call succeeded: 200. Another 2xx is ERR-200's finding, reported once by its own check;
 * a check that only needs the call to succeed is then not checked because of it.
 */
export function expectSucceeded(res: { status: number; call: string }, message: string = res.call): void {
  skipOtherSuccess(res);
  expect(res.status, message).toBe(200);
}

const jsonOf = (r: Reply): { now?: unknown } | undefined => {
  try {
    return r.json();
  } catch {
    return undefined;
  }
};

/**
 * The details of a check of the requirements `ids` (of requirements.yaml):
 * `test(title, covers("ERR-200"), body)`. All ids of one check are of one
 * kind; the check carries that kind's tag, which is what CONFORMANCE_KINDS selects.
 */
export function covers(...ids: string[]): { tag: string[] } {
  const all = requirements();
  const kinds = new Set<Kind>();
  for (const id of ids) {
    const r = all.get(id);
    if (!r) throw new Error(`a check covers ${id}, which conformance/requirements.yaml does not list`);
    kinds.add(r.kind);
  }
  if (kinds.size !== 1) {
    throw new Error(
      `a check of ${ids.join(", ")} mixes kinds (${[...kinds].join(", ")}); split it so kind selection stays exact`,
    );
  }
  return { tag: [kindTag([...kinds][0]!), ...ids.map(requirementTag)] };
}

/** Like covers, for a check that creates, changes or deletes customers: a read-only run leaves it out. */
export function coversWriting(...ids: string[]): { tag: string[] } {
  return { tag: [...covers(...ids).tag, WRITES_TAG] };
}

/** Skips the check, naming what the configuration lacks (config.ts `needs`), unless every value is there. */
export function need(what: Record<string, unknown>, hint?: string): void {
  const reason = needs(what, hint);
  test.skip(reason !== undefined, `${NOT_VERIFIED}${reason}`);
}

/** Skips the check when the run opens no browser (CONFORMANCE_BROWSER=0), saying so. */
export function needBrowser(t: Target): void {
  test.skip(!t.browser, NO_BROWSER);
}

export function needClient(t: Target): Client {
  // From the settings, not t.client (which exists only whole): only the missing parts are named.
  need(
    Object.fromEntries(CLIENT_SETTINGS.map((n) => [n, t.settings[n]])),
    `a registered, active application; ${WITHOUT_A_TOKEN}`,
  );
  return t.client!;
}

export function needLogin(t: Target): Client {
  const client = needClient(t);
  need({ CONFORMANCE_USERNAME: t.username, CONFORMANCE_PASSWORD: t.password, CONFORMANCE_SCOPE: t.scope });
  return client;
}
