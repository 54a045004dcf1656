// The proxy in front of the mock, once per switch of src/mock/faults/: the
// planted drifts. A session that gives every rule a chance to be broken runs
// through the proxy; for each fault an exchange can show, the proxy must report
// exactly the requirements the fault breaks, and nothing in front of the mock
// without faults. The faults no exchange can show are listed with the reason,
// as the suite's profile of Prism lists what a stateless mock can not pass.
// The suite's own judging (conformance/lib/observed.ts) is fed the same
// exchanges in the same order and must reach the same verdict under each switch.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { observe, observeTarget, takeObserved } from "../../conformance/lib/observed.ts";
import { requirements } from "../../conformance/lib/requirements.ts";
import { FAULTS, TOLERATED } from "../mock/faults/index.ts";
import type { BawaMock } from "../mock/index.ts";
import type { RunningProxy } from "./node.ts";
import { everyRule, mockBehindProxy, seedSession } from "./testing.ts";

/** Faults no exchange (nor a session of them) can show, and why. */
const NOT_SHOWN: Record<string, string> = {
  "redirect-unregistered": "the proxy does not know the registered redirect URIs: any one may be registered",
  "pending-client-allowed": "the proxy does not know which applications are active",
  "implicit-token-rejected":
    "a token refused on its first call can not be told from one refused for a database its user may not open",
  "valid-tokens-refused": "the same: a token that never worked can not be told from one not meant for that database",
  "permission-skipped": "which page is the permission screen is an assumption (A-SCREEN-PATHS)",
  "csrf-off": "which form fields carry the anti-forgery value is the service's own",
  "unknown-path-200": "the service has resources the description does not show: an unknown path may be one of them",
  "unknown-method-200":
    "a method a path does not have answered 404 is an assumption (A-UNKNOWN-METHOD): the description's 404 is for a call that does not exist, and the service has operations it does not show",
  "errors-always-json":
    "the shape and format of an error body are assumptions (A-ERROR-BODY), which the judge does not hold answers to",
  "bad-bodies-500": "a 500 for a body of the wrong type breaks an assumption (A-INVALID-BODIES), not the description",
  "values-fitted":
    "a text cut to its maxLength or an enum value replaced breaks assumptions (A-INVALID-BODIES, A-LIMITS)",
  "required-not-enforced":
    "the customer's required Name is an assumption (A-REQUIRED); the judge holds a team's resource to its required properties (SVC-REQUIRED), and this contract has none",
  "replacements-not-validated":
    "a PUT's text cut or enum value replaced breaks an assumption (A-INVALID-BODIES), its customer's Name left out another (A-REQUIRED); this contract has no team's resource",
  "xml-unreadable-text-dropped":
    "a value dropped from an XML body shows only to a client that knows what it sent: the judge does not yet compare what an XML body sent with what a later read shows",
  "unparsed-replacements-500":
    "a 500 for a replacement that is not a document breaks an assumption (A-INVALID-BODIES), as bad-bodies-500's does",
  "put-keeps-omitted":
    "the default of a property a PUT leaves out is not shown: the value it had before may be its default",
  // Faults of sequences (issue 32): what they break shows only against a model of every write and
  // read, which the suite's exploration keeps and the judge does not.
  "stale-list":
    "a list's content follows every write, also those that did not pass the proxy: the judge keeps no model of it",
  "xml-booleans-ignored": "the judge does not yet compare what an XML body sent with what a later read shows",
};
/**
 * Requirements a fault breaks on some contract, but not on this one: the faults
 * matrix of npm test runs on a contract with a second resource.
 */
const NOT_ON_THIS_CONTRACT: Record<string, string> = {
  "SVC-FIELDS":
    "the only objects besides the customer's are AdministrationInfo, an assumption whose fields the description does not show (specView loosens them)",
};
/** Requirements a fault declares that one exchange of the customer shows under another of them. */
const SHOWN_AS_ANOTHER: Record<string, string[]> = {
  // A PUT that changed nothing is judged under CUST-UPDATE-ID, the customer's own rule; the suite
  // fails SVC-METHODS for it too (its lifecycle check reads the change back).
  "put-ignored": ["SVC-METHODS"],
};
/** What else a fault's exchanges show, each a real violation of its own. */
const ALSO_SHOWN: Record<string, string[]> = {
  // Its access token is the word "broken": 6 characters can not carry 128 bits.
  "refresh-broken": ["OAUTH-TOKEN-ENTROPY"],
  // It rounds the JSON form only: JSON and XML of one customer differ.
  "decimals-rounded": ["SVC-FORMATS"],
  // A path without the version segment is one of the unknown paths it answers 200.
  "unknown-path-200": ["VER-PATH"],
};

let mock: BawaMock;
let proxy: RunningProxy;
let close: () => Promise<void>;

// The suite judges the exchanges it makes with the judge the proxy runs (conformance/lib/observed.ts):
// it is fed every exchange the proxy judges, in the same order, and must find the same rules broken.
let suiteSaw: Promise<string[]> = Promise.resolve([]);
let suiteJudge: ReturnType<typeof observeTarget>;

beforeAll(async () => {
  ({ mock, proxy, close } = await mockBehindProxy());
  suiteJudge = observeTarget("the proxy's exchanges", mock.ctx.contract, ["spec", "oauth"]);
  const judge = proxy.judge.judge.bind(proxy.judge);
  proxy.judge.judge = (ex) => {
    void observe(ex);
    return judge(ex);
  };
});
afterAll(() => close?.());

/** The session through the proxy with `switches` on; the requirement ids of every violation it saw. */
async function violationsWith(switches: readonly string[]): Promise<string[]> {
  mock.scenarios.reset();
  // A reset the proxy does not see: it forgets the objects as it does when one passes through it,
  // since the store gives the same ids again.
  mock.ctx.store.reset();
  proxy.judge.memory.forgetObjects();
  suiteJudge.memory.forgetObjects();
  for (const name of switches) mock.scenarios.set(name, true);
  const after = proxy.log.since(0).at(-1)?.id ?? 0;
  await takeObserved();
  await everyRule(seedSession(proxy.url));
  const ids = proxy.log.since(after).flatMap((e) => e.violations?.map((v) => v.requirement) ?? []);
  suiteSaw = takeObserved().then((found) => [...new Set(found.map((v) => v.requirement))].sort());
  return [...new Set(ids)].sort();
}

/** The proxy's verdict on a session, after checking that the suite's judging of the same exchanges agrees. */
async function agreed(switches: readonly string[]): Promise<string[]> {
  const proxySaw = await violationsWith(switches);
  expect(await suiteSaw, "the suite's verdict on the proxy's exchanges").toEqual(proxySaw);
  return proxySaw;
}

describe("bawa proxy in front of the mock", () => {
  it("sees no violation when the mock has no fault", async () => {
    expect(await agreed([])).toEqual([]);
    expect(proxy.log.since(0).filter((e) => e.status >= 500)).toEqual([]);
  });

  it.each(FAULTS.filter((f) => !(f.name in NOT_SHOWN)).map((f) => [f.name, f] as const))(
    "sees the fault %s as the requirements it breaks",
    async (name, fault) => {
      const breaks = (fault.breaks ?? []).filter(
        (id) => !(id in NOT_ON_THIS_CONTRACT) && !SHOWN_AS_ANOTHER[name]?.includes(id),
      );
      const want = [...new Set([...breaks, ...(ALSO_SHOWN[name] ?? [])])].sort();
      expect(await agreed([name])).toEqual(want);
    },
  );

  it.each(Object.keys(NOT_SHOWN))("reports nothing false for %s, which no exchange shows", async (name) => {
    expect(await agreed([name])).toEqual(ALSO_SHOWN[name] ?? []);
  });

  it.each(TOLERATED.map((t) => [t.name, t] as const))(
    "reports the tolerated behaviour %s as the suite's verdict does",
    async (name, behaviour) => {
      expect(await agreed([name])).toEqual([...(behaviour.expect?.[0]?.failed ?? [])].sort());
    },
  );

  it("names only requirements of the suite, and knows every fault it lists", () => {
    const known = new Set(requirements().keys());
    const seen = proxy.report.rows().map((r) => r.id);
    expect(seen.filter((id) => !known.has(id))).toEqual([]);
    for (const name of [...Object.keys(NOT_SHOWN), ...Object.keys(ALSO_SHOWN)])
      expect(FAULTS.map((f) => f.name)).toContain(name);
  });
});
