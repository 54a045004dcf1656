// Our assumptions about addresses and access (openapi/ASSUMPTIONS.md).
import { apiBase } from "../lib/config.ts";
import { infoListUrl } from "../lib/customers.ts";
import { covers, expect, need, test } from "../lib/fixtures.ts";
import { send } from "../lib/http.ts";

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
    expect(res.status).toBe(200);
  },
);

test("a method the path does not have is 404", covers("A-UNKNOWN-METHOD"), async ({ api, target, session }) => {
  expect((await send(api, "PATCH", infoListUrl(target), { headers: await session.auth() })).status).toBe(404);
});

test("a database the user may not use is 401", covers("A-DATABASE-ACCESS"), async ({ api, target, session }) => {
  need({ CONFORMANCE_FORBIDDEN_DATABASE: target.forbiddenDatabase }, "a database the user may not use");
  const res = await send(
    api,
    "GET",
    `${apiBase(target)}/api/${encodeURIComponent(target.forbiddenDatabase!)}/CustomerInfoList`,
    { headers: await session.auth() },
  );
  expect(res.status).toBe(401);
});

test("a version that is not served is 404", covers("A-VERSIONS"), async ({ api, target, session }) => {
  const res = await send(
    api,
    "GET",
    `${target.baseUrl}/v9${target.apiVersion}9/api/${encodeURIComponent(target.database)}/CustomerInfoList`,
    { headers: await session.auth() },
  );
  expect(res.status).toBe(404);
});
