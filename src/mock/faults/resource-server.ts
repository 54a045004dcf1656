// Faults of the resource server: bearer tokens, the database segment, status
// codes and the version segment.
import { bodyValue } from "../core/http.ts";
import type { Switch } from "../core/scenarios.ts";
import { fault, withStatus } from "./transforms.ts";

export const RESOURCE_SERVER_FAULTS: readonly Switch[] = [
  fault({
    name: "no-token-200",
    breaks: ["ERR-4-TOKEN"],
    says: /Expected: 401/,
    what: "data calls without a token are answered",
    rules: { requireAccessToken: false },
  }),
  fault({
    name: "valid-tokens-refused",
    breaks: ["DATA-BEARER"],
    says: /with the access token: .*Authorization has been denied/,
    what: "data calls with a valid bearer token are refused",
    transforms: [{ data: true, apply: (res, t) => (res.status < 300 ? t.forced(res, 401) : res) }],
  }),
  fault({
    name: "no-challenge",
    breaks: ["OAUTH-BEARER-CHALLENGE"],
    says: /WWW-Authenticate/,
    what: "401 answers carry no WWW-Authenticate",
    rules: { bearerChallenge: false },
  }),
  fault({
    name: "bearer-case-sensitive",
    breaks: ["OAUTH-BEARER-CASE"],
    says: /bearer[\s\S]*Expected: 200[\s\S]*Received: 401/,
    what: "only the exact scheme name Bearer is accepted",
    rules: { bearerSchemeCaseInsensitive: false },
  }),
  fault({
    name: "no-database-200",
    breaks: ["ERR-4-DATABASE"],
    says: /calls without a database that were not 401/,
    what: "a call without a database uses the user's first database",
    rules: { requireDatabase: false },
  }),
  fault({
    name: "ok-is-203",
    breaks: ["ERR-200"],
    says: /Expected: 200[\s\S]*Received: 203/,
    what: "successful data calls answer 203",
    transforms: [{ data: true, apply: (res, t) => (res.status === 200 ? withStatus(203)(res, t) : res) }],
  }),
  fault({
    name: "unknown-path-200",
    breaks: ["ERR-1-PATH"],
    says: /NoSuchResource[\s\S]*Expected: 404[\s\S]*Received: 200/,
    what: "calls that do not exist answer 200",
    transforms: [{ codes: ["route.unknown"], apply: withStatus(200, "{}") }],
  }),
  fault({
    name: "unknown-id-200",
    breaks: ["ERR-2-ID"],
    says: /Expected: 404[\s\S]*Received: 200/,
    what: "an unknown id answers 200",
    transforms: [
      {
        codes: ["resource.not-found"],
        apply: (res, t) => withStatus(200, t.operation(res)?.method === "GET" ? res.body : "")(res, t),
      },
    ],
  }),
  fault({
    name: "unknown-method-200",
    breaks: ["A-UNKNOWN-METHOD"],
    says: /PATCH [^;]* answered 200/,
    what: "PATCH, a method no path has, is answered 200",
    // PATCH alone: POST, PUT or DELETE answered on a list would break SVC-READ-ONLY-LIST too.
    transforms: [
      {
        codes: ["route.no-method"],
        apply: (res, t) => (t.req.method === "PATCH" ? withStatus(200, "{}")(res, t) : res),
      },
    ],
  }),
  fault({
    name: "errors-always-json",
    breaks: ["A-ERROR-BODY"],
    says: /not XML|not <Error>/,
    what: "error answers are JSON even where Accept asks for XML",
    transforms: [
      {
        data: true,
        apply: (res) =>
          res.status >= 400 && res.meta?.format?.kind === "xml"
            ? {
                ...res,
                headers: { ...res.headers, "content-type": "application/json; charset=utf-8" },
                body: JSON.stringify(bodyValue(res.meta)),
              }
            : res,
      },
    ],
  }),
  fault({
    name: "missing-body-200",
    breaks: ["ERR-3-REQUIRED"],
    says: /Expected: 400[\s\S]*Received: 200/,
    what: "POST and PUT without a body answer 200",
    transforms: [{ codes: ["body.missing"], apply: withStatus(200, "{}") }],
  }),
  fault({
    name: "unversioned-paths",
    breaks: ["VER-PATH"],
    says: /no \/v<version> segment\)[\s\S]*Expected: 404[\s\S]*Received: 200/,
    what: "paths without the version segment are served too",
    rules: { requireVersionSegment: false },
  }),
  fault({
    name: "lowercase-v-only",
    breaks: ["VER-CASE"],
    says: /GET \/V1\/[\s\S]*Expected: 200[\s\S]*Received: 404|\/V1\/OAuth\/\w+ answered 404/,
    what: "only /v<version> is served, not /V<version>",
    rules: { versionLetterEitherCase: false },
  }),
];
