// The one driver of the login and permission screens, used by every check
// that walks them: it opens an authorization request, acts on whatever the
// target shows (login, permission, or straight back), and watches where the
// browser is sent. Nothing leaves the machine: requests to other origins are
// answered by the suite, and a redirect is caught as soon as it is requested.
import { setTimeout as sleep } from "node:timers/promises";
import {
  type BrowserContext,
  type Locator,
  type Page,
  type Request,
  type Response,
  type Route,
  test,
} from "@playwright/test";
import { fragmentOf } from "../../src/rules/oauth.ts";
import { apiBase, type Client, type Target } from "./config.ts";
import { apiFor, failureOf, noAnswer, pageNotLoaded, STALE_CONNECTION, skipIfDown } from "./http.ts";
import { CAUGHT_HEADER, observeCaught } from "./observed.ts";
import { NOT_CHECKED } from "./requirements.ts";
import { learn, learnFromUrl } from "./secrets.ts";

/** Chromium did not start: a failure of the machine the suite runs on, never a finding of the target. */
export class BrowserLaunchError extends Error {
  constructor(cause: Error) {
    super(`the browser could not be started: ${cause.message}`, { cause });
    this.name = "BrowserLaunchError";
  }
}

const kept = new WeakMap<BrowserContext, Page>();

/**
 * The page of a browser context that walks and checks reuse, made again when closed: Chromium
 * starts a renderer process for each new page, which cost a walk through the screens as much
 * again as the walk (decision 0029). One walk at a time uses it (checks run one after another).
 */
export async function keptPage(context: BrowserContext): Promise<Page> {
  const page = kept.get(context);
  if (page && !page.isClosed()) return page;
  const made = await context.newPage();
  kept.set(context, made);
  // A page whose renderer crashed is not closed, but serves nothing: the next one asked for is new.
  made.once("crash", () => {
    if (kept.get(context) === made) kept.delete(context);
  });
  return made;
}

/** The events a check may listen to on a page; Playwright's own close and crash listeners stay. */
const CHECK_EVENTS = [
  "request",
  "response",
  "requestfailed",
  "requestfinished",
  "load",
  "domcontentloaded",
  "framenavigated",
  "frameattached",
  "framedetached",
  "dialog",
  "console",
  "pageerror",
  "popup",
  "download",
  "filechooser",
  "websocket",
  "worker",
] as const;

/** Leaves a kept page as a new one would be: no listeners of a check, no routes, no document. */
export async function resetKeptPage(page: Page): Promise<void> {
  for (const type of CHECK_EVENTS) page.removeAllListeners(type);
  await page.unrouteAll({ behavior: "ignoreErrors" });
  await page.goto("about:blank").catch(() => undefined);
}

/** Whether a page is its context's kept page. */
export const isKeptPage = (page: Page): boolean => kept.get(page.context()) === page;

/**
 * Where a 3xx answer sends the browser: its Location read as Chromium reads it (UTF-8; Node.js
 * gives header values as Latin-1), against the request's address. Undefined for another status,
 * no Location, or one that is no address (the browser then deals with it as it did before).
 */
export function redirectOf(status: number, location: string | undefined, from: string): URL | undefined {
  if (status < 300 || status >= 400 || location === undefined) return undefined;
  try {
    return new URL(Buffer.from(location, "latin1").toString("utf8"), from);
  } catch {
    return undefined;
  }
}

/** Where an authorization request ended. */
export interface Walk {
  /** The first navigation to the redirect URI, caught before it loads. */
  landed?: URL;
  /** Every navigation of the main frame that left the target's origin. */
  left: URL[];
  /** Which screens the browser went through. */
  login: boolean;
  permission: boolean;
  /** The target's pages the browser was shown, with their status and headers. */
  pages: Array<{ url: string; status: number; headers: Record<string, string> }>;
}

export interface WalkOptions {
  /** The redirect URI whose arrival ends the walk. */
  redirectUri?: string | undefined;
  /** What to press on the permission screen; "stay" stops there without pressing. */
  decision?: "allow" | "deny" | "stay";
  /** Log in when the login screen shows (default true). */
  logIn?: boolean;
  /** The password to log in with, where not the target's own (a wrong one, to see it refused). */
  password?: string;
}

/** The network error a navigation the suite fetched for the browser ends with, from why the fetch failed. */
export function abortReason(
  failure: string | undefined,
): "connectionrefused" | "connectionreset" | "timedout" | "failed" {
  if (/ECONNREFUSED/.test(failure ?? "")) return "connectionrefused";
  if (STALE_CONNECTION.test(failure ?? "")) return "connectionreset";
  if (/timeout|timed out/i.test(failure ?? "")) return "timedout";
  return "failed";
}

/** How long a walk waits, after acting on a screen, for what that set off before it looks again. */
const SETTLE_MS = 2_000;

/** Chromium's errors of a page whose server did not answer at all (not one the suite's routes ended). */
const NO_CONNECTION =
  /net::ERR_(CONNECTION_REFUSED|CONNECTION_RESET|CONNECTION_CLOSED|CONNECTION_FAILED|EMPTY_RESPONSE)/;

/**
 * The answer the browser gets where it would have left the target: a 204 commits no document, so
 * the browser stays on the page it was on. A document (the suite's own page, as before) cost
 * Chromium a navigation per walk, about a fifth of a walk's CPU.
 */
const CAUGHT = { status: 204, headers: { [CAUGHT_HEADER]: "1" } } as const;

export const authorizeUrl = (t: Target, params: Record<string, string | undefined>, letter: "v" | "V" = "v") => {
  const url = new URL(`${apiBase(t, letter)}/OAuth/Authorize`);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
  return url.href;
};

/**
 * An address for a message, each query value over 60 characters cut to its first 24 and its
 * length: the flows' 360-character states made every failed walk's message a screenful.
 */
export function withShortValues(address: string): string {
  const u = new URL(address);
  for (const [k, v] of [...u.searchParams])
    if (v.length > 60) u.searchParams.set(k, `${v.slice(0, 24)}…(${v.length} characters)`);
  return u.href;
}

export { fragmentOf };

/**
 * Where a flow's redirect carries its result, errors included (RFC 6749 4.1.2.1, 4.2.2.1): the
 * query for the code flow, the fragment for the token flow; and the other place, which must not.
 */
export const resultParts = (
  back: URL,
  responseType: "code" | "token",
): { result: URLSearchParams; elsewhere: URLSearchParams } =>
  responseType === "code"
    ? { result: back.searchParams, elsewhere: fragmentOf(back) }
    : { result: fragmentOf(back), elsewhere: back.searchParams };

/** Where a walk that did not come back ended, for a message: the browser's address and the last page's status. */
export function whereItEnded(page: Page, walk: Walk): string {
  const shown = walk.pages.at(-1);
  return `the browser is at ${withShortValues(page.url())}${shown ? `, the last page answered ${shown.status}` : ""}`;
}

/** Whether an address carries an authorization result (a code or a token). */
export const carriesGrant = (u: URL) =>
  u.searchParams.has("code") || u.searchParams.has("access_token") || fragmentOf(u).has("access_token");

/**
 * Opens the authorization request `params` and goes through the screens as a
 * person would. Ends when the browser is sent to the redirect URI, when a
 * screen shows an error (a document of status 400 or more with nothing to act
 * on), or when nothing has shown for a while.
 */
export async function walkScreens(
  page: Page,
  t: Target,
  params: Record<string, string | undefined>,
  opts: WalkOptions = {},
): Promise<Walk> {
  const origin = new URL(t.baseUrl).origin;
  const walk: Walk = { left: [], login: false, permission: false, pages: [] };
  let lastNavigation = Date.now();
  let deadEnd = false;
  // A request never carries the fragment the implicit flow answers in; the Location of the
  // redirect that led to it does, so the landing is read from there when there is one.
  let landing: Promise<URL> | undefined;
  // What an action on a screen set off: the next document, or the walk's end (a redirect out,
  // answered without one). A look before it would meet the document going away, a failed step
  // in the reports of a check that passes.
  let moves = 0;
  let moved = () => {};
  const movedOn = () => {
    moves++;
    moved();
  };
  // The request event sees every hop of a redirect chain, which routing does not in Chromium:
  // the redirect is caught here, the moment the browser asks for it.
  const watch = (r: Request) => {
    if (!r.isNavigationRequest() || r.frame() !== page.mainFrame()) return;
    lastNavigation = Date.now();
    const u = new URL(r.url());
    if (u.origin !== origin && u.protocol.startsWith("http")) {
      walk.left.push(u);
      movedOn();
    }
    if (opts.redirectUri && !landing && r.url().startsWith(opts.redirectUri)) {
      const hop = r.redirectedFrom();
      landing = (hop?.response() ?? Promise.resolve(null)).then((res) => {
        const location = res?.headers().location;
        return location ? new URL(location, hop!.url()) : u;
      });
      movedOn();
    }
  };
  const documents = (res: Response) => {
    if (!res.request().isNavigationRequest() || res.frame() !== page.mainFrame()) return;
    if (res.headers()[CAUGHT_HEADER] !== undefined) return;
    deadEnd = res.status() >= 400;
    if (new URL(res.url()).origin === origin)
      walk.pages.push({ url: res.url(), status: res.status(), headers: res.headers() });
  };
  // With CONFORMANCE_CATCH_REDIRECTS (the own mock's runs), a redirect out of the target (to the
  // client, or anywhere else) is caught where the target answers it: the suite fetches the first
  // request of each navigation the browser makes to the target, hands the browser the answer as it
  // came, and answers a redirect out with the suite's 204 (CAUGHT) in its place. Chromium starts two
  // renderer processes for a navigation to another site even when it is caught there, which made
  // a walk cost almost twice as much (decision 0029). Off, the browser sends every request itself
  // (as a person's does: its own Cookie and Sec-Fetch-* headers, which a target may check).
  // The handlers still running, waited for before the walk unroutes: one still fetching when the
  // browser had given up its navigation (a page that timed out) left unrouteAll hanging.
  const inFlight = new Set<Promise<void>>();
  const caughtOut = (route: Route, request: Request): Promise<void> => {
    const handled = catchOut(route, request);
    inFlight.add(handled);
    return handled.finally(() => inFlight.delete(handled));
  };
  const catchOut = async (route: Route, request: Request): Promise<void> => {
    // Longer than the browser's own navigation timeout: a page that does not come fails the walk
    // as a navigation that timed out, as it did when the browser fetched it.
    let failure: string | undefined;
    const fetchIt = () =>
      route.fetch({ maxRedirects: 0, timeout: t.requestTimeoutMs + 5_000 }).catch((err: Error) => {
        failure = err.message;
        return undefined;
      });
    // Once more on a connection the target had closed meanwhile (a kept-alive one), as send() does.
    let answer = await fetchIt();
    if (!answer && abortReason(failure) === "connectionreset") answer = await fetchIt();
    // No answer: the navigation fails as the browser's own would have. Not route.fallback(): after
    // a navigation that had timed out meanwhile, the browser's router never let go of the page
    // (the walk's unrouteAll did not return, a check waited out its whole timeout).
    if (!answer) return route.abort(abortReason(failure)).catch(() => undefined);
    const to = redirectOf(answer.status(), answer.headers().location, request.url());
    if (!to || to.origin === origin) return route.fulfill({ response: answer }).catch(() => undefined);
    observeCaught(request, answer);
    // A page of the target: only its requests are routed here.
    walk.pages.push({ url: answer.url(), status: answer.status(), headers: answer.headers() });
    deadEnd = false;
    lastNavigation = Date.now();
    if (to.protocol.startsWith("http")) walk.left.push(to);
    if (opts.redirectUri && !landing && to.href.startsWith(opts.redirectUri)) landing = Promise.resolve(to);
    movedOn();
    await route.fulfill(CAUGHT).catch(() => undefined);
  };
  page.on("request", watch);
  page.on("response", documents);
  page.on("domcontentloaded", movedOn);
  await page.route(
    (u) => u.origin !== origin,
    (route) => route.fulfill(CAUGHT),
  );
  if (t.catchRedirects) {
    await page.route(
      (u) => u.origin === origin,
      (route, request) =>
        request.isNavigationRequest() && request.frame() === page.mainFrame()
          ? caughtOut(route, request)
          : route.fallback(),
    );
  }
  try {
    let unanswered: string | undefined;
    const first = authorizeUrl(t, params);
    await page.goto(first).catch(async (err: Error) => {
      // A page that never came counts as a request without an answer (a target that stopped
      // answering); if the target is gone, the check ends not checked, as a request's would.
      const why = `the authorization page did not load: ${err.message.split("\n")[0]}`;
      if (err.name === "TimeoutError" && walk.pages.length === 0 && walk.left.length === 0) {
        // Nothing of the target came at all: its own request went unanswered, whatever its base
        // address says (a walk that looked on at a page still loading waited out the screens'
        // idle time, minutes per check against a target whose API hung and whose root answered).
        unanswered = `GET ${new URL(first).pathname}: ${failureOf(err, t.requestTimeoutMs)}`;
        await noAnswer(apiFor(t), unanswered);
        skipIfDown(t.baseUrl);
      } else if (err.name === "TimeoutError" || NO_CONNECTION.test(err.message)) {
        await pageNotLoaded(apiFor(t), why);
        skipIfDown(t.baseUrl);
      }
    });
    if (unanswered) throw new Error(`the authorization page did not load: ${unanswered}`);
    const look = screensLook(page, t, opts.decision === "deny" ? t.selectors.deny : t.selectors.allow);
    while (!landing && Date.now() - lastNavigation < t.screenTimeoutMs) {
      const before = moves;
      const seen = await look({
        logIn:
          !walk.login && opts.logIn !== false && t.username
            ? { user: t.username, password: opts.password ?? t.password ?? "" }
            : undefined,
        decide: !walk.permission && opts.decision !== "stay",
      });
      if (seen.did) {
        if (seen.did === "login") walk.login = true;
        else walk.permission = true;
        // Bounded: a page whose script shows the next screen without a new document is looked at again.
        if (moves === before)
          await new Promise<void>((resolve) => {
            const bound = setTimeout(resolve, SETTLE_MS);
            moved = () => {
              clearTimeout(bound);
              resolve();
            };
          });
        moved = () => {};
      } else if (opts.decision === "stay" && !walk.permission && seen.decide) {
        // The walk ends on the permission screen.
        walk.permission = true;
        break;
      } else if (deadEnd && !landing) {
        // An error page with nothing to act on: give up now rather than wait out the idle time.
        await sleep(150);
        const again = await look({ decide: false });
        if (!again.login && !again.decide) break;
      } else {
        // The suite's own pause: page.waitForTimeout is a call to the browser's driver and a
        // step in the reports, for nothing the browser does.
        await sleep(50);
      }
      if (walk.left.length > 0 && !opts.redirectUri) break;
    }
  } finally {
    page.off("request", watch);
    page.off("response", documents);
    page.off("domcontentloaded", movedOn);
    // Bounded too: each handler's fetch is, but a stuck handler must not bring the hang back.
    await Promise.race([Promise.allSettled([...inFlight]), sleep(t.requestTimeoutMs + 10_000)]);
    await page.unrouteAll({ behavior: "ignoreErrors" });
  }
  // The page stays where the caught redirect left it (a 204 commits no document): the next walk
  // navigates away, and a check's kept page is made blank when the check ends (resetKeptPage).
  // A navigation to about:blank here cost each walk 5–10 % of its Chromium CPU (npm run bench:walk).
  if (landing) walk.landed = await landing;
  // A walk that ended on the browser's own error page got no answer from a page of the target: if
  // the target is gone, the check ends not checked, as one whose request got no answer does.
  if (!walk.landed) {
    if (page.url().startsWith("chrome-error://"))
      await pageNotLoaded(apiFor(t), `a page of the screens did not load (the browser is at ${page.url()})`);
    skipIfDown(t.baseUrl);
  }
  // What the screens handed out, for the run to keep out of its reports: codes and tokens of
  // the redirects, and the target's cookies (a logged-in browser's session).
  for (const u of [walk.landed, ...walk.left]) learnFromUrl(u);
  for (const c of await page
    .context()
    .cookies(t.baseUrl)
    .catch(() => []))
    learn(c.value);
  return walk;
}

/** Errors of a look whose document went away under it. */
const NAVIGATED = /Execution context was destroyed|navigat|closed/i;

/** What a walk asks of the screen in front of it: log in (as whom), press the decision. */
interface Ask {
  logIn?: { user: string; password: string } | undefined;
  decide: boolean;
}

/** Which of the screens' elements are visible, and what was done on them. */
interface Seen {
  login: boolean;
  decide: boolean;
  did?: "login" | "decide";
}

/**
 * Looks at the document in front of the walk and acts on it (logs in, presses the decision) as
 * the walk asks. First from the page's own world, in one call, where the selectors are CSS and
 * find the screens' elements: Playwright's locators inject a script of theirs into each new
 * document and ask it again at every look, which cost a walk about as much as everything else
 * it did (decision 0029). Where the page's world can not read them (a selector of Playwright's
 * own syntax, elements in a shadow root, a page of none of them), Playwright's locators look, as
 * they always did. Either way fields are typed as a person's typing fills them (see fillSecret).
 */
function screensLook(page: Page, t: Target, decideSelector: string): (ask: Ask) => Promise<Seen> {
  const selectors = { username: t.selectors.username, password: t.selectors.password, submit: t.selectors.submit };
  const login = page.locator(selectors.username);
  const decide = page.locator(decideSelector);
  const visible = (l: Locator) => l.isVisible().catch(() => false);
  return async (ask) => {
    const here = await page.evaluate(lookInPage, { ...selectors, decide: decideSelector, ask }).catch((err: Error) =>
      // A document that went away under the look (a navigation): nothing to act on yet. Anything
      // else (a page that breaks the look): the locators look.
      NAVIGATED.test(err.message) ? { login: false, decide: false } : undefined,
    );
    if (here) return here;
    const seen: Seen = { login: await visible(login), decide: await visible(decide) };
    if (ask.logIn && seen.login) {
      await login.fill(ask.logIn.user);
      await fillSecret(page.locator(selectors.password), ask.logIn.password);
      await page.click(selectors.submit).catch(() => undefined);
      seen.did = "login";
    } else if (ask.decide && seen.decide) {
      await decide.click().catch(() => undefined);
      seen.did = "decide";
    }
    return seen;
  };
}

/**
 * Runs in the page (its own world, as its scripts do): what screensLook does there, or
 * undefined when the selectors are no CSS or none of them finds an element (the locators look).
 */
async function lookInPage(a: {
  username: string;
  password: string;
  submit: string;
  decide: string;
  ask: Ask;
}): Promise<Seen | undefined> {
  // Still parsing: the locators look (they see the part parsed so far, as they always did).
  if (document.readyState === "loading") return undefined;
  let find: Record<"username" | "password" | "submit" | "decide", Element | null>;
  try {
    find = {
      username: document.querySelector(a.username),
      password: document.querySelector(a.password),
      submit: document.querySelector(a.submit),
      decide: document.querySelector(a.decide),
    };
  } catch {
    return undefined;
  }
  if (!find.username && !find.decide) return undefined;
  // As Playwright's isVisible(): rendered (checkVisibility, where the browser has it), visible by
  // style, and a box of some size.
  const shown = (el: Element | null): el is HTMLElement => {
    if (!el || (typeof el.checkVisibility === "function" && !el.checkVisibility())) return false;
    if (getComputedStyle(el).visibility !== "visible") return false;
    const box = el.getBoundingClientRect();
    return box.width > 0 && box.height > 0;
  };
  // A disabled button takes no click(): it is pressed at a later look, once the page enables it
  // (as a locator's click waits for that).
  const enabled = (el: Element) => !el.matches(":disabled") && el.getAttribute("aria-disabled") !== "true";
  const seen: Seen = { login: shown(find.username), decide: shown(find.decide) };
  if (a.ask.logIn && seen.login) {
    // The form as the locators would fill it; without its password field or button, they do.
    if (!find.password || !shown(find.submit)) return undefined;
    for (const [field, value] of [
      [find.username, a.ask.logIn.user],
      [find.password, a.ask.logIn.password],
    ] as const) {
      const input = field as HTMLInputElement;
      input.focus();
      const setter = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(input), "value")?.set;
      if (setter) setter.call(input, value);
      else input.value = value;
      input.dispatchEvent(new Event("input", { bubbles: true }));
      input.dispatchEvent(new Event("change", { bubbles: true }));
    }
    // A page's script (a framework's form) may enable its button only once it has seen the
    // input: a turn of its event loop first.
    await new Promise((resolve) => setTimeout(resolve, 0));
    if (!enabled(find.submit)) return seen;
    find.submit.click();
    seen.did = "login";
  } else if (a.ask.decide && seen.decide && find.decide) {
    if (!enabled(find.decide)) return seen;
    (find.decide as HTMLElement).click();
    seen.did = "decide";
  } else if ((a.ask.logIn && !find.username) || (a.ask.decide && !find.decide)) {
    // What the walk asks for is not in the page's world (a shadow root, say): the locators look.
    return undefined;
  }
  return seen;
}

/**
 * Types a secret into a field as fill() would, but without the value in the step's title
 * (Playwright names a fill after its value: `Fill "<password>"` in the report): the value is
 * set through the element's own setter, with the input and change events a person's typing
 * fires, so a page's script (a framework's controlled field) sees it.
 */
async function fillSecret(field: Locator, value: string): Promise<void> {
  await field.focus();
  await field.evaluate((el, v) => {
    const input = el as HTMLInputElement;
    const setter = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(input), "value")?.set;
    if (setter) setter.call(input, v);
    else input.value = v;
    input.dispatchEvent(new Event("input", { bubbles: true }));
    input.dispatchEvent(new Event("change", { bubbles: true }));
  }, value);
}

/**
 * Goes through the screens with the client's registered redirect URI and
 * returns where the browser was sent; throws, saying what happened, when it
 * was not sent back to the client.
 */
export async function throughScreens(
  page: Page,
  t: Target,
  opts: {
    client?: Client;
    responseType: "code" | "token";
    state?: string;
    decision?: "allow" | "deny";
    seen?: { login: boolean; permission: boolean };
  },
): Promise<URL> {
  const client = opts.client ?? t.client!;
  const walk = await walkScreens(
    page,
    t,
    {
      client_id: client.clientId,
      redirect_uri: client.redirectUri,
      scope: t.scope,
      response_type: opts.responseType,
      state: opts.state,
    },
    { redirectUri: client.redirectUri, decision: opts.decision ?? "allow" },
  );
  if (opts.seen) Object.assign(opts.seen, { login: walk.login, permission: walk.permission });
  if (!walk.landed) {
    throw new Error(
      `the browser did not arrive at ${client.redirectUri}; it is at ${withShortValues(page.url())} (${walk.login ? "logged in" : "no login screen found"}, ${walk.permission ? "decided" : "no permission screen found"}: check the selectors, user and password)`,
    );
  }
  return walk.landed;
}

/**
 * The code of a code flow's redirect, for a check that needs one. A code in the fragment instead
 * of the query is AUTHZ-CODE-REDIRECT's finding, reported by its check: the other checks take it
 * from there and go on, so the one drift is one finding. No code at all: not checked because of it.
 */
export function codeOf(landed: URL): string {
  const code = codeIn(landed);
  test.skip(
    !code,
    `${NOT_CHECKED}AUTHZ-CODE-REDIRECT: the code flow's redirect carries no code (${landed.href.slice(0, 150)})`,
  );
  return code!;
}

/** The code in a redirect's query, else in its fragment; undefined when neither has one. */
export const codeIn = (landed: URL): string | undefined =>
  landed.searchParams.get("code") || fragmentOf(landed).get("code") || undefined;

/** Through the screens for a code (response_type=code), which it returns (see codeOf). */
export async function codeThroughScreens(
  page: Page,
  t: Target,
  opts: { client?: Client; state?: string } = {},
): Promise<string> {
  return codeOf(await throughScreens(page, t, { ...opts, responseType: "code" }));
}

/**
 * Opens an authorization request, logs in and allows where screens appear,
 * and returns every address outside the target the browser was sent to.
 */
export async function attemptAuthorization(
  page: Page,
  t: Target,
  params: Record<string, string | undefined>,
): Promise<URL[]> {
  return (await walkScreens(page, t, params, { decision: "allow" })).left;
}
