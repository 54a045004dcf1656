// The proxy's one redaction on the texts it writes: a secret parameter keeps
// its name and loses its value, wherever it sits; nothing else changes.
import { describe, expect, it } from "vitest";
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
    ]) {
      expect(redact(text)).toBe(text);
    }
  });

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
