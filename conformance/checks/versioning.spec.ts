// The version segment /v<version> in every path, in both spellings.
import { apiBase } from "../lib/config.ts";
import { infoListUrl } from "../lib/customers.ts";
import { send } from "../lib/http.ts";
import { NOT_CHECKED } from "../lib/requirements.ts";
import { checks, covers, expect, expectSucceeded, test } from "../lib/test.ts";

checks(() => {
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
      if (bare.status !== 404) {
        // A 404 here tells "no such call" only if the target says 404 to a call that does not exist
        // at all; one that answers every path is ERR-1-PATH's finding.
        const nothing = await send(
          api,
          "GET",
          `${apiBase(target)}/api/${encodeURIComponent(target.database)}/NoSuchResource`,
          {
            headers: auth,
          },
        );
        test.skip(
          nothing.status !== 404,
          `${NOT_CHECKED}ERR-1-PATH: ${nothing.call}, a call that does not exist, answered ${nothing.status}`,
        );
      }
      expect(bare.status, `${bare.call} (no version segment)`).toBe(404);
    },
  );
});
