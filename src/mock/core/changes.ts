// Acknowledged changes of the mock's state, as a data directory records them
// (src/mock/node/data-dir.ts): customers, applications and tokens. A snapshot is
// the same kind of lines, starting with "clear", that rebuild the whole state.
import type { Customer } from "./store.ts";

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
  | { op: "put"; db: string; customer: Customer }
  | { op: "delete"; db: string; id: string }
  /** Back to the seed: one database, or everything (customers and applications). */
  | { op: "reset"; db?: string }
  /** The start of a snapshot: no customer at all, not even the seed's. */
  | { op: "clear" }
  | { op: "counters"; db: string; nextId: number; nextOrganization: number }
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
 * Why a parsed journal or snapshot line is not a change, or undefined when it is one.
 * `customerProblem` checks a customer against the contract.
 */
export function changeProblem(v: unknown, customerProblem: (c: unknown) => string | undefined): string | undefined {
  if (!isObject(v)) return `it is ${v === null ? "null" : typeof v}, not an object with "op"`;
  const needs = (ok: boolean, what: string) => (ok ? undefined : `a "${v.op}" change needs ${what}`);
  switch (v.op) {
    case "put":
      return needs(isText(v.db) && isObject(v.customer), '"db" and "customer"') ?? customerProblem(v.customer);
    case "delete":
      return needs(isText(v.db) && isText(v.id), '"db" and "id"');
    case "reset":
      return needs(v.db === undefined || isText(v.db), 'a "db" that is text, or none');
    case "clear":
      return undefined;
    case "counters":
      return needs(
        isText(v.db) && isCount(v.nextId) && isCount(v.nextOrganization),
        '"db", "nextId", "nextOrganization"',
      );
    case "app": {
      const a = v.app;
      return needs(
        isObject(a) &&
          isText(a.clientId) &&
          isText(a.clientSecret) &&
          isText(a.name) &&
          isText(a.redirectUri) &&
          (a.status === "pending" || a.status === "Actief"),
        'an "app" with clientId, clientSecret, name, redirectUri and status',
      );
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
