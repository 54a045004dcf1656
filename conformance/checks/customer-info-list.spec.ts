// CustomerInfoList: a read-only list of info objects.
import { infoListUrl } from "../lib/customers.ts";
import { send } from "../lib/http.ts";
import { describeProblems, problemsOf } from "../lib/shapes.ts";
import { covers, coversWriting, expect, test } from "../lib/test.ts";

test(
  "GET CustomerInfoList answers a list of objects",
  covers("INFO-LIST"),
  async ({ api, target, session, contract }) => {
    const res = await send(api, "GET", infoListUrl(target), { headers: await session.auth() });
    expect(res.status, res.call).toBe(200);
    const problems = problemsOf(contract.spec, "CustomerInfoList", res.json(), target, []);
    expect(problems, describeProblems(problems)).toEqual([]);
  },
);

test(
  "CustomerInfoList can not be changed (only GET)",
  coversWriting("SVC-READ-ONLY-LIST"),
  async ({ api, target, session }) => {
    const auth = { ...(await session.auth()), "content-type": "application/json" };
    for (const method of ["POST", "PUT", "DELETE"]) {
      const res = await send(api, method, infoListUrl(target), { headers: auth, body: "[]" });
      expect(res.status >= 200 && res.status < 300, `${res.call} answered ${res.status}`).toBe(false);
    }
  },
);
