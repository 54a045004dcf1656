// Acknowledged changes of the mock's state, as a data directory records them
// (src/mock/node/data-dir.ts): objects of the contract's editable resources,
// applications and tokens. A snapshot is the same kind of lines, starting with
// "clear", that rebuild the whole state.
import type { ResourceModel } from "../../contract/index.ts";
import { registrableRedirectUri } from "./oauth/registry.ts";
import type { StoredObject } from "./store.ts";

/** An application as the portal keeps it (oauth/registry.ts). */
export interface StoredApplication {
  clientId: string;
  clientSecret: string;
  name: string;
  redirectUri: string;
  status: "pending" | "Actief";
}

/** An access or refresh token as the token store keeps it (oauth/tokens.ts). */
export interface StoredToken {
  clientId: string;
  user: string;
  databases: readonly string[];
  scope: string;
  family?: string | undefined;
  revoked: boolean;
  revokedAt?: number | undefined;
  /** Access tokens only. */
  expiresAt?: number;
  implicit?: boolean;
}

export type Change =
  /** An object of an editable collection (resources.ts), as stored. */
  | { op: "put"; resource: string; db: string; object: StoredObject }
  | { op: "delete"; resource: string; db: string; id: string }
  /** Back to the seed: one database, or everything (objects and applications). */
  | { op: "reset"; db?: string }
  /** The start of a snapshot: no object of an editable collection, not even the seed's. */
  | { op: "clear" }
  /** What the service assigns next in a collection of a database: automatic ids and sequences. */
  | { op: "counters"; resource: string; db: string; nextId: number; sequences: Record<string, number> }
  | { op: "app"; app: StoredApplication }
  | { op: "token"; kind: "access" | "refresh"; token: string; record: StoredToken }
  /** Every access token expired, or every token revoked, at `at`. */
  | { op: "tokens"; action: "expire" | "revoke"; at: number };

/** Where changes go before they are acknowledged (a data directory, when one is configured). */
export interface Journal {
  /** Must not return before the change is durable; throws StorageError when it can not be stored. */
  append(change: Change): void;
}

/** A change that could not be stored (a full disk): the request fails with 507 and nothing changes. */
export class StorageError extends Error {
  override name = "StorageError";
}

const isText = (v: unknown): v is string => typeof v === "string";
const isCount = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v) && v >= 0;
const isTime = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * A line an earlier version wrote, when it knew only one resource, in today's shape:
 * `{"op":"put","db":..,"customer":{..}}` names its collection by the key of the object
 * (matched without case); a delete or counters line without `resource` is of the first
 * editable collection, and its `nextOrganization` is that collection's first sequence.
 */
export function upgradeChange(v: unknown, model: ResourceModel): unknown {
  if (!isObject(v) || v.resource !== undefined || !["put", "delete", "counters"].includes(String(v.op))) return v;
  const first = model.collections.find((c) => c.editable);
  if (v.op === "put") {
    const key = Object.keys(v).find((k) => k !== "op" && k !== "db");
    const c = model.collections.find((x) => x.editable && x.name.toLowerCase() === key?.toLowerCase());
    return c && key ? { op: "put", resource: c.name, db: v.db, object: v[key] } : v;
  }
  if (!first) return v;
  if (v.op === "delete") return { ...v, resource: first.name };
  const { nextOrganization, ...rest } = v;
  const sequence = first.sequences[0];
  return {
    ...rest,
    resource: first.name,
    sequences: sequence !== undefined && nextOrganization !== undefined ? { [sequence]: nextOrganization } : {},
  };
}

/**
 * Why a parsed journal or snapshot line is not a change, or undefined when it is one.
 * `objectProblem` checks that the resource is an editable one of the contract and an object
 * (when the change holds one) against its collection's schema.
 */
export function changeProblem(
  v: unknown,
  objectProblem: (resource: string, o: unknown) => string | undefined,
): string | undefined {
  if (!isObject(v)) return `it is ${v === null ? "null" : typeof v}, not an object with "op"`;
  const needs = (ok: boolean, what: string) => (ok ? undefined : `a "${v.op}" change needs ${what}`);
  switch (v.op) {
    case "put":
      return (
        needs(isText(v.resource) && isText(v.db) && isObject(v.object), '"resource", "db" and "object"') ??
        objectProblem(v.resource as string, v.object)
      );
    case "delete":
      return (
        needs(isText(v.resource) && isText(v.db) && isText(v.id), '"resource", "db" and "id"') ??
        objectProblem(v.resource as string, undefined)
      );
    case "reset":
      return needs(v.db === undefined || isText(v.db), 'a "db" that is text, or none');
    case "clear":
      return undefined;
    case "counters":
      return (
        needs(
          isText(v.resource) &&
            isText(v.db) &&
            isCount(v.nextId) &&
            isObject(v.sequences) &&
            Object.values(v.sequences).every(isCount),
          '"resource", "db", "nextId" and "sequences" (counts)',
        ) ?? objectProblem(v.resource as string, undefined)
      );
    case "app": {
      const a = v.app;
      const shape = needs(
        isObject(a) &&
          isText(a.clientId) &&
          a.clientId !== "" &&
          isText(a.clientSecret) &&
          a.clientSecret !== "" &&
          isText(a.name) &&
          isText(a.redirectUri) &&
          (a.status === "pending" || a.status === "Actief"),
        'an "app" with clientId, clientSecret (not empty), name, redirectUri and status',
      );
      if (shape) return shape;
      // Checked as the portal checks a registration: a stored line is live input of an earlier day.
      const uri = registrableRedirectUri((a as { redirectUri: string }).redirectUri);
      if (!uri.ok) return `its application's redirectUri ${uri.problem}`;
      if (uri.uri !== (a as { redirectUri: string }).redirectUri) {
        return "its application's redirectUri is not written as the portal stores one (percent-encoded, its host in punycode)";
      }
      return undefined;
    }
    case "token": {
      const r = v.record;
      return needs(
        (v.kind === "access" || v.kind === "refresh") &&
          isText(v.token) &&
          isObject(r) &&
          isText(r.clientId) &&
          isText(r.user) &&
          isText(r.scope) &&
          Array.isArray(r.databases) &&
          r.databases.every(isText) &&
          typeof r.revoked === "boolean" &&
          (v.kind === "refresh" || isTime(r.expiresAt)),
        'a "kind", a "token" and a "record" with clientId, user, scope, databases, revoked (and expiresAt)',
      );
    }
    case "tokens":
      return needs((v.action === "expire" || v.action === "revoke") && isTime(v.at), 'an "action" and "at"');
    default:
      return `"op" is ${JSON.stringify(v.op)}, not one of put, delete, reset, clear, counters, app, token, tokens`;
  }
}
