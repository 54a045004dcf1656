// The few ways a switch reshapes an answer, shared by the fault and
// tolerated-behaviour definitions. Each works on what the core says of the
// answer (meta), never on paths or error texts.
import type { Collection } from "../../contract/index.ts";
import type { AnswerCode } from "../core/answer-codes.ts";
import { bodyValue, type MockResponse } from "../core/http.ts";
import type { Switch, Transform, TransformContext } from "../core/scenarios.ts";

/** A switch that breaks a rule on purpose; `breaks` names what the suite must report. */
export const fault = (s: Omit<Switch, "kind">): Switch => ({ kind: "fault", ...s });

/** Answers that carry one object of a resource of the contract (resources.ts's answer codes). */
export const OBJECT_ANSWERS: readonly AnswerCode[] = ["resource.read", "resource.created", "resource.updated"];

type Json = Record<string, unknown>;

/** Rewrites the body value of an answer (a customer, a token response) and encodes it as before. */
export const mapValue =
  (fn: (value: Json, res: MockResponse) => Json | undefined): Transform["apply"] =>
  (res, t) => {
    const v = bodyValue(res.meta);
    if (typeof v !== "object" || v === null || Array.isArray(v)) return res;
    const copy = structuredClone(v) as Json;
    return t.reencode(res, fn(copy, res) ?? copy);
  };

/**
 * A transform of the objects of JSON answers only; `fn` gets the object and its collection
 * (which properties are dates, numbers, ...).
 */
export const objectsInJson = (fn: (o: Json, c: Collection) => Json | undefined): Transform => ({
  codes: OBJECT_ANSWERS,
  apply: (res, t) => {
    const c = t.operation(res)?.collection;
    return c && res.meta?.format?.kind === "json" ? mapValue((o) => fn(o, c))(res, t) : res;
  },
});

/** Like objectsInJson, in JSON and XML alike. */
export const objectsInAnswers = (fn: (o: Json, c: Collection) => Json | undefined): Transform => ({
  codes: OBJECT_ANSWERS,
  apply: (res, t) => {
    const c = t.operation(res)?.collection;
    return c ? mapValue((o) => fn(o, c))(res, t) : res;
  },
});

/** Rewrites the Location of a redirect; `fn` changes the URL in place. */
export const mapLocation =
  (fn: (u: URL) => void): Transform["apply"] =>
  (res) => {
    const location = res.headers.location;
    if (!location || !/^https?:/.test(location)) return res;
    const u = new URL(location);
    fn(u);
    return { ...res, headers: { ...res.headers, location: u.href } };
  };

export { fragmentOf } from "../../rules/oauth.ts";

/** The same answer with another status. */
export const withStatus =
  (status: number, body?: string): Transform["apply"] =>
  (res) => ({ ...res, status, ...(body === undefined ? {} : { body }) });

export const withoutHeaders =
  (...names: string[]): Transform["apply"] =>
  (res) => ({ ...res, headers: Object.fromEntries(Object.entries(res.headers).filter(([k]) => !names.includes(k))) });

export type { Transform, TransformContext };
