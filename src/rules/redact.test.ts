// The proxy's one redaction on the texts it writes: a secret parameter keeps
// its name and loses its value, wherever it sits; nothing else changes.
import { describe, expect, it } from "vitest";
import { contractInUse } from "../contract/index.ts";
import { MARK, redact, redactViolation } from "./redact.ts";

describe("redact", () => {
  it.each([
    ["/v1/OAuth/Login?username=erin&password=s3cret", `/v1/OAuth/Login?username=erin&password=${MARK}`],
    [
      "302 to http://app.test/cb#access_token=abc.def&token_type=bearer&state=s",
      `302 to http://app.test/cb#access_token=${MARK}&token_type=bearer&state=s`,
    ],
    ["/cb?code=xyz&state=s", `/cb?code=${MARK}&state=s`],
    ["/x?access%5Ftoken=abc&REFRESH_TOKEN=def", `/x?access%5Ftoken=${MARK}&REFRESH_TOKEN=${MARK}`],
    [
      "grant_type=refresh_token&refresh_token=r1&client_secret=c1",
      `grant_type=refresh_token&refresh_token=${MARK}&client_secret=${MARK}`,
    ],
    ["cookie a=1; session=xyz", `cookie a=1; session=${MARK}`],
    ["/__mock/stats?token=c0ntrol&device_code=d1", `/__mock/stats?token=${MARK}&device_code=${MARK}`],
    ['found {"access_token": "abc", "expires_in": 3600}', `found {"access_token": "${MARK}", "expires_in": 3600}`],
    // A name ending in key, as the README says, whatever joins its words.
    ["/x?private_key=abc&x-api-key=def&api-key=ghi", `/x?private_key=${MARK}&x-api-key=${MARK}&api-key=${MARK}`],
    ['{"secretKey": "abc", "signingKey":"def"}', `{"secretKey": "${MARK}", "signingKey":"${MARK}"}`],
    ['{"x-api-key":"abc"}', `{"x-api-key":"${MARK}"}`],
    ['[{"name":"X-Api-Key","value":"abc"}]', `[{"name":"X-Api-Key","value":"${MARK}"}]`],
    ["X-Api-Key: abc\nApi-Key: def", `X-Api-Key: ${MARK}\nApi-Key: ${MARK}`],
    // A session id by any of its platforms' names.
    ["/x;PHPSESSID=abc?JSESSIONID=def&session_id=ghi", `/x;PHPSESSID=${MARK}?JSESSIONID=${MARK}&session_id=${MARK}`],
    // An Authorization header of any scheme.
    ["Authorization: Token abc123", `Authorization: Token ${MARK}`],
    ["proxy-authorization: Digest username=u, response=abc", `proxy-authorization: Digest ${MARK}`],
    // An XML element whose name says secret, as a JSON member's does.
    [
      "<r><access_token>abc</access_token><client_secret>def</client_secret><expires_in>7200</expires_in></r>",
      `<r><access_token>${MARK}</access_token><client_secret>${MARK}</client_secret><expires_in>7200</expires_in></r>`,
    ],
    [
      '<h><Authorization kind="a">Token abc</Authorization></h>',
      `<h><Authorization kind="a">${MARK}</Authorization></h>`,
    ],
  ])("%s", (text, shown) => {
    expect(redact(text)).toBe(shown);
  });

  it("leaves texts without secret parameters as they are", () => {
    for (const text of [
      "/v1/api/DEMO/CustomerInfoList?$filter=Name eq 'a=b'&$top=5",
      "#token_type=bearer&scope=api&expires_in=7200&state=s",
      "expected 7200, found 3600",
      "body.CocDate",
      // A code as part of a business name is no OAuth code.
      '{"CountryCode": "NL", "PostalCode": "1234 AB"}',
      "?CountryCode=NL",
      // The status a request forces (Prism's and the mock's scenario parameter), shown in the request log.
      "/v1/api/DEMO/CustomerInfoList?__code=503",
      // HTML's code element, as the suite's HTML reports quote a name in it.
      "<p>the <code>access_token</code> of <code>code=...</code></p>",
      // A bare key names what a list is ordered by: the coverage report's operations in summary.json.
      '{"operations": [{"key": "getCustomer", "method": "GET"}]}',
    ]) {
      expect(redact(text)).toBe(text);
    }
  });

  // The names of the service's own objects are data, never a secret's: not one of them is redacted,
  // however it is written.
  // But `Code`: an OAuth code's name, redacted wherever it stands (the README says so).
  const fields = contractInUse().resources.collections.flatMap((c) => [
    ...c.properties,
    ...Object.values(c.nested).flat(),
  ]);
  it.each([...new Set(fields)].filter((f) => f.toLowerCase() !== "code"))(
    "leaves the value of the field %s, in JSON, XML and a query",
    (name) => {
      for (const text of [`{"${name}": "v1"}`, `<${name}>v1</${name}>`, `?${name}=v1`, `${name}: v1`]) {
        expect(redact(text)).toBe(text);
      }
    },
  );

  it("redacts every text of a violation", () => {
    expect(
      redactViolation({
        requirement: "AUTHZ-PARAMS-REQUIRED",
        where: "query scope",
        expected: "a refusal",
        found: "302 to http://a.test/#access_token=t1",
      }),
    ).toEqual({
      requirement: "AUTHZ-PARAMS-REQUIRED",
      where: "query scope",
      expected: "a refusal",
      found: `302 to http://a.test/#access_token=${MARK}`,
    });
  });
});
