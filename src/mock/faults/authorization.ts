// Faults of the authorization endpoint and its login and permission screens.
import { errorScreen } from "../core/oauth/pages.ts";
import type { Switch, Transform } from "../core/scenarios.ts";
import { fault, fragmentOf, mapLocation } from "./transforms.ts";

/** Only the answers that hand out a code or a token of the given flow. */
const granted = (responseType: "code" | "token", fn: (u: URL) => void): Transform => ({
  codes: ["authorize.granted"],
  apply: (res, t) => (res.meta?.responseType === responseType ? mapLocation(fn)(res, t) : res),
});

export const AUTHORIZATION_FAULTS: readonly Switch[] = [
  fault({
    name: "redirect-unregistered",
    breaks: ["OAUTH-NO-REDIRECT-ON-BAD-CLIENT", "AUTH-CLIENT-REDIRECT-MATCH"],
    says: /redirect_uri|sent away instead of shown an error page/,
    what: "any redirect_uri of a known client is used, the registered one is not enforced",
    rules: { exactRedirectUri: false },
  }),
  fault({
    name: "pending-client-allowed",
    breaks: ["AUTH-REGISTRATION"],
    says: /sent with a code or token/,
    what: "applications that are not active yet are accepted",
    rules: { requireActiveClient: false },
  }),
  fault({
    name: "scope-not-required",
    breaks: ["AUTHZ-PARAMS-REQUIRED"],
    says: /without scope/,
    what: "authorization requests without scope or response_type are completed",
    rules: { requireScopeAndResponseType: false },
  }),
  fault({
    name: "state-dropped",
    breaks: ["AUTHZ-STATE"],
    says: /Received: null/,
    what: "state is not returned",
    rules: { returnState: false },
  }),
  fault({
    name: "code-in-fragment",
    breaks: ["AUTHZ-CODE-REDIRECT"],
    says: /no code in the query of .*#code=/,
    what: "the code arrives in the fragment",
    transforms: [
      granted("code", (u) => {
        const code = u.searchParams.get("code");
        if (!code) return;
        u.searchParams.delete("code");
        u.hash = `code=${code}`;
      }),
    ],
  }),
  fault({
    name: "fragment-without-token-type",
    breaks: ["AUTHZ-TOKEN-REDIRECT"],
    says: /Expected: "bearer"[\s\S]*Received: undefined/,
    what: "the token flow's fragment has no token_type",
    transforms: [
      granted("token", (u) => {
        const f = fragmentOf(u);
        f.delete("token_type");
        u.hash = f.toString();
      }),
    ],
  }),
  fault({
    name: "implicit-in-query",
    breaks: ["OAUTH-IMPLICIT-FRAGMENT"],
    says: /query: \?token_type=bearer&access_token=/,
    what: "the token flow's token arrives in the query",
    transforms: [
      granted("token", (u) => {
        u.search = fragmentOf(u).toString();
        u.hash = "";
      }),
    ],
  }),
  fault({
    name: "implicit-with-refresh",
    breaks: ["TOK-IMPLICIT-NO-REFRESH"],
    says: /refresh_token[\s\S]*Expected: false[\s\S]*Received: true/,
    what: "the token flow also returns a refresh token",
    transforms: [
      granted("token", (u) => {
        const f = fragmentOf(u);
        f.set("refresh_token", "leaked");
        u.hash = f.toString();
      }),
    ],
  }),
  fault({
    name: "implicit-token-rejected",
    breaks: ["AUTH-IMPLICIT-NO-SECRET"],
    says: /with the token of the token flow[\s\S]*Received: 401/,
    what: "tokens of the token flow do not work on the API",
    rules: { acceptImplicitTokens: false },
  }),
  fault({
    name: "error-page-instead-of-redirect",
    breaks: ["OAUTH-ERROR-REDIRECT"],
    says: /an unsupported response_type is sent back/,
    what: "authorization errors show a page instead of redirecting back",
    transforms: [
      {
        codes: ["authorize.error-redirect"],
        apply: (res) => ({ ...errorScreen(400, res.meta?.problem ?? "refused"), meta: res.meta ?? {} }),
      },
    ],
  }),
  fault({
    name: "error-page-redirects",
    breaks: ["OAUTH-ERROR-PAGE-NO-REDIRECT"],
    says: /a meta refresh/,
    what: "the error page sends the browser on to the unverified redirect_uri",
    transforms: [
      {
        codes: ["authorize.error-page"],
        apply: (res) => {
          const to = res.meta?.redirectUri;
          if (!to) return res;
          const refresh = `<meta http-equiv="refresh" content="3;url=${encodeURI(to)}">`;
          return { ...res, body: (res.body ?? "").replace("<head>", `<head>${refresh}`) };
        },
      },
    ],
  }),
  fault({
    name: "permission-skipped",
    breaks: ["AUTHZ-SCREENS"],
    says: /the screens the browser went through/,
    what: "no permission screen: logging in grants at once",
    rules: { permissionScreen: false },
  }),
  fault({
    name: "screens-framable",
    breaks: ["OAUTH-SCREENS-NO-FRAMING"],
    says: /framing of .*\/OAuth\/(Login|Permission)/,
    what: "the screens can be framed",
    rules: { refuseFraming: false },
  }),
  fault({
    name: "csrf-off",
    breaks: ["OAUTH-CSRF"],
    says: /a post from another site was granted|forged/,
    what: "the screens' forms accept posts without the browser's cookie and token",
    rules: { checkCsrf: false },
  }),
];
