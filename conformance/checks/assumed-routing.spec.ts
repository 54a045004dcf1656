// Our assumptions about addresses and access (openapi/ASSUMPTIONS.md).
import { randomBytes } from "node:crypto";
import type { Operation } from "../../src/contract/index.ts";
import { apiBase } from "../lib/config.ts";
import {
  createCustomer,
  customerBody,
  customerUrl,
  deleteCustomer,
  getCustomer,
  infoListUrl,
  postCustomer,
  uniqueName,
} from "../lib/customers.ts";
import { send } from "../lib/http.ts";
import { absentId, dataOperations, tryEvery, unexpected } from "../lib/operations.ts";
import { NOT_CHECKED } from "../lib/requirements.ts";
import { bodyOf, lifecycle, resources, urlOf } from "../lib/resources.ts";
import { checks, covers, coversWriting, expect, expectSucceeded, need, test } from "../lib/test.ts";

checks(() => {
  test(
    "literal path segments match case-insensitively, with a trailing slash",
    covers("A-PATH-CASE"),
    async ({ api, target, session }) => {
      const res = await send(
        api,
        "GET",
        `${apiBase(target)}/API/${encodeURIComponent(target.database)}/customerinfolist/`,
        { headers: await session.auth() },
      );
      expectSucceeded(res);
    },
  );

  test(
    "a customer's id is compared exactly, not ignoring case",
    coversWriting("A-PATH-CASE"),
    async ({ api, target, session }) => {
      // An id of letters the check chooses (ids the service makes may be digits, which have no case).
      const auth = await session.auth();
      const chosen = `cs${randomBytes(3).toString("hex").replace(/[0-9]/g, "q")}`;
      const made = await postCustomer(
        api,
        target,
        auth,
        customerBody(uniqueName(target.namePrefix), { CustomerId: chosen }),
      );
      test.skip(
        made.status !== 200,
        `${NOT_CHECKED}A-CUSTOMER-IDS: a create naming the id ${chosen} answered ${made.status}`,
      );
      // Another id than the one chosen is A-CUSTOMER-IDS's finding; that customer is not left behind.
      const given = made.json()?.CustomerId;
      if (typeof given === "string" && given !== "" && given !== chosen) await deleteCustomer(api, target, auth, given);
      test.skip(
        given !== chosen,
        `${NOT_CHECKED}A-CUSTOMER-IDS: a create naming the id ${chosen} answered the id ${JSON.stringify(given)}`,
      );
      const other = chosen.toUpperCase();
      const read = await send(api, "GET", customerUrl(target, other), { headers: auth });
      const removed = await send(api, "DELETE", customerUrl(target, other), { headers: auth });
      const kept = await getCustomer(api, target, auth, chosen);
      await deleteCustomer(api, target, auth, chosen);
      expect([read.status, removed.status], `${read.call} and ${removed.call}, the customer being ${chosen}`).toEqual([
        404, 404,
      ]);
      expect(kept.status, `${kept.call} after a DELETE of ${other}`).toBe(200);
    },
  );

  test(
    "a method the path does not have is 404, on every data path of the contract",
    coversWriting("A-UNKNOWN-METHOD"),
    async ({ api, target, session }) => {
      // Every path, at an object that exists where the path takes an id: PATCH served on an
      // object's address passed when only a list was asked. Never DELETE or PUT at an address
      // without an id (a server that took one would act on a whole collection).
      const auth = await session.auth();
      const wrong: string[] = [];
      // The objects first: a create that fails skips the check before any answer is judged.
      const made = new Map<string, { calls: ReturnType<typeof lifecycle>; id: string }>();
      for (const r of resources("editable"))
        if (r.op.create && r.op.read && r.op.delete) {
          const calls = lifecycle(api, target, r, auth);
          made.set(r.name, { calls, id: (await calls.create(bodyOf(r.collection, uniqueName(target.namePrefix)))).id });
        }
      for (const r of resources()) {
        const byPath = new Map<string, Operation[]>();
        for (const op of Object.values(r.op)) if (op) byPath.set(op.path, [...(byPath.get(op.path) ?? []), op]);
        const body = r.collection.request ? bodyOf(r.collection, uniqueName(target.namePrefix)) : {};
        const id = made.get(r.name)?.id ?? absentId(r);
        for (const [, ops] of byPath) {
          const op = ops[0]!;
          const methods = ["GET", "POST", "PATCH", ...(op.idParam ? ["PUT", "DELETE"] : [])];
          for (const method of methods.filter((m) => !ops.some((o) => o.method === m))) {
            const withBody = method === "POST" || method === "PATCH" || method === "PUT";
            const res = await send(api, method, urlOf(target, op, id), {
              headers: {
                ...auth,
                accept: "application/json",
                ...(withBody ? { "content-type": "application/json" } : {}),
              },
              ...(withBody ? { body: JSON.stringify(body) } : {}),
            });
            if (res.status !== 404) wrong.push(`${res.call} answered ${res.status}`);
            // A POST taken anyway may have made an object: not left behind.
            if (method === "POST") await made.get(r.name)?.calls.removeIfMade(res, id);
          }
        }
      }
      for (const { calls, id } of made.values()) await calls.delete(id);
      expect(wrong, wrong.join("; ")).toEqual([]);
    },
  );

  test(
    "a database the user may not use is 401, to reads and writes",
    covers("A-DATABASE-ACCESS"),
    async ({ api, target, session }) => {
      need({ CONFORMANCE_FORBIDDEN_DATABASE: target.forbiddenDatabase }, "a database the user may not use");
      // Every data operation in that database (writes unless the run is read-only): a server that
      // refused reads and carried out writes passed when only a list was read.
      const there = { ...target, database: target.forbiddenDatabase! };
      const probes = dataOperations(there).filter((p) => p.resource.op[p.action]?.databaseParam !== undefined);
      const auth = await session.auth();
      const answers = await tryEvery(api, there, probes, auth.authorization, auth);
      const wrong = unexpected(probes, answers, 401);
      expect(wrong, wrong.join("; ")).toEqual([]);
    },
  );

  test("a version that is not served is 404", covers("A-VERSIONS"), async ({ api, target, session }) => {
    const res = await send(
      api,
      "GET",
      `${target.baseUrl}/v9${target.apiVersion}9/api/${encodeURIComponent(target.database)}/CustomerInfoList`,
      { headers: await session.auth() },
    );
    expect(res.status).toBe(404);
  });

  test(
    "a .json or .xml suffix chooses the format, before Accept",
    coversWriting("A-FORMAT-SUFFIX"),
    async ({ api, target, session }) => {
      const authorization = `Bearer ${await session.accessToken()}`;
      const { id } = await createCustomer(api, target, { authorization }, customerBody(uniqueName(target.namePrefix)));
      const xml = await send(api, "GET", `${customerUrl(target, id)}.xml`, {
        headers: { authorization, accept: "application/json" },
      });
      const json = await send(api, "GET", `${customerUrl(target, id)}.json`, {
        headers: { authorization, accept: "application/xml" },
      });
      const list = await send(api, "GET", `${infoListUrl(target)}.xml`, { headers: { authorization } });
      await deleteCustomer(api, target, { authorization }, id);
      expect(xml.headers["content-type"], xml.call).toMatch(/^application\/xml/);
      expect(json.headers["content-type"], json.call).toMatch(/^application\/json/);
      expect(list.headers["content-type"], list.call).toMatch(/^application\/xml/);
    },
  );

  test(
    "CustomerInfoList takes $filter, $orderby, $skip and $top; another $ option is 400",
    coversWriting("A-LIST-PARAMETERS"),
    async ({ api, target, session }) => {
      const auth = await session.auth();
      const name = uniqueName(target.namePrefix);
      const { id } = await createCustomer(api, target, auth, customerBody(name));
      const list = (query: string) => send(api, "GET", `${infoListUrl(target)}?${query}`, { headers: auth });
      const filtered = await list(
        `$filter=${encodeURIComponent(`CustomerId eq '${id}' and startswith(Name,'${name.slice(0, 8)}')`)}`,
      );
      const top = await list("$orderby=CustomerId%20desc&$skip=0&$top=1");
      const select = await list("$select=Name");
      const bad = await list(`$filter=${encodeURIComponent("Name eq")}`);
      // What the options do, on customers of this check's own (a list other workers change between
      // two calls could not be compared): descending is ascending reversed, and $skip then $top cut
      // the ordered list where they say. A check of one fixed query's length passed a $top counted
      // from the start of the list and a desc ignored.
      const more = [
        (await createCustomer(api, target, auth, customerBody(uniqueName(target.namePrefix)))).id,
        (await createCustomer(api, target, auth, customerBody(uniqueName(target.namePrefix)))).id,
      ];
      const ours = encodeURIComponent([id, ...more].map((i) => `CustomerId eq '${i}'`).join(" or "));
      const idsOf = async (query: string) => {
        const res = await list(`$filter=${ours}&${query}`);
        expectSucceeded(res, res.call);
        return (res.json() as Array<{ CustomerId: string }>).map((c) => c.CustomerId);
      };
      const ascending = await idsOf("$orderby=CustomerId");
      const descending = await idsOf("$orderby=CustomerId%20desc");
      const page = await idsOf("$orderby=CustomerId&$skip=1&$top=1");
      const rest = await idsOf("$orderby=CustomerId&$skip=1");
      for (const made of [id, ...more]) await deleteCustomer(api, target, auth, made);
      expect(filtered.json().map((c: { CustomerId: string }) => c.CustomerId)).toEqual([id]);
      expect(top.json()).toHaveLength(1);
      expect(select.status, select.call).toBe(400);
      expect(bad.status, bad.call).toBe(400);
      expect([...ascending].sort(), "the three customers of this check").toEqual([id, ...more].sort());
      expect(descending, "$orderby=CustomerId desc: the ascending order reversed").toEqual([...ascending].reverse());
      expect(page, "$orderby=CustomerId&$skip=1&$top=1: the second of the three").toEqual(ascending.slice(1, 2));
      expect(rest, "$orderby=CustomerId&$skip=1: all but the first").toEqual(ascending.slice(1));
    },
  );

  test(
    "every list of the contract takes the list parameters: $top=0 answers none, $select and a malformed $filter are 400",
    covers("A-LIST-PARAMETERS"),
    async ({ api, target, session }) => {
      // Lists other than the customers' too (AdministrationInfoList takes them, A-ADMINISTRATIONS):
      // one that ignored every option passed when only CustomerInfoList was asked.
      const auth = await session.auth();
      const wrong: string[] = [];
      for (const r of resources("list", "name-value-list")) {
        const url = urlOf(target, r.op.list!);
        const none = await send(api, "GET", `${url}?$top=0`, { headers: auth });
        const items = none.status === 200 ? (none.json() as unknown) : undefined;
        if (!Array.isArray(items) || items.length > 0)
          wrong.push(
            `${none.call}?$top=0 answered ${none.status}${Array.isArray(items) ? ` with ${items.length} items` : ""}`,
          );
        for (const query of ["$select=x", `$filter=${encodeURIComponent("x eq")}`]) {
          const refused = await send(api, "GET", `${url}?${query}`, { headers: auth });
          if (refused.status !== 400) wrong.push(`${refused.call}?${query} answered ${refused.status}`);
        }
      }
      expect(wrong, wrong.join("; ")).toEqual([]);
    },
  );
});
