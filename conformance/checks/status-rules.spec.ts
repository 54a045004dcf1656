// Errors: the status codes table and rule 1. Rules 2 to 4 are checked for every resource of the
// contract in resources.spec.ts.
import { apiBase } from "../lib/config.ts";
import { aCustomer, getCustomer, infoListUrl } from "../lib/customers.ts";
import { send } from "../lib/http.ts";
import { BrowserLaunchError, codeIn } from "../lib/screens.ts";
import { checks, covers, expect, test } from "../lib/test.ts";
import { readTokenAnswer } from "../lib/tokens.ts";

checks(() => {
  test(
    "a data request with a bearer token and Accept is answered",
    covers("DATA-BEARER"),
    async ({ api, target, session, flows }) => {
      // A token of the code flow where there is a user: one a broken refresh grant gave is
      // TOK-REFRESH's finding, not this rule's.
      let token: unknown;
      if (target.username && target.password && target.browser) {
        const landed = await flows.code().then(
          (l) => l.landed,
          // A browser that does not start fails this check, as it would any that asks for one.
          (err: unknown) => {
            if (err instanceof BrowserLaunchError) throw err;
            return undefined;
          },
        );
        if (landed && codeIn(landed)) {
          token = await flows.exchange().then(
            (r) => readTokenAnswer(r)?.access_token,
            () => undefined,
          );
        }
      }
      const auth =
        typeof token === "string"
          ? { authorization: `Bearer ${token}`, accept: "application/json" }
          : await session.bare();
      const list = await send(api, "GET", infoListUrl(target), { headers: auth });
      expect(list.status, `${list.call} with the access token: ${list.text.slice(0, 200)}`).not.toBe(401);
      expect(list.status, `${list.call} with the access token: ${list.text.slice(0, 200)}`).toBeLessThan(300);
    },
  );

  test("a call that succeeds answers 200", covers("ERR-200"), async ({ api, target, session }) => {
    // A refused token is DATA-BEARER's finding (or TOK-REFRESH's): then no call here succeeds, and
    // there is no 200 to see; session.auth() skips saying which.
    const auth = await session.auth();
    const list = await send(api, "GET", infoListUrl(target), { headers: auth });
    expect(list.status, `${list.call}: ${list.text.slice(0, 200)}`).toBe(200);
    const { id, done } = await aCustomer(api, target, auth);
    const one = await getCustomer(api, target, auth, id);
    await done();
    expect(one.status, one.call).toBe(200);
  });

  test("rule 1: a path that does not exist answers 404", covers("ERR-1-PATH"), async ({ api, target, session }) => {
    const auth = await session.auth();
    const db = encodeURIComponent(target.database);
    for (const path of [
      `/api/${db}/NoSuchResource`,
      `/api/${db}/CustomerInfoList/extra/segments`,
      "/NoSuchCall",
      `/api/${db}/Customer/1/NoSuchChild`,
    ]) {
      const res = await send(api, "GET", `${apiBase(target)}${path}`, { headers: auth });
      expect(res.status, `${res.call}`).toBe(404);
    }
  });
});
