// RFC 6750: how the resource server asks for and reads bearer tokens.

import { challengeProblem } from "../../src/rules/oauth.ts";
import { infoListUrl } from "../lib/customers.ts";
import { send } from "../lib/http.ts";
import { NOT_CHECKED } from "../lib/requirements.ts";
import { checks, covers, expect, expectSucceeded, test } from "../lib/test.ts";

checks(() => {
  test(
    "a 401 carries a Bearer challenge: no error without credentials, invalid_token for a bad token",
    covers("OAUTH-BEARER-CHALLENGE"),
    async ({ api, target }) => {
      const bare = await send(api, "GET", infoListUrl(target), { headers: { accept: "application/json" } });
      // A call without a token that is answered is ERR-4-TOKEN's finding: there is no 401 to look at.
      test.skip(bare.status < 300, `${NOT_CHECKED}ERR-4-TOKEN: ${bare.call} without a token answered ${bare.status}`);
      expect(bare.status).toBe(401);
      // The rule layer's reading of the challenge (src/rules/oauth.ts), the one bawa proxy applies.
      expect(
        challengeProblem(bare.headers["www-authenticate"], "no credentials"),
        "WWW-Authenticate without credentials",
      ).toBeUndefined();
      const bad = await send(api, "GET", infoListUrl(target), {
        headers: { accept: "application/json", authorization: "Bearer conformance-unknown-token" },
      });
      expect(bad.status).toBe(401);
      expect(
        challengeProblem(bad.headers["www-authenticate"], "an invalid token"),
        "WWW-Authenticate for an unknown token",
      ).toBeUndefined();
    },
  );

  test("the Bearer scheme name is case-insensitive", covers("OAUTH-BEARER-CASE"), async ({ api, target, session }) => {
    await session.auth(); // a token refused under any spelling is DATA-BEARER's finding
    const token = await session.accessToken();
    for (const scheme of ["bearer", "BEARER", "Bearer"]) {
      const res = await send(api, "GET", infoListUrl(target), {
        headers: { accept: "application/json", authorization: `${scheme} ${token}` },
      });
      expectSucceeded(res, scheme);
    }
  });
});
