// The shape of an answer, for comparing the same request sent to two
// environments (test and production, v1 and the next version): its status,
// media type, challenge, the fields its body carries with their JSON types and
// date formats, and the values that are not per-environment (a token answer's
// token_type, expires_in and scope, an error code). Ids, tokens, names and
// dates are never compared by value: each environment has its own, and they
// are not drift.
import { dateFormatOf } from "./dates.ts";
import { type Exchange, header, jsonOf, mediaType } from "./exchange.ts";
import type { Place } from "./places.ts";

export interface AnswerShape {
  /** `GET /api/{database_id}/Customer/{customer_id}`: the contract's path, so ids do not count. */
  request: string;
  status: number;
  type: string;
  /** The `error` of a WWW-Authenticate challenge. */
  challenge?: string;
  /** Each top-level field of the body (a list's items merged): its JSON type, or a date's format. */
  fields: Record<string, string>;
  /** Values every environment must answer alike. */
  values: Record<string, string>;
}

/** Fields whose values are the same in every environment of the service (lower case). */
const SAME_EVERYWHERE = new Set(["token_type", "expires_in", "scope", "error"]);
const LIST_ITEMS = 20;

function classOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "string") {
    const date = dateFormatOf(value);
    return date && date !== "other" ? `date (${date})` : "string";
  }
  return typeof value;
}

/** A request's path as the contract names it, else with every segment of digits (an id) made `{n}`. */
function requestOf(place: Place, ex: Exchange): string {
  const path = place.template ?? ex.url.split("?")[0]!.replace(/\/\d+(?=\/|$)/g, "/{n}");
  return `${ex.method.toUpperCase()} ${path}`;
}

/** The shape of one exchange's answer. */
export function answerShape(place: Place, ex: Exchange): AnswerShape {
  const type = mediaType(header(ex, "content-type"));
  const fields: Record<string, string> = {};
  const values: Record<string, string> = {};
  if (type === "application/json" || type.endsWith("+json")) {
    const value = jsonOf(ex.body)?.value;
    const objects = Array.isArray(value) ? value.slice(0, LIST_ITEMS) : [value];
    for (const o of objects) {
      if (typeof o !== "object" || o === null || Array.isArray(o)) continue;
      for (const [k, v] of Object.entries(o)) {
        const c = classOf(v);
        // A field null in one object and a string in another is a string that may be null.
        if (fields[k] === undefined || fields[k] === "null") fields[k] = c;
        if (SAME_EVERYWHERE.has(k.toLowerCase()) && (typeof v === "string" || typeof v === "number"))
          values[k] = String(v);
      }
    }
  }
  const challenge = /\berror="([^"]*)"/.exec(header(ex, "www-authenticate") ?? "")?.[1];
  return {
    request: requestOf(place, ex),
    status: ex.status,
    type,
    ...(challenge ? { challenge } : {}),
    fields,
    values,
  };
}

/** One way the answers to the same request differ between two environments. */
export interface AnswerDifference {
  /** The request, and which of its kind in the check (1 = the first). */
  request: string;
  nth: number;
  /** `status`, `media type`, `challenge`, `field Name`, `type of Name`, `value of expires_in`, `answered`. */
  what: string;
  a: string;
  b: string;
}

/**
 * The answers of two environments to the same check, paired by request (the contract's path) in
 * the order they came: what differs, leaving out what differs by environment alone (ids, tokens,
 * names, the values of dates, a field null in one environment's data).
 */
export function compareShapes(a: readonly AnswerShape[], b: readonly AnswerShape[]): AnswerDifference[] {
  const byRequest = (list: readonly AnswerShape[]) => {
    const out = new Map<string, AnswerShape[]>();
    for (const s of list) out.set(s.request, [...(out.get(s.request) ?? []), s]);
    return out;
  };
  const left = byRequest(a);
  const right = byRequest(b);
  const out: AnswerDifference[] = [];
  for (const request of new Set([...left.keys(), ...right.keys()])) {
    const l = left.get(request) ?? [];
    const r = right.get(request) ?? [];
    for (let i = 0; i < Math.max(l.length, r.length); i++) {
      const x = l[i];
      const y = r[i];
      const diff = (what: string, p: string, q: string) => {
        if (p !== q) out.push({ request, nth: i + 1, what, a: p, b: q });
      };
      if (!x || !y) {
        diff("answered", x ? String(x.status) : "not sent", y ? String(y.status) : "not sent");
        continue;
      }
      diff("status", String(x.status), String(y.status));
      diff("media type", x.type || "none", y.type || "none");
      diff("challenge", x.challenge ?? "none", y.challenge ?? "none");
      for (const f of new Set([...Object.keys(x.fields), ...Object.keys(y.fields)])) {
        const p = x.fields[f];
        const q = y.fields[f];
        if (p === undefined || q === undefined) diff(`field ${f}`, p ? "present" : "absent", q ? "present" : "absent");
        else if (p !== "null" && q !== "null") diff(`type of ${f}`, p, q);
      }
      for (const f of new Set([...Object.keys(x.values), ...Object.keys(y.values)]))
        diff(`value of ${f}`, x.values[f] ?? "none", y.values[f] ?? "none");
    }
  }
  return out;
}
