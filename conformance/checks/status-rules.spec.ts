// Errors: the status codes table and its four numbered rules.
import { apiBase } from "../lib/config.ts";
import {
  aCustomer,
  createCustomer,
  customerBody,
  customerUrl,
  deleteCustomer,
  getCustomer,
  infoListUrl,
  putCustomer,
  uniqueName,
} from "../lib/customers.ts";
import { send } from "../lib/http.ts";
import { covers, coversWriting, expect, test } from "../lib/test.ts";

const absentId = () => `ZZ${Date.now().toString(36).slice(-6)}`;

test("a call that succeeds answers 200", covers("ERR-200", "DATA-BEARER"), async ({ api, target, session }) => {
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

test(
  "rule 2: an id that does not exist answers 404 on GET, PUT and DELETE",
  coversWriting("ERR-2-ID"),
  async ({ api, target, session }) => {
    const auth = await session.auth();
    const id = absentId();
    expect((await getCustomer(api, target, auth, id)).status, "GET").toBe(404);
    expect(
      (await putCustomer(api, target, auth, id, customerBody(uniqueName(), { CustomerId: id }))).status,
      "PUT",
    ).toBe(404);
    expect((await deleteCustomer(api, target, auth, id)).status, "DELETE").toBe(404);
  },
);

test(
  "rule 3: POST and PUT without the customer body answer 400",
  coversWriting("ERR-3-REQUIRED"),
  async ({ api, target, session }) => {
    const auth = { ...(await session.auth()), "content-type": "application/json" };
    const post = await send(api, "POST", customerUrl(target), { headers: auth });
    expect(post.status, post.call).toBe(400);
    const { id } = await createCustomer(api, target, await session.auth(), customerBody(uniqueName()));
    const put = await send(api, "PUT", customerUrl(target, id), { headers: auth });
    expect(put.status, put.call).toBe(400);
    await deleteCustomer(api, target, await session.auth(), id);
  },
);

test("rule 4: without a token the answer is 401", covers("ERR-4-TOKEN"), async ({ api, target }) => {
  const accept = { accept: "application/json" };
  expect((await send(api, "GET", infoListUrl(target), { headers: accept })).status, "GET CustomerInfoList").toBe(401);
  expect((await send(api, "GET", customerUrl(target, absentId()), { headers: accept })).status, "GET Customer").toBe(
    401,
  );
  // A target that wrongly answered these would store or remove data: a read-only run checks only the reads.
  if (target.readOnly) return;
  expect(
    (
      await send(api, "POST", customerUrl(target), {
        headers: { ...accept, "content-type": "application/json" },
        body: JSON.stringify(customerBody(uniqueName())),
      })
    ).status,
    "POST Customer",
  ).toBe(401);
  expect(
    (await send(api, "DELETE", customerUrl(target, absentId()), { headers: accept })).status,
    "DELETE Customer",
  ).toBe(401);
});

test("rule 4: without a database the answer is 401", covers("ERR-4-DATABASE"), async ({ api, target, session }) => {
  const auth = await session.auth();
  const wrong: string[] = [];
  for (const [form, path] of [
    ["an empty database segment", "/api//CustomerInfoList"],
    ["no database segment at all", "/api/CustomerInfoList"],
  ]) {
    const res = await send(api, "GET", `${apiBase(target)}${path}`, { headers: auth });
    if (res.status !== 401) wrong.push(`${res.call} (${form}) answered ${res.status}`);
  }
  expect(wrong, "calls without a database that were not 401").toEqual([]);
});
