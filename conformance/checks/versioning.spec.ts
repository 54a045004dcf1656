// The version segment /v<version> in every path, in both spellings.
import { apiBase } from "../lib/config.ts";
import { infoListUrl } from "../lib/customers.ts";
import { send } from "../lib/http.ts";
import { NOT_CHECKED } from "../lib/requirements.ts";
import { authorizeUrl } from "../lib/screens.ts";
import { checks, covers, expect, expectSucceeded, test } from "../lib/test.ts";
import { readTokenAnswer, tokenUrl } from "../lib/tokens.ts";

checks(() => {
  test(
    "paths carry the version segment; without it there is no such call",
    covers("VER-PATH"),
    async ({ api, target, session }) => {
      const auth = await session.auth();
      const versioned = await send(api, "GET", infoListUrl(target), { headers: auth });
      expectSucceeded(versioned, versioned.call);
      // No version segment, and the version without its letter: neither is /v<version>.
      const unversioned = [];
      for (const segment of ["", `/${target.apiVersion}`])
        unversioned.push(
          await send(
            api,
            "GET",
            `${target.baseUrl}${segment}/api/${encodeURIComponent(target.database)}/CustomerInfoList`,
            {
              headers: auth,
            },
          ),
        );
      if (unversioned.some((bare) => bare.status !== 404)) {
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
      for (const bare of unversioned) expect(bare.status, `${bare.call} (no /v<version> segment)`).toBe(404);
    },
  );

  test("the OAuth endpoints answer under V as under v", covers("VER-CASE"), async ({ api, target }) => {
    // Requests that need no login: a refresh grant with a token never issued (an error either way,
    // the same one), and the start of an authorization. A server that routed only /v1/OAuth passed
    // every check: the suite's own OAuth calls all spell the segment with v.
    const client = target.client ?? { clientId: "conformance", clientSecret: "conformance", redirectUri: "" };
    const differences: string[] = [];
    const token = async (letter: "v" | "V") => {
      const res = await send(api, "POST", tokenUrl(target, letter), {
        form: {
          grant_type: "refresh_token",
          refresh_token: "never-issued-by-the-target",
          client_id: client.clientId,
          client_secret: client.clientSecret,
          redirect_uri: client.redirectUri,
        },
      });
      return { res, error: readTokenAnswer(res)?.error };
    };
    const [v, V] = [await token("v"), await token("V")];
    if (V.res.status !== v.res.status || V.error !== v.error)
      differences.push(
        `${V.res.call} answered ${V.res.status} ${String(V.error)}, ${v.res.call} ${v.res.status} ${String(v.error)}`,
      );
    const params = {
      client_id: client.clientId,
      redirect_uri: client.redirectUri || undefined,
      scope: target.scope,
      response_type: "code",
    };
    const [av, aV] = [
      await send(api, "GET", authorizeUrl(target, params, "v")),
      await send(api, "GET", authorizeUrl(target, params, "V")),
    ];
    if (aV.status !== av.status || aV.status === 404)
      differences.push(`${aV.call} answered ${aV.status}, ${av.call} ${av.status}`);
    expect(differences, differences.join("; ")).toEqual([]);
  });
});
