// Errors: the status codes table and rule 1. Rules 2 to 4 are checked for every resource of the
// contract in resources.spec.ts.
import { apiBase } from "../lib/config.ts";
import { aCustomer, getCustomer, infoListUrl } from "../lib/customers.ts";
import { type Reply, send } from "../lib/http.ts";
import { bodyOf, lifecycle, resources, uniqueName, urlOf } from "../lib/resources.ts";
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
    // Every operation of every resource, writes too (a DELETE answered 204 passed when only reads
    // were tried). A refusal is another rule's finding; only a success other than 200 is this one's.
    const other: string[] = [];
    const note = (res: Reply) => {
      if (res.status >= 200 && res.status < 300 && res.status !== 200) other.push(`${res.call} answered ${res.status}`);
    };
    for (const r of resources()) {
      // An operation the description does not show rests on an assumption: tried only with that kind.
      const tried = (op: (typeof r.op)[keyof typeof r.op]) => op && (!op.assumption || target.kinds.has("assumption"));
      if (r.op.list && tried(r.op.list)) note(await send(api, "GET", urlOf(target, r.op.list), { headers: auth }));
      if (target.readOnly || !r.op.create || !tried(r.op.create) || !r.collection.request) continue;
      const calls = lifecycle(api, target, r, auth);
      const body = bodyOf(r.collection, uniqueName(target.namePrefix));
      const posted = await calls.post(body);
      note(posted);
      let made: string | undefined;
      try {
        made = posted.status >= 200 && posted.status < 300 ? calls.idOf(posted.json()) : undefined;
      } catch {
        // An answer without a JSON body names no id: CUST-CREATE-ID's finding, and nothing to go on with.
      }
      if (made === undefined) continue;
      if (r.op.read) note(await calls.get(made));
      if (r.op.update) {
        const idProperty = r.collection.idProperty!;
        note(await calls.put(made, { ...body, [idProperty]: r.collection.idIsNumber ? Number(made) : made }));
      }
      if (r.op.delete) note(await calls.delete(made));
    }
    expect(other, `a call that succeeds answers 200: ${other.join("; ")}`).toEqual([]);
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
