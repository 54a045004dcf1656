// Access tokens live 7200 seconds.
import { infoListUrl } from "../lib/customers.ts";
import { advanceClock, codeFlow, covers, expect, hasClock, needLogin, test } from "../lib/fixtures.ts";
import { send } from "../lib/http.ts";

test(
  "an access token is refused once 7200 seconds have passed",
  covers("TOK-EXPIRY"),
  async ({ api, browser, target }) => {
    needLogin(target);
    const clock = await hasClock(api, target);
    test.skip(
      !clock && !target.waitForExpiry,
      "not verifiable here: the target has no GET/POST /__mock/clock to move time; set CONFORMANCE_WAIT_FOR_EXPIRY=1 to really wait 7200 s",
    );
    if (!clock) test.setTimeout(7500_000);
    const { access_token } = (await codeFlow(api, browser, target)).json();
    const read = () =>
      send(api, "GET", infoListUrl(target), {
        headers: { authorization: `Bearer ${access_token}`, accept: "application/json" },
      });
    expect((await read()).status, "a fresh token works").toBe(200);
    if (clock) {
      await advanceClock(api, target, 7190);
      expect((await read()).status, "still valid 10 s before expiry").toBe(200);
      await advanceClock(api, target, 10);
    } else {
      await new Promise((r) => setTimeout(r, 7205_000));
    }
    const res = await read();
    expect(res.status, "7200 s later").toBe(401);
  },
);
