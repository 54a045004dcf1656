// Codes, access tokens and refresh tokens: issued, checked, revoked. Every
// lifetime is measured on the mock's clock, so tests can move time, and every
// rule is read from the mock's rules at the moment it is applied.
import { randomFillSync } from "node:crypto";
import type { TokenCheck, TokenVerifier } from "../bearer.ts";
import type { Journal, StoredToken } from "../changes.ts";
import { isoTime } from "../clock.ts";
import {
  MAX_ACCESS_TOKENS,
  MAX_ACCESS_TOKENS_PER_CLIENT,
  MAX_CODES,
  MAX_CODES_PER_CLIENT,
  MAX_REFRESH_TOKENS,
  MAX_REFRESH_TOKENS_PER_CLIENT,
} from "../limits.ts";
import type { Rules } from "../rules.ts";
import { CappedMap, type CapReached } from "./caps.ts";

/**
 * How long a code or token stays known after it expired or was revoked, so that using it
 * soon after still hears "expired" or "revoked" rather than "unknown"; then sweep() drops it.
 */
export const KEPT_AFTER_END_MS = 10 * 60 * 1000;

// The system's random source, read 8 KiB at a time: a token needs 32 bytes, and asking the kernel
// for each was a sixth of a token refresh's time. Every byte is used once.
const pool = Buffer.alloc(8192);
let used = pool.length;

/** Random bytes, base64url (A-TOKEN-FORMAT; RFC 6749 10.10 asks for at least 128 bits). */
export function newSecret(bytes = 32): string {
  if (used + bytes > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  used += bytes;
  return pool.toString("base64url", used - bytes, used);
}

export interface IssueInput {
  clientId: string;
  user: string;
  databases: readonly string[];
  scope: string;
  /**
   * The code this grant descends from, through any number of refreshes. When
   * the code is used again, every token of its family is revoked (RFC 6749 4.1.2).
   */
  family?: string;
}

interface Code extends IssueInput {
  redirectUri: string;
  expiresAt: number;
  used: boolean;
}

interface RefreshToken {
  clientId: string;
  user: string;
  databases: readonly string[];
  scope: string;
  family: string | undefined;
  revoked: boolean;
  /** When it was revoked, on the mock's clock (sweep() counts from it). */
  revokedAt: number | undefined;
}

interface AccessToken extends RefreshToken {
  expiresAt: number;
  /** Issued by the implicit flow. */
  implicit: boolean;
}

/** A grant as an input or a stored record carries it. */
type Granted = Omit<IssueInput, "family"> & { family?: string | undefined };

// Records are written out as literals of one shape: a record spread from its input takes about
// 400 bytes of heap and this one about 100, and a long run holds up to 100,000 access tokens.
const refreshRecord = (g: Granted, revoked: boolean, revokedAt: number | undefined): RefreshToken => ({
  clientId: g.clientId,
  user: g.user,
  databases: g.databases,
  scope: g.scope,
  family: g.family,
  revoked,
  revokedAt,
});

const accessRecord = (
  g: Granted,
  expiresAt: number,
  implicit: boolean,
  revoked: boolean,
  revokedAt: number | undefined,
): AccessToken => ({
  clientId: g.clientId,
  user: g.user,
  databases: g.databases,
  scope: g.scope,
  family: g.family,
  revoked,
  revokedAt,
  expiresAt,
  implicit,
});

/** How many of each the store holds (the bench and the shrink test read it). */
export interface TokenCounts {
  codes: number;
  accessTokens: number;
  refreshTokens: number;
  families: number;
}

export interface Issued {
  accessToken: string;
  expiresIn: number;
}

/** An access or refresh token as the dashboard lists it (never the whole secret). */
export interface TokenSummary {
  kind: "access" | "refresh";
  /** The first characters, enough to recognise it. */
  prefix: string;
  clientId: string;
  user: string;
  state: "valid" | "expired" | "revoked";
  expiresAt?: string;
}

type Failed = { ok: false; description: string };

/** What a client may be refused more of (room()). */
export type Issuable = "code" | "access" | "refresh";

/** When an ended code or token may go: KEPT_AFTER_END_MS after its end. */
const keptUntil = (end: number | undefined) => (end === undefined ? undefined : end + KEPT_AFTER_END_MS);
const perClient = (limit: number) => [{ of: "client", limit, owner: (t: { clientId: string }) => t.clientId }];

export class TokenStore implements TokenVerifier {
  /** Tokens issued from each code, directly or by refreshing. */
  #families = new Map<string, string[]>();
  #codes = new CappedMap<Code>({
    what: "authorization codes",
    overall: MAX_CODES,
    per: perClient(MAX_CODES_PER_CLIENT),
    droppableAt: (c) => keptUntil(c.expiresAt),
    onDrop: (code) => this.#families.delete(code),
  });
  #access = new CappedMap<AccessToken>({
    what: "access tokens",
    overall: MAX_ACCESS_TOKENS,
    per: perClient(MAX_ACCESS_TOKENS_PER_CLIENT),
    droppableAt: (t) => {
      const expires = this.rules.accessTokensExpire ? t.expiresAt : undefined;
      if (t.revokedAt === undefined || expires === undefined) return keptUntil(t.revokedAt ?? expires);
      return keptUntil(Math.min(t.revokedAt, expires));
    },
    whenNeverEnding: "they do not expire under the rules in force: revoke some (POST /__mock/tokens/revoke)",
  });
  #refresh = new CappedMap<RefreshToken>({
    what: "refresh tokens",
    overall: MAX_REFRESH_TOKENS,
    per: perClient(MAX_REFRESH_TOKENS_PER_CLIENT),
    droppableAt: (t) => keptUntil(t.revokedAt),
    whenNeverEnding: "refresh tokens do not expire: revoke some (POST /__mock/tokens/revoke)",
  });

  constructor(
    private readonly rules: Rules,
    private readonly journal?: Journal,
  ) {}

  /**
   * Whether the client may be given one more of each kind now, or the cap that is full
   * (A-LIMITS). Callers ask before they redeem or issue anything, so a refusal costs the client
   * nothing; the issue methods themselves refuse nothing (restores, the operator's generator).
   */
  room(clientId: string, kinds: readonly Issuable[], now: number): CapReached | undefined {
    const maps = { code: this.#codes, access: this.#access, refresh: this.#refresh };
    for (const kind of kinds) {
      const full = maps[kind].room([clientId], now);
      if (full) return full;
    }
    return undefined;
  }

  /** Puts a token back as a data directory recorded it, without recording it again. */
  restore(kind: "access" | "refresh", token: string, record: StoredToken): void {
    const grant = TokenStore.#grant(record);
    this.#set(
      kind,
      token,
      kind === "access"
        ? accessRecord(grant, record.expiresAt ?? 0, record.implicit ?? false, record.revoked, record.revokedAt)
        : refreshRecord(grant, record.revoked, record.revokedAt),
    );
  }

  /** Replays "every access token expired" or "every token revoked" at a recorded time. */
  restoreAll(action: "expire" | "revoke", at: number): void {
    if (action === "expire") for (const a of this.#access.values()) a.expiresAt = Math.min(a.expiresAt, at);
    else
      for (const t of [...this.#access.values(), ...this.#refresh.values()]) {
        if (t.revoked) continue;
        t.revoked = true;
        t.revokedAt = at;
      }
  }

  /** The changes that rebuild every token as it is now, for a snapshot. */
  *snapshot(): Generator<{ op: "token"; kind: "access" | "refresh"; token: string; record: StoredToken }> {
    for (const [token, record] of this.#access) yield { op: "token", kind: "access", token, record };
    for (const [token, record] of this.#refresh) yield { op: "token", kind: "refresh", token, record };
  }

  /** Records a token's new state, then keeps it: nothing changes unless it was stored. */
  #keep(kind: "access", token: string, record: AccessToken): void;
  #keep(kind: "refresh", token: string, record: RefreshToken): void;
  #keep(kind: "access" | "refresh", token: string, record: AccessToken | RefreshToken): void {
    this.journal?.append({ op: "token", kind, token, record });
    this.#set(kind, token, record);
  }

  /** Keeps a token's state. */
  #set(kind: "access" | "refresh", token: string, record: AccessToken | RefreshToken): void {
    if (kind === "access") this.#access.set(token, record as AccessToken);
    else this.#refresh.set(token, record as RefreshToken);
  }

  clear(): void {
    this.#codes.clear();
    this.#access.clear();
    this.#refresh.clear();
    this.#families.clear();
  }

  #secret(): string {
    return newSecret(this.rules.tokenBytes);
  }

  #remember(token: string, family: string | undefined): void {
    if (family !== undefined) this.#families.get(family)?.push(token);
  }

  verify(token: string, now: number): TokenCheck {
    const t = this.#access.get(token);
    if (!t) return { ok: false, description: "The access token is unknown" };
    if (t.revoked) return { ok: false, description: "The access token was revoked" };
    if (this.rules.accessTokensExpire && now >= t.expiresAt)
      return { ok: false, description: "The access token expired" };
    if (t.implicit && !this.rules.acceptImplicitTokens) {
      return { ok: false, description: "Tokens of the implicit flow are not accepted" };
    }
    return { ok: true, grant: { user: t.user, clientId: t.clientId, databases: t.databases } };
  }

  issueAccessToken(input: IssueInput, now: number, implicit = false): Issued {
    const accessToken = this.#secret();
    const seconds = this.rules.accessTokenSeconds;
    this.#keep("access", accessToken, accessRecord(input, now + seconds * 1000, implicit, false, undefined));
    this.#remember(accessToken, input.family);
    return { accessToken, expiresIn: seconds };
  }

  issueRefreshToken(input: IssueInput): string {
    const token = this.#secret();
    this.#keep("refresh", token, refreshRecord(input, false, undefined));
    this.#remember(token, input.family);
    return token;
  }

  issueCode(input: IssueInput & { redirectUri: string }, now: number): string {
    const code = this.#secret();
    this.#codes.set(code, { ...input, expiresAt: now + this.rules.codeSeconds * 1000, used: false });
    this.#families.set(code, []);
    return code;
  }

  /**
   * Redeems a code for the client and redirect URI it was issued to. A second
   * use fails and revokes every token that descends from the first (RFC 6749 4.1.2).
   */
  redeemCode(
    code: string,
    clientId: string,
    redirectUri: string,
    now: number,
  ): { ok: true; grant: IssueInput } | Failed {
    const { rules } = this;
    const c = this.#codes.get(code);
    if (!c) return { ok: false, description: "The authorization code is unknown" };
    if (rules.codeBoundToClient && c.clientId !== clientId) {
      return { ok: false, description: "The authorization code was issued to another client" };
    }
    if (c.used && rules.codeSingleUse) {
      if (rules.codeReuseRevokes) for (const t of this.#families.get(code) ?? []) this.revoke(t, now);
      return {
        ok: false,
        description: rules.codeReuseRevokes
          ? "The authorization code was already used; the tokens issued from it are revoked"
          : "The authorization code was already used",
      };
    }
    if (now >= c.expiresAt) return { ok: false, description: "The authorization code expired" };
    if (rules.codeBoundToRedirectUri && c.redirectUri !== redirectUri) {
      return { ok: false, description: "redirect_uri differs from the one the code was issued for" };
    }
    c.used = true;
    const { user, databases, scope } = c;
    return { ok: true, grant: { clientId, user, databases, scope, family: code } };
  }

  /**
   * The grant of a refresh token, when it is valid and belongs to the client.
   * With rotation on, the token is used up and a new one comes with the grant.
   */
  refreshGrant(
    token: string,
    clientId: string,
    now: number,
  ): { ok: true; grant: IssueInput; refreshToken: string } | Failed {
    const r = this.#refresh.get(token);
    if (!r || r.revoked) return { ok: false, description: "The refresh token is unknown or revoked" };
    if (this.rules.refreshBoundToClient && r.clientId !== clientId) {
      return { ok: false, description: "The refresh token was issued to another client" };
    }
    if (!this.rules.refreshAfterExpiry && r.family !== undefined) {
      // The fault refresh-only-while-valid: a refresh token that works only while an access token of its family does.
      const family = this.#families.get(r.family) ?? [];
      const live = family.some((t) => {
        const a = this.#access.get(t);
        return a !== undefined && !a.revoked && now < a.expiresAt;
      });
      if (!live) return { ok: false, description: "The access token of this refresh token expired" };
    }
    const grant = TokenStore.#grant(r);
    if (!this.rules.rotateRefreshTokens) return { ok: true, grant, refreshToken: token };
    this.revoke(token, now);
    return { ok: true, grant, refreshToken: this.issueRefreshToken(grant) };
  }

  revoke(token: string, now: number): boolean {
    const a = this.#access.get(token);
    if (a && !a.revoked) this.#keep("access", token, accessRecord(a, a.expiresAt, a.implicit, true, now));
    const r = a ? undefined : this.#refresh.get(token);
    if (r && !r.revoked) this.#keep("refresh", token, refreshRecord(r, true, now));
    return a !== undefined || r !== undefined;
  }

  /** Makes an access token expire now; a refresh token, which never expires, is revoked. */
  expire(token: string, now: number): boolean {
    const a = this.#access.get(token);
    if (a) this.#keep("access", token, accessRecord(a, Math.min(a.expiresAt, now), a.implicit, a.revoked, a.revokedAt));
    return a !== undefined || this.revoke(token, now);
  }

  /** Every access token expires now (refresh tokens keep working, as after a long pause). */
  expireAll(now: number): number {
    this.journal?.append({ op: "tokens", action: "expire", at: now });
    this.restoreAll("expire", now);
    return this.#access.size;
  }

  revokeAll(now: number): number {
    this.journal?.append({ op: "tokens", action: "revoke", at: now });
    this.restoreAll("revoke", now);
    return this.#access.size + this.#refresh.size;
  }

  /**
   * Drops what can never be used again: codes, expired access tokens and revoked tokens,
   * KEPT_AFTER_END_MS after their end. Refresh tokens do not expire; they go when revoked.
   */
  sweep(now: number): void {
    this.#codes.sweep(now);
    this.#access.sweep(now);
    this.#refresh.sweep(now);
  }

  counts(): TokenCounts {
    return {
      codes: this.#codes.size,
      accessTokens: this.#access.size,
      refreshTokens: this.#refresh.size,
      families: this.#families.size,
    };
  }

  /** What a token grants, without its state. */
  static #grant(t: Granted): IssueInput {
    const { clientId, user, databases, scope, family } = t;
    return family === undefined ? { clientId, user, databases, scope } : { clientId, user, databases, scope, family };
  }

  /** The token whose secret starts with `prefix`, when exactly one does (the dashboard names tokens so). */
  byPrefix(prefix: string): string | undefined {
    if (prefix.length < 6) return undefined;
    const found = [...this.#access.keys(), ...this.#refresh.keys()].filter((t) => t.startsWith(prefix));
    return found.length === 1 ? found[0] : undefined;
  }

  list(now: number): TokenSummary[] {
    const state = (t: { revoked: boolean; expiresAt?: number }) =>
      t.revoked ? "revoked" : t.expiresAt !== undefined && now >= t.expiresAt ? "expired" : "valid";
    return [
      ...[...this.#access].map(
        ([token, t]): TokenSummary => ({
          kind: "access",
          prefix: token.slice(0, 10),
          clientId: t.clientId,
          user: t.user,
          state: state(t),
          expiresAt: isoTime(t.expiresAt),
        }),
      ),
      ...[...this.#refresh].map(
        ([token, t]): TokenSummary => ({
          kind: "refresh",
          prefix: token.slice(0, 10),
          clientId: t.clientId,
          user: t.user,
          state: state(t),
        }),
      ),
    ];
  }
}
