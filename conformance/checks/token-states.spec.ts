// The token states a client can hold, tried on every data operation of every resource of the
// contract (lib/operations.ts reads them from the resource model): no token, a malformed one,
// one the target never issued and a refresh token in an access token's place. Expired and renewed tokens: token-expiry.spec.ts. One request per
// operation and state, a few at a time, so the whole domain costs about as much as one check did.
import { randomBytes } from "node:crypto";
import { dataOperations, tryEvery, unexpected } from "../lib/operations.ts";
import { checks, covers, expect, test } from "../lib/test.ts";

checks(() => {
  test("every data operation without a token answers 401", covers("ERR-4-TOKEN"), async ({ api, target }) => {
    const probes = dataOperations(target);
    const wrong = unexpected(probes, await tryEvery(api, target, probes, undefined), 401);
    expect(wrong, `without a token, Expected: 401 from every data operation; ${wrong.join("; ")}`).toEqual([]);
  });

  test(
    "every data operation refuses a malformed or unknown bearer token, or a refresh token, with 401",
    covers("OAUTH-INVALID-TOKEN"),
    async ({ api, target, session }) => {
      const probes = dataOperations(target);
      // A created object a wrongly accepted token made is removed with a token that works.
      const canLogIn = target.client && (target.refreshToken || (target.username && target.password));
      const cleanup = canLogIn ? await session.bare() : undefined;
      const states: Record<string, string> = {
        // RFC 6750 2.1: b64token has no spaces, no "!" and no quotes.
        malformed: 'Bearer not a "token"!',
        unknown: `Bearer ${randomBytes(24).toString("base64url")}`,
        // Issued, but no access token: a data call carries an access token (Authentication 1), and
        // a refresh token never expires, so one taken as a bearer token outlives the 7200 seconds.
        ...(target.refreshToken ? { "refresh token as an access": `Bearer ${target.refreshToken}` } : {}),
      };
      const wrong: string[] = [];
      for (const [state, authorization] of Object.entries(states)) {
        const answers = await tryEvery(api, target, probes, authorization, cleanup);
        wrong.push(...unexpected(probes, answers, 401).map((line) => `${state} token: ${line}`));
      }
      expect(wrong, `only an access token the target issued authorizes: ${wrong.join("; ")}`).toEqual([]);
    },
  );
});
