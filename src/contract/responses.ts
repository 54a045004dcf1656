// Does an HTTP answer fit the contract? Used on every answer in the mock's
// tests and by the conformance suite's shape checks.
import type { CompiledContract, JsonSchema, Problem } from "./index.ts";
import { XmlError } from "./xml.ts";

/** An answer as the tests and the suite read it, however it was obtained (in process, over HTTP). */
export interface Reply {
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string>;
  text: string;
  /** The body parsed as JSON; throws, saying what the body was, when it is not JSON. */
  // biome-ignore lint/suspicious/noExplicitAny: answers of any shape are read, then asserted on
  json<T = any>(): T;
}

export interface ObservedResponse {
  status: number;
  contentType: string | undefined;
  body: string;
}

type ResponseObject = {
  $ref?: string;
  content?: Record<string, { schema?: JsonSchema }>;
  headers?: Record<string, unknown>;
};

/** The contract's response object for an operation and status, with `$ref` resolved. */
export function declaredResponse(
  contract: CompiledContract,
  path: string,
  method: string,
  status: number,
): ResponseObject | undefined {
  const op = contract.doc.paths[path]?.[method.toLowerCase()] as
    | { responses?: Record<string, ResponseObject> }
    | undefined;
  if (!op) throw new Error(`contract: no operation ${method.toUpperCase()} ${path}`);
  let r = op.responses?.[String(status)];
  if (r?.$ref) r = (contract.doc.components.responses as Record<string, ResponseObject>)[r.$ref.split("/").pop()!];
  return r;
}

/** The name of the component schema a media type's schema refers to. */
function schemaName(schema: JsonSchema | undefined): string | undefined {
  const ref = schema?.$ref;
  return typeof ref === "string" && ref.startsWith("#/components/schemas/")
    ? ref.slice("#/components/schemas/".length)
    : undefined;
}

/**
 * Problems of an answer against the contract: an undeclared status, an
 * undeclared media type, or a body that does not fit the schema. Empty when it fits.
 */
export function checkResponse(
  contract: CompiledContract,
  path: string,
  method: string,
  res: ObservedResponse,
): Problem[] {
  const declared = declaredResponse(contract, path, method, res.status);
  if (!declared)
    return [{ field: "", message: `status ${res.status} is not declared for ${method.toUpperCase()} ${path}` }];
  if (!declared.content) {
    return res.body.length === 0
      ? []
      : [
          {
            field: "",
            message: `status ${res.status} of ${method.toUpperCase()} ${path} has no body in the contract, got ${res.body.length} bytes`,
          },
        ];
  }
  const mediaType = res.contentType?.split(";")[0]?.trim().toLowerCase() ?? "";
  const media = declared.content[mediaType];
  if (!media) {
    return [
      {
        field: "",
        message: `media type ${mediaType || "(none)"} is not declared for ${res.status} of ${method.toUpperCase()} ${path}; declared: ${Object.keys(declared.content).join(", ")}`,
      },
    ];
  }
  const name = schemaName(media.schema);
  if (!name) return [];
  let value: unknown;
  try {
    value = mediaType.includes("xml") ? contract.xml.parse(name, res.body) : JSON.parse(res.body);
  } catch (err) {
    const why = err instanceof XmlError || err instanceof SyntaxError ? err.message : String(err);
    return [{ field: "", message: `body is not valid ${mediaType}: ${why}` }];
  }
  return contract.answers.check(name, value);
}
