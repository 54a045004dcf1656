// The few ways a switch reshapes an answer, shared by the fault and
// tolerated-behaviour definitions. Each works on what the core says of the
// answer (meta), never on paths or error texts.
import { bodyValue, type MockResponse } from "../core/http.ts";
import type { Switch, Transform, TransformContext } from "../core/scenarios.ts";

/** A switch that breaks a rule on purpose; `breaks` names what the suite must report. */
export const fault = (s: Omit<Switch, "kind">): Switch => ({ kind: "fault", ...s });

/** The data operations of the contract, by operationId. */
export const DATA_ROUTES = ["listCustomerInfo", "createCustomer", "getCustomer", "updateCustomer", "deleteCustomer"];
/** Answers that carry one customer. */
export const CUSTOMER_ANSWERS = ["customer.read", "customer.created", "customer.updated"];

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

/** A transform of customers in JSON answers only. */
export const customersInJson = (fn: (c: Json) => Json | undefined): Transform => ({
  codes: CUSTOMER_ANSWERS,
  apply: (res, t) => (res.meta?.format?.kind === "json" ? mapValue(fn)(res, t) : res),
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

export const fragmentOf = (u: URL) => new URLSearchParams(u.hash.slice(1));

/** The same answer with another status. */
export const withStatus =
  (status: number, body?: string): Transform["apply"] =>
  (res) => ({ ...res, status, ...(body === undefined ? {} : { body }) });

export const withoutHeaders =
  (...names: string[]): Transform["apply"] =>
  (res) => ({ ...res, headers: Object.fromEntries(Object.entries(res.headers).filter(([k]) => !names.includes(k))) });

export type { Transform, TransformContext };
