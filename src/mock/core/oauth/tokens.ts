// Codes, access tokens and refresh tokens: issued, checked, revoked.
// Every lifetime is measured on the mock's clock, so tests can move time.
import { randomBytes } from "node:crypto";
import type { AccessGrant, TokenCheck, TokenVerifier } from "../bearer.ts";

export const ACCESS_TOKEN_SECONDS = 7200;
export const CODE_SECONDS = 300; // A-CODE-LIFETIME

/** 256 random bits, base64url (A-TOKEN-FORMAT; RFC 6749 10.10 asks for at least 128). */
export const newSecret = (bytes = 32) => randomBytes(bytes).toString("base64url");

export interface TokenStoreOptions {
  /** Lifetime of authorization codes (A-CODE-LIFETIME). */
  codeSeconds?: number;
  /** Random bytes per code and token. */
  secretBytes?: number;
}

interface Code {
  clientId: string;
  redirectUri: string;
  user: string;
  databases: readonly string[];
  scope: string;
  expiresAt: number;
  used: boolean;
}

interface AccessToken extends AccessGrant {
  scope: string;
  expiresAt: number;
  revoked: boolean;
}

interface RefreshToken extends IssueInput {
  revoked: boolean;
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

export interface Issued {
  accessToken: string;
  expiresIn: number;
}

export class TokenStore implements TokenVerifier {
  readonly #codeSeconds: number;
  readonly #secretBytes: number;
  #codes = new Map<string, Code>();
  #access = new Map<string, AccessToken>();
  #refresh = new Map<string, RefreshToken>();
  /** Tokens issued from each code, directly or by refreshing. */
  #families = new Map<string, string[]>();

  constructor(options: TokenStoreOptions = {}) {
    this.#codeSeconds = options.codeSeconds ?? CODE_SECONDS;
    this.#secretBytes = options.secretBytes ?? 32;
  }

  clear(): void {
    this.#codes.clear();
    this.#access.clear();
    this.#refresh.clear();
    this.#families.clear();
  }

  #remember(token: string, family: string | undefined): void {
    if (family !== undefined) this.#families.get(family)?.push(token);
  }

  verify(token: string, now: number): TokenCheck {
    const t = this.#access.get(token);
    if (!t) return { ok: false, description: "The access token is unknown" };
    if (t.revoked) return { ok: false, description: "The access token was revoked" };
    if (now >= t.expiresAt) return { ok: false, description: "The access token expired" };
    return { ok: true, grant: { user: t.user, clientId: t.clientId, databases: t.databases } };
  }

  issueAccessToken(input: IssueInput, now: number): Issued {
    const accessToken = newSecret(this.#secretBytes);
    this.#access.set(accessToken, { ...input, expiresAt: now + ACCESS_TOKEN_SECONDS * 1000, revoked: false });
    this.#remember(accessToken, input.family);
    return { accessToken, expiresIn: ACCESS_TOKEN_SECONDS };
  }

  issueRefreshToken(input: IssueInput): string {
    const token = newSecret(this.#secretBytes);
    this.#refresh.set(token, { ...input, revoked: false });
    this.#remember(token, input.family);
    return token;
  }

  issueCode(input: IssueInput & { redirectUri: string }, now: number): string {
    const code = newSecret(this.#secretBytes);
    this.#codes.set(code, { ...input, expiresAt: now + this.#codeSeconds * 1000, used: false });
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
  ): { ok: true; grant: IssueInput } | { ok: false; description: string } {
    const c = this.#codes.get(code);
    if (!c) return { ok: false, description: "The authorization code is unknown" };
    if (c.clientId !== clientId)
      return { ok: false, description: "The authorization code was issued to another client" };
    if (c.used) {
      for (const t of this.#families.get(code) ?? []) this.revoke(t);
      return {
        ok: false,
        description: "The authorization code was already used; the tokens issued from it are revoked",
      };
    }
    if (now >= c.expiresAt) return { ok: false, description: "The authorization code expired" };
    if (c.redirectUri !== redirectUri)
      return { ok: false, description: "redirect_uri differs from the one the code was issued for" };
    c.used = true;
    const { user, databases, scope } = c;
    return { ok: true, grant: { clientId, user, databases, scope, family: code } };
  }

  /** To whom and where a code was issued, without using it. */
  peekCode(code: string): { clientId: string; redirectUri: string } | undefined {
    const c = this.#codes.get(code);
    return c && { clientId: c.clientId, redirectUri: c.redirectUri };
  }

  /** The client a refresh token was issued to, without using it. */
  peekRefresh(token: string): { clientId: string } | undefined {
    const r = this.#refresh.get(token);
    return r && { clientId: r.clientId };
  }

  /** The grant of a refresh token, when it is valid and belongs to the client. */
  refreshGrant(token: string, clientId: string): { ok: true; grant: IssueInput } | { ok: false; description: string } {
    const r = this.#refresh.get(token);
    if (!r || r.revoked) return { ok: false, description: "The refresh token is unknown or revoked" };
    if (r.clientId !== clientId) return { ok: false, description: "The refresh token was issued to another client" };
    const { revoked: _revoked, ...grant } = r;
    return { ok: true, grant };
  }

  revoke(token: string): void {
    const a = this.#access.get(token);
    if (a) a.revoked = true;
    const r = this.#refresh.get(token);
    if (r) r.revoked = true;
  }
}
