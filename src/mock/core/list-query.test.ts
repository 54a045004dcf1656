// The OData list parameters of CustomerInfoList and the format suffixes, as tables.
import { describe, expect, it } from "vitest";
import { call, expectContract, freshMock } from "../testing.ts";

const LIST = "/api/{database_id}/CustomerInfoList";
// The seed's DEMO customers, in the order they were created.
const ALL = ["1001", "1002", "1003", "1004", "1005", "1006"];

const ids = (query: string) => {
  const { mock, auth } = freshMock();
  const res = call(mock, "GET", `/v1/api/DEMO/CustomerInfoList?${query}`, { headers: auth });
  return { res, ids: res.status === 200 ? (res.json() as Array<{ CustomerId: string }>).map((c) => c.CustomerId) : [] };
};

describe("list parameters (A-LIST-PARAMETERS)", () => {
  it.each([
    ["$top=2", ["1001", "1002"]],
    ["$skip=4", ["1005", "1006"]],
    ["$skip=1&$top=2", ["1002", "1003"]],
    ["$top=0", []],
    ["$skip=99", []],
    ["$orderby=Name desc&$top=2", ["1002", "1006"]],
    ["$orderby=City", ["1005", "1004", "1003", "1006", "1002", "1001"]],
    ["$orderby=CustomerStateId desc,CustomerId desc", ["1005", "1006", "1004", "1003", "1002", "1001"]],
    ["$filter=City eq 'Utrecht'", ["1001"]],
    ["$filter=City ne 'Utrecht' and CustomerStateId eq 'P'", ["1005"]],
    ["$filter=startswith(Name,'Bakkerij') or contains(Name,'Wiel')", ["1001", "1003"]],
    ["$filter=not contains(Email,'info@')", []],
    ["$filter=(City eq 'Gouda' or City eq 'Aalsmeer') and CountryId eq 'NL'", ["1004", "1005"]],
    ["$filter=Email ne null&$orderby=CustomerId desc&$top=1", ["1006"]],
    ["$filter=Name eq 'it''s'", []],
    ["$filter=customerid eq '1002'", ["1002"]],
    ["foo=bar&__code=", ALL],
  ])("%s", (query, want) => {
    const { res, ids: got } = ids(query);
    expect(res.status, res.text).toBe(200);
    expect(got).toEqual(want);
  });

  it.each([
    ["$top=-1", "$top", /\$top=-1 is not a whole number from 0 to 1000000/],
    ["$top=1e3", "$top", /not a whole number/],
    ["$skip=x", "$skip", /not a whole number/],
    ["$top=1&$top=2", "$top", /\$top is given 2 times/],
    ["$orderby=Name sideways", "$orderby", /at character 1 \("Name sideways"\)/],
    ["$orderby=Name,Nope", "$orderby", /at character 6 \("Nope"\)/],
    ["$filter=Name eq", "$filter", /\$filter is not valid OData at character 5/],
    ["$filter=Name eq 'x' and", "$filter", /not valid OData/],
    ["$filter=CreditLimit gt 5", "$filter", /uses "CreditLimit gt 5" at character 1, which this mock does not support/],
    ["$filter=tolower(Name) eq 'x'", "$filter", /uses "tolower\(Name\)" at character 1/],
    ["$filter=substringof('a',Name)", "$filter", /uses the function substringof at character 1/],
    ["$filter=Name eq 12", "$filter", /uses "12" at character 9/],
    ["$filter=Fax eq null", "$filter", /uses "Fax" at character 1/],
    [
      "$select=Name",
      "$select",
      /\$select is not supported by this mock; the list parameters are \$filter, \$orderby, \$skip, \$top/,
    ],
    ["$count=true", "$count", /\$count is not supported/],
  ])("%s is 400 naming %s and where", (query, _param, message) => {
    const { mock, auth } = freshMock();
    const res = call(mock, "GET", `/v1/api/DEMO/CustomerInfoList?${query.replaceAll(" ", "%20")}`, { headers: auth });
    expect(res.status).toBe(400);
    expect(res.json().Message).toMatch(message);
    expectContract(mock, LIST, "get", res);
  });

  it("a string literal holds any character, as the query decodes it (/, %, #, ?, quotes...)", () => {
    const { mock, auth } = freshMock();
    const list = (filter: string) =>
      call(mock, "GET", `/v1/api/DEMO/CustomerInfoList?$filter=${encodeURIComponent(filter)}`, { headers: auth });
    const name = `J/V&C 100% #1 "?" <[\\^\`{|}]> it's`;
    const created = call(mock, "POST", "/v1/api/DEMO/Customer", {
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ CustomerId: "", Name: name }),
    });
    expect(created.status, created.text).toBe(200);
    const id = created.json().CustomerId;
    const found = list(`Name eq '${name.replaceAll("'", "''")}'`);
    expect(found.status, found.text).toBe(200);
    expect(found.json().map((c: { CustomerId: string }) => c.CustomerId)).toEqual([id]);
    for (const c of ["/", "%", "#", "?", '"', "<", "[", "\\", "^", "`", "{", "|"]) {
      const res = list(`contains(Name,'${c}')`);
      expect(res.status, `${c}: ${res.text}`).toBe(200);
      expect(res.json().map((x: { CustomerId: string }) => x.CustomerId)).toEqual([id]);
    }
    // Percent signs are text, not decoded a second time: '%42' is not "B", %27 is no quote.
    expect(list("startswith(Name,'%42')").json()).toEqual([]);
    const encodedQuotes = list("Name eq %27x%27");
    expect(encodedQuotes.status).toBe(400);
    expect(encodedQuotes.json().Message).toMatch(/^\$filter is not valid OData/);
    // Positions are the filter's own, whatever a literal held.
    expect(list("Name eq 'a/b#c' and Fax eq null").json().Message).toMatch(/uses "Fax" at character 21/);
    expect(list("City eq 'Utrecht").json().Message).toBe(
      "$filter has a string that begins at character 9 and is not closed with '.",
    );
  });

  it("paging works in XML too", () => {
    const { mock, auth } = freshMock();
    const res = call(mock, "GET", "/v1/api/DEMO/CustomerInfoList?$top=1", {
      headers: { ...auth, accept: "application/xml" },
    });
    expect(res.text.match(/<CustomerInfo>/g)).toHaveLength(1);
  });
});

describe("format suffixes (A-FORMAT-SUFFIX)", () => {
  it.each([
    ["/v1/api/DEMO/Customer/1001.json", "application/xml", "application/json"],
    ["/v1/api/DEMO/Customer/1001.xml", "application/json", "application/xml"],
    ["/v1/api/DEMO/Customer/1001.XML", undefined, "application/xml"],
    ["/v1/api/DEMO/CustomerInfoList.xml?$top=1", "application/json", "application/xml"],
    ["/V1/api/DEMO/CustomerInfoList.json", "text/xml", "application/json"],
  ])("GET %s with Accept %s answers %s", (path, accept, want) => {
    const { mock, auth } = freshMock();
    const res = call(mock, "GET", path, { headers: { ...auth, ...(accept ? { accept } : {}) } });
    expect(res.status, res.text).toBe(200);
    expect(res.headers["content-type"]).toBe(`${want}; charset=utf-8`);
  });

  it.each([
    ["POST", "/v1/api/DEMO/Customer.xml", "application/xml"],
    ["PUT", "/v1/api/DEMO/Customer/1001.xml", "application/xml"],
    ["DELETE", "/v1/api/DEMO/Customer/1001.json", undefined],
  ])("%s %s answers in the suffix's format", (method, path, want) => {
    const { mock, auth } = freshMock();
    const res = call(mock, method, path, {
      headers: { ...auth, "content-type": "application/json" },
      body:
        method === "DELETE"
          ? undefined
          : JSON.stringify({ CustomerId: method === "PUT" ? "1001" : "", Name: "Achtervoegsel" }),
    });
    expect(res.status, res.text).toBe(200);
    expect(res.headers["content-type"]).toBe(want ? `${want}; charset=utf-8` : undefined);
  });

  it.each([
    ["/v1/api/DEMO/Customer/9999.json", 404, "application/json"],
    ["/v1/api/DEMO/Customer/9999.xml", 404, "application/xml"],
    ["/v1/api/DEMO/Customer/1001.txt", 404, "application/json"],
  ])("%s is %i in %s", (path, status, type) => {
    const { mock, auth } = freshMock();
    const res = call(mock, "GET", path, { headers: auth });
    expect(res.status).toBe(status);
    expect(res.headers["content-type"]).toBe(`${type}; charset=utf-8`);
    expect(res.text).not.toContain(".json exists");
  });
});

describe("no database given (Errors rule 4)", () => {
  it.each([
    ["GET", "/v1/api//CustomerInfoList"],
    ["GET", "/v1/api/CustomerInfoList"],
    ["POST", "/v1/api/Customer"],
    ["GET", "/v1/api/Customer/1001"],
    ["DELETE", "/v1/api/Customer/1001"],
    ["GET", "/v1/api/%20/CustomerInfoList"],
  ])("%s %s is 401", (method, path) => {
    const { mock, auth } = freshMock();
    const res = call(mock, method, path, {
      headers: { ...auth, "content-type": "application/json" },
      body: method === "POST" ? '{"Name":"X"}' : undefined,
    });
    expect(res.status).toBe(401);
    expect(res.json().Message).toMatch(/No database is given/);
  });
});

describe("bounded work per list request (A-LIMITS)", () => {
  it.each([
    [
      "3,000 nested parentheses",
      `${"(".repeat(3000)}Name eq 'x'${")".repeat(3000)}`,
      /is 6011 characters long, more than the 1000/,
    ],
    [
      "17 nested parentheses",
      `${"(".repeat(17)}Name eq 'x'${")".repeat(17)}`,
      /nests parentheses 17 deep at character 17, more than the 16/,
    ],
    [
      "33 conditions",
      Array.from({ length: 33 }, (_, i) => `Name eq 'x${i}'`).join(" or "),
      /holds more than 32 conditions \(comparisons and function calls; the one at character 539 is over\)/,
    ],
  ])("a $filter of %s is 400 naming the limit, before it is parsed", (_name, filter, message) => {
    const { res } = ids(`$filter=${encodeURIComponent(filter)}`);
    expect(res.status).toBe(400);
    expect(res.json().Message).toMatch(message);
  });

  it.each([
    ["16 nested parentheses", `${"(".repeat(16)}Name eq 'Fietsenmakerij Het Wiel'${")".repeat(16)}`],
    ["parentheses inside a string", "Name eq '((((((((((((((((((((((((('"],
    ["32 conditions", Array.from({ length: 32 }, (_, i) => `Name eq 'x${i}'`).join(" or ")],
  ])("a $filter of %s within the limits is read", (_name, filter) => {
    expect(ids(`$filter=${encodeURIComponent(filter)}`).res.status).toBe(200);
  });

  it("a long $orderby is 400 naming the limit", () => {
    const { res } = ids(`$orderby=${Array.from({ length: 60 }, () => "Name asc").join(",")}`);
    expect(res.status).toBe(400);
    expect(res.json().Message).toMatch(/\$orderby is 539 characters long, more than the 500/);
  });
});
