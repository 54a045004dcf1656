// The proxy's one redaction on the texts it writes: a secret parameter keeps
// its name and loses its value, wherever it sits; nothing else changes.
import { describe, expect, it } from "vitest";
import { HIDDEN, redact, redactViolation } from "./redact.ts";

describe("redact", () => {
  it.each([
    ["/v1/OAuth/Login?username=erin&password=s3cret", `/v1/OAuth/Login?username=erin&password=${HIDDEN}`],
    [
      "302 to http://app.test/cb#access_token=abc.def&token_type=bearer&state=s",
      `302 to http://app.test/cb#access_token=${HIDDEN}&token_type=bearer&state=s`,
    ],
    ["/cb?code=xyz&state=s", `/cb?code=${HIDDEN}&state=s`],
    ["/x?access%5Ftoken=abc&REFRESH_TOKEN=def", `/x?access%5Ftoken=${HIDDEN}&REFRESH_TOKEN=${HIDDEN}`],
    [
      "grant_type=refresh_token&refresh_token=r1&client_secret=c1",
      `grant_type=refresh_token&refresh_token=${HIDDEN}&client_secret=${HIDDEN}`,
    ],
    ["cookie a=1; session=xyz", `cookie a=1; session=${HIDDEN}`],
    ['found {"access_token": "abc", "expires_in": 3600}', `found {"access_token": "${HIDDEN}", "expires_in": 3600}`],
  ])("%s", (text, shown) => {
    expect(redact(text)).toBe(shown);
  });

  it("leaves texts without secret parameters as they are", () => {
    for (const text of [
      "/v1/api/DEMO/CustomerInfoList?$filter=Name eq 'a=b'&$top=5",
      "#token_type=bearer&scope=api&expires_in=7200&state=s",
      "expected 7200, found 3600",
      "body.CocDate",
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
      found: `302 to http://a.test/#access_token=${HIDDEN}`,
    });
  });
});
