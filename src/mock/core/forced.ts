// Answers asked for rather than earned: `Prefer: code=<status>` (Prism's
// convention), a failure scenario, a fault. Each is the contract's answer of
// the operation for that status, built from one table of templates.

import type { Problem } from "../../contract/index.ts";
import { requiredOfWrite } from "../../rules/bodies.ts";
import type { AnswerCode } from "./answer-codes.ts";
import { challenge } from "./bearer.ts";
import { type Answering, problem } from "./format.ts";
import type { MockResponse } from "./http.ts";

interface Template {
  code: AnswerCode;
  message: string | ((a: Answering) => string);
  /** The refused fields of a 400: the first required property of the operation's request schema. */
  problems?: (a: Answering) => Problem[];
}

const TEMPLATES: Readonly<Record<number, Template>> = {
  400: {
    code: "body.invalid",
    message: "The request is invalid.",
    problems: (a) => {
      const c = a.operation?.collection;
      return [
        { field: (c?.request ? requiredOfWrite(a.ctx.contract, c)[0] : undefined) ?? "", message: "is required" },
      ];
    },
  },
  401: { code: "auth.invalid-token", message: "Authorization has been denied for this request." },
  404: {
    code: "resource.not-found",
    // An object's path names an id; any other (a list) has none to miss: ASP.NET Web API's own words.
    message: (a) =>
      a.operation?.idParam !== undefined
        ? "No object with this id exists."
        : "No HTTP resource was found that matches the request URI.",
  },
  413: { code: "body.too-large", message: "The request body is larger than the 1 MiB this service accepts." },
  415: { code: "body.unsupported-media-type", message: "The Content-Type is not supported." },
  // ASP.NET Web API's own words for an unhandled exception.
  500: { code: "server.error", message: "An error has occurred." },
};

/** The statuses an operation of the contract answers with, as numbers, sorted. */
export function declaredStatuses(
  doc: { paths: Record<string, Record<string, unknown>> },
  path: string,
  method: string,
) {
  const op = doc.paths[path]?.[method.toLowerCase()] as { responses?: Record<string, unknown> } | undefined;
  return Object.keys(op?.responses ?? {})
    .map(Number)
    .filter(Number.isInteger)
    .sort((a, b) => a - b);
}

/**
 * The answer of `status` for an operation, in the negotiated format, marked
 * with `X-Bawa-Forced` so nobody mistakes it for a real refusal; undefined
 * when the table has no template for that status.
 */
export function forcedAnswer(
  a: Answering,
  status: number,
  why: string,
  meta: MockResponse["meta"] = {},
): MockResponse | undefined {
  const t = TEMPLATES[status];
  if (!t) return undefined;
  const headers: Record<string, string> = { "x-bawa-forced": why };
  if (status === 401) headers["www-authenticate"] = challenge({ kind: "invalid", description: `forced by ${why}` });
  const message = typeof t.message === "string" ? t.message : t.message(a);
  return problem(a, status, message, t.problems?.(a) ?? [], headers, { ...meta, code: t.code });
}

/** The statuses forcedAnswer can give. */
export const FORCEABLE = Object.keys(TEMPLATES).map(Number);
