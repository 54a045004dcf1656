// Model-based exploration (lib/exploration.ts): random sequences of create, read, replace,
// delete and list over the contract's editable resources, in JSON and XML, compared with a
// model of the description after every step. A failure is the shortest sequence fast-check
// could shrink it to, as numbered requests, with the seed that replays it. Its budget:
// CONFORMANCE_EXPLORE_STEPS (--explore-steps), CONFORMANCE_EXPLORE_SECONDS.
import { explore, exploreSubjects, withList } from "../lib/exploration.ts";
import { send } from "../lib/http.ts";
import { NOT_SELECTED } from "../lib/requirements.ts";
import { resources, uniqueName, urlOf } from "../lib/resources.ts";
import { checks, coversWriting, expect, test } from "../lib/test.ts";

checks(() => {
  test(
    "random sequences of create, read, replace, delete and list answer as the model of the description says",
    coversWriting("SVC-MODEL"),
    async ({ api, target, session, contract }) => {
      test.skip(target.explore.steps === 0, `${NOT_SELECTED}CONFORMANCE_EXPLORE_STEPS is 0`);
      const auth = await session.auth();
      const lists = resources("list").flatMap((r) => (r.op.list ? [r.op.list] : []));
      const subjects = exploreSubjects(
        contract.compiled,
        resources("editable").map((r) => [r.name, Object.values(r.op).filter((o) => o !== undefined)]),
      ).map((s) => withList(s, lists));
      test.skip(subjects.length === 0, `${NOT_SELECTED}the contract has no editable resource with all four operations`);
      test.setTimeout((target.explore.seconds + 60) * 1000);
      const outcome = await explore({
        contract: contract.compiled,
        subjects,
        send: (req) =>
          send(api, req.method, req.url, req.body === undefined ? { headers: req.headers } : req).then((r) => ({
            status: r.status,
            text: r.text,
          })),
        urlOf: (op, id) => urlOf(target, op, id),
        auth,
        // Bodies in XML rest on the XML mapping (A-XML-MAPPING): written so only with that kind.
        xml: target.kinds.has("assumption"),
        steps: target.explore.steps,
        seconds: target.explore.seconds,
        seed: target.explore.seed,
        ...(target.explore.path === undefined ? {} : { path: target.explore.path }),
        name: () => uniqueName(target.namePrefix),
      });
      test.info().annotations.push({ type: "exploration", description: outcome.report.split("\n")[0]! });
      expect(outcome.ok, outcome.report).toBe(true);
    },
  );
});
