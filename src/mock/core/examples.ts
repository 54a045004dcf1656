// Operations of the contract that fit none of the four result kinds (a `...Command` POST, a path
// deeper than Resource/{id}, a PATCH): the mock keeps no state for them, but a team that declares
// one still gets an answer as declared rather than a 501. The answer is the contract's example of
// the operation's first success, else a value made from its schema; the request is held to the
// same bearer token and request-body rules as every other, and `Prefer: code=` (app.ts) works on
// it as on the rest because its route is a data route.
import type { JsonSchema, OpenApiDocument } from "../../contract/contract.ts";
import type { Unsupported } from "../../contract/resources.ts";
import { challenge, checkBearer } from "./bearer.ts";
import { answer, decodeBody, problem } from "./format.ts";
import type { MockResponse } from "./http.ts";
import type { Handler, RoutedRequest } from "./router.ts";

type Media = { schema?: Schema; example?: unknown; examples?: Record<string, { value?: unknown }> };
type Schema = JsonSchema & {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  required?: string[];
  enum?: unknown[];
  example?: unknown;
  default?: unknown;
  minimum?: number;
  minLength?: number;
  minItems?: number;
  allOf?: Schema[];
  oneOf?: Schema[];
  anyOf?: Schema[];
};
type Body = { $ref?: string; required?: boolean; content?: Record<string, { schema?: Schema }> };
type Response = { $ref?: string; content?: Record<string, Media> };
type OperationObject = { requestBody?: Body; responses?: Record<string, Response> };

/** A request body or response, through its `$ref` to `#/components/<kind>/<name>` when it has one. */
function resolved<T extends { $ref?: string }>(doc: OpenApiDocument, x: T | undefined): T | undefined {
  const m = x?.$ref && /^#\/components\/(\w+)\/(.+)$/.exec(x.$ref);
  if (!m) return x;
  return (doc.components as unknown as Record<string, Record<string, T> | undefined>)[m[1]!]?.[m[2]!];
}

const REF = "#/components/schemas/";
const named = (s: Schema | undefined) => (s?.$ref?.startsWith(REF) ? s.$ref.slice(REF.length) : undefined);

/** How an operation outside the result kinds is answered, for the start-up banner and /__mock/contract. */
export function servedFrom(doc: OpenApiDocument, u: Pick<Unsupported, "method" | "path">): "example" | "schema" {
  const op = doc.paths[u.path]?.[u.method.toLowerCase()] as OperationObject | undefined;
  const media = successOf(doc, op)?.media;
  return media && (media.example !== undefined || Object.keys(media.examples ?? {}).length > 0) ? "example" : "schema";
}

function successOf(
  doc: OpenApiDocument,
  op: OperationObject | undefined,
): { status: number; media: Media | undefined } | undefined {
  const status = Object.keys(op?.responses ?? {})
    .map(Number)
    .filter((s) => s >= 200 && s < 300)
    .sort((a, b) => a - b)[0];
  if (status === undefined) return undefined;
  return { status, media: resolved(doc, op?.responses?.[String(status)])?.content?.["application/json"] };
}

/**
 * A value of the schema: its example or default, its first enum value, else the least value of
 * its type that the schema accepts (required properties filled, arrays at their minItems).
 */
export function schemaValue(doc: OpenApiDocument, schema: Schema | undefined, depth = 0): unknown {
  if (!schema || depth > 8) return null;
  const ref = named(schema);
  if (ref) return schemaValue(doc, doc.components.schemas[ref] as Schema, depth + 1);
  if (schema.example !== undefined) return schema.example;
  if (schema.default !== undefined) return schema.default;
  if (schema.enum?.length) return schema.enum[0];
  const first = schema.allOf?.[0] ?? schema.oneOf?.[0] ?? schema.anyOf?.[0];
  if (first) return schemaValue(doc, first, depth + 1);
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type;
  switch (type) {
    case "object":
    case undefined:
      if (!schema.properties) return type === "object" ? {} : null;
      return Object.fromEntries(Object.entries(schema.properties).map(([k, p]) => [k, schemaValue(doc, p, depth + 1)]));
    case "array":
      return Array.from({ length: Math.max(1, schema.minItems ?? 1) }, () => schemaValue(doc, schema.items, depth + 1));
    case "string":
      return "x".repeat(schema.minLength ?? 0);
    case "integer":
    case "number":
      return schema.minimum ?? 0;
    case "boolean":
      return false;
    default:
      return null;
  }
}

/** The handler of an operation outside the result kinds: token, request body, then its example. */
export function exampleHandler(doc: OpenApiDocument, u: Pick<Unsupported, "method" | "path">): Handler {
  const op = doc.paths[u.path]?.[u.method.toLowerCase()] as OperationObject | undefined;
  const requestBody = resolved(doc, op?.requestBody);
  const requestSchema = named(requestBody?.content?.["application/json"]?.schema);
  const success = successOf(doc, op);
  return (req: RoutedRequest): MockResponse => {
    const { ctx } = req;
    const bearer = checkBearer(
      req.headers.authorization,
      ctx.tokens,
      ctx.clock.now(),
      ctx.rules.bearerSchemeCaseInsensitive,
    );
    if (bearer.kind === "invalid" || (bearer.kind === "missing" && ctx.rules.requireAccessToken)) {
      const why = bearer.kind === "invalid" ? bearer.description : "no access token was sent";
      return problem(
        req,
        401,
        `Authorization has been denied for this request: ${why}.`,
        [],
        { "www-authenticate": challenge(bearer) },
        { code: bearer.kind === "missing" ? "auth.missing-token" : "auth.invalid-token" },
      );
    }
    if (requestSchema && (requestBody?.required || (req.body?.length ?? 0) > 0)) {
      const decoded = decodeBody(req, req.headers["content-type"], req.body, requestSchema);
      if (!decoded.ok) return decoded.response;
      const problems = ctx.contract.requests.check(requestSchema, decoded.value);
      if (problems.length > 0)
        return problem(req, 400, "The request is invalid.", problems, {}, { code: "body.invalid" });
    }
    if (!success) return { status: 204, headers: {}, body: "", meta: {} };
    const media = success.media;
    if (!media) return { status: success.status, headers: {}, body: "", meta: {} };
    // Prefer: example=<name> chooses one of the contract's named examples (Prism's convention).
    const wanted = /(?:^|[,;\s])example=("?)([^",;\s]+)\1/.exec(req.headers.prefer ?? "")?.[2];
    const examples = media.examples ?? {};
    if (wanted !== undefined && !(wanted in examples)) {
      const names = Object.keys(examples);
      return problem(
        req,
        400,
        `Prefer: example=${wanted} is not an example of ${u.method} ${u.path}; ${names.length ? `its examples: ${names.join(", ")}` : "it has no named examples"}.`,
        [],
        {},
        { code: "prefer.invalid" },
      );
    }
    const value =
      wanted !== undefined
        ? examples[wanted]?.value
        : media.example !== undefined
          ? media.example
          : (Object.values(examples)[0]?.value ?? schemaValue(doc, media.schema));
    const schema = named(media.schema);
    // A named schema is written in the negotiated format; an inline one has no XML mapping: JSON.
    if (schema) return answer(req, success.status, schema, value);
    return {
      status: success.status,
      headers: { "content-type": "application/json; charset=utf-8" },
      body: JSON.stringify(value),
      meta: { value },
    };
  };
}
