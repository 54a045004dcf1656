// The version segment /v<version> in every path, in both spellings.
import { infoListUrl } from "../lib/customers.ts";
import { send } from "../lib/http.ts";
import { covers, expect, expectSucceeded, test } from "../lib/test.ts";

test(
  "paths carry the version segment; without it there is no such call",
  covers("VER-PATH"),
  async ({ api, target, session }) => {
    const auth = await session.auth();
    const versioned = await send(api, "GET", infoListUrl(target), { headers: auth });
    expectSucceeded(versioned, versioned.call);
    const bare = await send(
      api,
      "GET",
      `${target.baseUrl}/api/${encodeURIComponent(target.database)}/CustomerInfoList`,
      { headers: auth },
    );
    expect(bare.status, `${bare.call} (no version segment)`).toBe(404);
  },
);
