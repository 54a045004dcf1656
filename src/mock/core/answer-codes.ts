// Every code an answer of the mock carries in meta.code (decision 0010): what
// happened, for the fault switches, the request log and the dashboard. One
// list, so a switch that names a code the mock never answers with does not
// compile, instead of catching nothing until the fault matrix runs.
export const ANSWER_CODES = [
  "auth.missing-token",
  "auth.invalid-token",
  "auth.no-database",
  "auth.database-forbidden",
  "authorize.login",
  "authorize.granted",
  "authorize.error-page",
  "authorize.error-redirect",
  "authorize.limit",
  "screen.logged-in",
  "screen.login-locked",
  "token.issued",
  "token.error",
  "resource.list",
  "resource.read",
  "resource.created",
  "resource.updated",
  "resource.deleted",
  "resource.not-found",
  "resource.refused",
  "body.missing",
  "body.invalid",
  "body.malformed",
  "body.too-large",
  "body.unsupported-media-type",
  "body.unsupported-charset",
  "query.invalid",
  "prefer.invalid",
  "route.unknown",
  "route.no-method",
  "route.version-not-served",
  "request.bad-path",
  "request.bad-target",
  "cors.preflight",
  "cors.refused",
  "server.error",
] as const;

export type AnswerCode = (typeof ANSWER_CODES)[number];
