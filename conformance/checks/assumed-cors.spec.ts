// Our assumption about browser apps on other origins (A-CORS): the origin of a
// registered redirect URI may call the API with fetch(); another may not.
import { infoListUrl } from "../lib/customers.ts";
import { send } from "../lib/http.ts";
import { checks, covers, expect, needClient, test } from "../lib/test.ts";

checks(() => {
  const FOREIGN = "https://bawa-conformance.example.invalid";

  test(
    "the registered redirect URI's origin may call from a browser, another origin may not",
    covers("A-CORS"),
    async ({ api, target, session }) => {
      const origin = new URL(needClient(target).redirectUri).origin;
      const preflight = (from: string) =>
        send(api, "OPTIONS", infoListUrl(target), {
          headers: {
            origin: from,
            "access-control-request-method": "GET",
            "access-control-request-headers": "authorization",
          },
        });
      const allowed = await preflight(origin);
      expect(allowed.status, `preflight from ${origin}`).toBe(204);
      expect(allowed.headers["access-control-allow-origin"]).toBe(origin);
      expect(allowed.headers["access-control-allow-headers"] ?? "").toMatch(/authorization/i);
      const auth = await session.auth();
      const answered = await send(api, "GET", infoListUrl(target), { headers: { ...auth, origin } });
      expect(answered.headers["access-control-allow-origin"]).toBe(origin);
      const denied = await send(api, "GET", infoListUrl(target), { headers: { accept: "application/json", origin } });
      expect(denied.status).toBe(401);
      expect(denied.headers["access-control-allow-origin"], "an error answer carries it too").toBe(origin);
      expect(denied.headers["access-control-expose-headers"] ?? "").toMatch(/WWW-Authenticate/i);
      const foreign = await preflight(FOREIGN);
      expect(foreign.headers["access-control-allow-origin"], `preflight from ${FOREIGN}`).toBeUndefined();
    },
  );
});
