// The exploration catches a bug only a sequence shows: the mock's fault stale-list (a list
// that keeps what it showed first) planted, the report names the shortest failing sequence
// and its seed, and the same seed finds the same sequence again on a fresh mock.
import { describe, expect, it } from "vitest";
import type { Operation } from "../../src/contract/index.ts";
import { buildMock } from "../../src/mock/index.ts";
import { codeFlowTokens } from "../../src/mock/testing.ts";
import { type ExploreOptions, explore, exploreSubjects, withList } from "./exploration.ts";

const BASE = "http://mock.test";
/** The mock of the last against(): what a run left in it. */
let lastMock: ReturnType<typeof buildMock>;

function against(switches: string[]): Omit<ExploreOptions, "steps"> {
  const mock = buildMock({ switches });
  lastMock = mock;
  const contract = mock.ctx.contract;
  const model = contract.resources;
  const lists = [...model.resources.values()].flatMap((r) => r.operations.filter((o) => o.action === "list"));
  const subjects = exploreSubjects(
    contract,
    [...model.resources].filter(([, r]) => r.kind === "editable").map(([name, r]) => [name, r.operations]),
  ).map((s) => withList(s, lists));
  let n = 0;
  return {
    contract,
    subjects,
    auth: { authorization: `Bearer ${codeFlowTokens(mock).access_token}` },
    xml: true,
    urlOf: (op: Operation, id?: string) => {
      let path = op.path;
      if (op.databaseParam) path = path.replace(`{${op.databaseParam}}`, "DEMO");
      if (op.idParam) path = path.replace(`{${op.idParam}}`, encodeURIComponent(id ?? ""));
      return `${BASE}/v1${path}`;
    },
    send: async (req) => {
      const url = req.url.slice(BASE.length);
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k.toLowerCase(), v]));
      const res = mock.handle({ method: req.method, url, headers, body: req.body ? Buffer.from(req.body) : undefined });
      return { status: res.status, text: res.body ?? "" };
    },
    // Names that do not depend on the run, so two runs of one seed send the same bodies.
    name: () => `Explore ${String(++n).padStart(8, "0")}`,
  };
}

describe("model-based exploration", () => {
  it("passes the mock as it is", async () => {
    const outcome = await explore({ ...against([]), steps: 300, seed: 42 });
    expect(outcome.report).toMatch(/as the model says/);
    expect(outcome.ok).toBe(true);
    expect(outcome.steps).toBeGreaterThan(50);
  });

  it("finds a list that misses objects created after it first answered, shrunk to the shortest sequence, with its seed", async () => {
    const first = await explore({ ...against(["stale-list"]), steps: 300, seed: 42 });
    expect(first.ok).toBe(false);
    // The shortest sequence: one object created, then a list without it (the list of an
    // earlier sequence is the one kept).
    expect(first.sequence?.map((s) => s.kind)).toEqual(["create", "list"]);
    expect(first.report).toMatch(
      /^the shortest failing sequence \(2 steps, 2 requests\), seed 42, .*; at its end GET .*it misses/,
    );
    expect(first.report).toMatch(/ {2}1\. POST \/v1\/api\/DEMO\/Customer [{<]/);
    expect(first.report).toMatch(
      / {2}2\. GET \/v1\/api\/DEMO\/CustomerInfoList\n {5}seen: {5}200 [\s\S]*expected: .*it misses/,
    );
    expect(first.report).toMatch(/replay: CONFORMANCE_EXPLORE_SEED=42/);

    // The same seed on a fresh mock: the same sequence, the same requests.
    const again = await explore({ ...against(["stale-list"]), steps: 300, seed: 42 });
    expect(again.sequence).toEqual(first.sequence);
    expect(again.lines?.map((l) => `${l.method} ${l.path}`)).toEqual(first.lines?.map((l) => `${l.method} ${l.path}`));
  });

  it("finds a PUT that keeps the old value of a property its body left out (the default is due)", async () => {
    const outcome = await explore({ ...against(["put-keeps-omitted"]), steps: 240, seed: 1 });
    expect(outcome.ok).toBe(false);
    expect(outcome.sequence?.map((s) => s.kind)).toContain("replace");
    expect(outcome.report).toMatch(/differs from the model in /);
    // Every sequence's objects are removed, the failing ones' and the shrinking's tries' included.
    const auth = { authorization: `Bearer ${codeFlowTokens(lastMock).access_token}`, accept: "application/json" };
    const list = lastMock.handle({
      method: "GET",
      url: "/v1/api/DEMO/CustomerInfoList",
      headers: auth,
      body: undefined,
    });
    expect(String(list.body)).toContain("CustomerId");
    expect(String(list.body)).not.toContain("Explore ");
  });
});
