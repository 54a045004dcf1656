// Access tokens live 7200 seconds.
import { infoListUrl } from "../lib/customers.ts";
import { send } from "../lib/http.ts";
import { NOT_CHECKED, NOT_VERIFIED } from "../lib/requirements.ts";
import { covers, expect, expectSucceeded, needLogin, test } from "../lib/test.ts";
import { codeFlow, grantedTokens } from "../lib/tokens.ts";

test(
  "an access token is refused once 7200 seconds have passed",
  covers("TOK-EXPIRY"),
  async ({ api, browser, target, clock }) => {
    needLogin(target);
    test.skip(
      !clock.available && !target.waitForExpiry,
      `${NOT_VERIFIED}the target has no GET/POST /__mock/clock to move time; set CONFORMANCE_WAIT_FOR_EXPIRY=1 to really wait 7200 s`,
    );
    if (!clock.available) test.setTimeout(7500_000);
    const { access_token } = grantedTokens(await codeFlow(api, browser, target), "TOK-CODE-EXCHANGE");
    const read = () =>
      send(api, "GET", infoListUrl(target), {
        headers: { authorization: `Bearer ${access_token}`, accept: "application/json" },
      });
    const fresh = await read();
    test.skip(fresh.status === 401, `${NOT_CHECKED}DATA-BEARER: ${fresh.call} refused a fresh access token (401)`);
    expectSucceeded(fresh, "a fresh token works");
    if (clock.available) {
      await clock.advance(7190);
      expectSucceeded(await read(), "still valid 10 s before expiry");
      await clock.advance(10);
    } else {
      await new Promise((r) => setTimeout(r, 7205_000));
    }
    const res = await read();
    expect(res.status, "7200 s later").toBe(401);
  },
);
