// POST /OAuth/Token: the request's parameters, the answer's shape, and what
// its codes and tokens did before (Endpoints, body parameters and response;
// Authentication 4-8; RFC 6749 4.1.3, 5, 6, 10.5).
import { basicCredentials, expectation, fingerprint, formOf, header, jsonOf, mediaType } from "../exchange.ts";
import type { CodeSeen, Memory, RefreshTokenSeen } from "../memory.ts";
import { CODE_MAX_SECONDS, forbidsStoring } from "../oauth.ts";
import { entropy, sameScope } from "./redirects.ts";
import { group, isObject, type Judged, quote, type Step, violation } from "./step.ts";

interface TokenRequest extends Judged {
  form: Record<string, string>;
  basic: { id: string; secret: string } | undefined;
  clientId: string | undefined;
  secret: string | undefined;
  grant: string | undefined;
  /** The target's time of the answer. */
  now: number;
  /** What the judge knows of the code or refresh token the request sends. */
  code: CodeSeen | undefined;
  refresh: RefreshTokenSeen | undefined;
  /** The requirement of the grant's parameters and those the request left out. */
  needed: { id: "TOKEN-CODE-PARAMS" | "TOK-REFRESH-PARAMS"; missing: string[] } | undefined;
  /** An error answer's code (body.error), when the answer is JSON with one. */
  error: string | undefined;
  /** A 200 answer's JSON, when it is JSON (application/json that parses). */
  parsed: { value: unknown } | undefined;
  /** The same, when it is an object. */
  answer: Record<string, unknown> | undefined;
}

const refused = (t: TokenRequest) => t.ex.status >= 400;
const issued = (t: TokenRequest) => t.ex.status === 200;

/** A code used twice: the tokens its first use issued, and those refreshed from them, are revoked. */
function revokeCode(code: CodeSeen, memory: Memory): void {
  code.revoked = true;
  const refresh = code.refresh ? memory.refresh.get(code.refresh) : undefined;
  if (refresh) refresh.revoked = true;
  for (const t of memory.access.values()) {
    if ((code.access && t === memory.access.get(code.access)) || (code.refresh && t.lineage === code.refresh))
      t.revoked = true;
  }
}

const STEPS: ReadonlyArray<Step<TokenRequest>> = [
  // ── an error answer ──
  {
    name: "a token error carries a code the contract lists (RFC 6749 5.2)",
    reports: ["OAUTH-TOKEN-ERRORS"],
    run: (t) => {
      if (!refused(t) || t.ex.status >= 500) return [];
      if (t.error !== undefined && t.facts.tokenErrors.includes(t.error)) return [];
      return [
        violation(
          "OAUTH-TOKEN-ERRORS",
          "body.error",
          `JSON with error one of ${t.facts.tokenErrors.join(", ")}`,
          t.error ? quote(t.error) : "no error code",
        ),
      ];
    },
  },
  {
    name: "a second use of a code by its client revokes what its first use issued",
    reports: [],
    run: ({ ex, code, clientId, needed, error, memory }) => {
      // Refused for the code, not for the client's credentials.
      const aboutClient = ex.status === 401 || error === "invalid_client" || error === "invalid_request";
      if (ex.status >= 400 && code && code.exchanged > 0 && code.clientId === clientId && !needed?.missing.length) {
        if (!aboutClient) revokeCode(code, memory);
      }
      return undefined;
    },
  },
  {
    name: "a refresh token that worked keeps working for the same client, secret and redirect URI, also after expiry",
    reports: ["AUTH-BACKGROUND", "TOK-RENEWED"],
    run: ({ ex, refresh, clientId, secret, form, error, now, basic }) => {
      if (ex.status < 400 || ex.status >= 500 || ex.status === 429 || !refresh?.worked || refresh.revoked) return [];
      // Credentials in a Basic header are judged by their own rule (OAUTH-CLIENT-BASIC).
      if (basic) return [];
      const sameClient = refresh.clientId === clientId && refresh.secret === (secret && fingerprint(secret));
      if (!sameClient || refresh.redirectUri !== form.redirect_uri) return [];
      const found = `${ex.status} ${error ?? ""}`.trim();
      const before = refresh.refusedLast;
      refresh.refusedLast = true;
      // Refused once every access token it gave has expired, having worked up to then: the token
      // table's way back is closed. Refused before expiry already, it is the same finding again.
      if (now > refresh.lineageExpiresAt && !before) {
        return [
          violation(
            "TOK-RENEWED",
            "status",
            "the refresh grant after expiry gives a new access token (Tokens, rows 3 and 4)",
            `the refresh grant after expiry: ${found}`,
          ),
        ];
      }
      return [
        violation(
          "AUTH-BACKGROUND",
          "status",
          "a refresh token that worked before, with the same client, secret and redirect URI, keeps working",
          found,
        ),
      ];
    },
  },
  {
    name: "client credentials in an HTTP Basic header are read",
    reports: ["OAUTH-CLIENT-BASIC"],
    run: ({ ex, basic, needed, memory, error }) => {
      if (ex.status < 400 || !basic) return [];
      if (needed?.missing.length || memory.secrets.get(basic.id) !== fingerprint(basic.secret)) return [];
      if (error !== "invalid_request" && error !== "invalid_client") return [];
      return [
        violation(
          "OAUTH-CLIENT-BASIC",
          "header Authorization",
          "client credentials in an HTTP Basic header are read (they worked in the form before)",
          `${ex.status} ${error}`,
        ),
      ];
    },
  },
  // ── a token issued ──
  {
    name: "no token without a parameter the grant requires",
    reports: ["TOKEN-CODE-PARAMS", "TOK-REFRESH-PARAMS"],
    run: (t) =>
      issued(t) && t.needed && t.needed.missing.length > 0
        ? [
            violation(
              t.needed.id,
              `form ${t.needed.missing.join(", ")}`,
              `no token without ${t.needed.missing.join(", ")}`,
              "200 with a token",
            ),
          ]
        : [],
  },
  {
    name: "a code is used once",
    reports: ["OAUTH-CODE-SINGLE-USE"],
    run: (t) =>
      issued(t) && t.code && t.code.exchanged > 0
        ? [
            violation(
              "OAUTH-CODE-SINGLE-USE",
              "form code",
              "a code used before is refused with invalid_grant",
              "200 with a token",
            ),
          ]
        : [],
  },
  {
    name: "a code is bound to its client and redirect URI",
    reports: ["OAUTH-CODE-BOUND"],
    run: (t) => {
      const { code, clientId, form } = t;
      if (!issued(t) || !code) return [];
      const otherRedirect = form.redirect_uri !== undefined && code.redirectUri !== form.redirect_uri;
      if (code.clientId === clientId && !otherRedirect) return [];
      return [
        violation(
          "OAUTH-CODE-BOUND",
          code.clientId !== clientId ? "form client_id" : "form redirect_uri",
          `the client (${code.clientId}) and redirect URI the code was issued for`,
          code.clientId !== clientId ? quote(clientId) : quote(form.redirect_uri),
        ),
      ];
    },
  },
  {
    name: "a code older than ten minutes is refused",
    reports: ["OAUTH-CODE-LIFETIME"],
    run: (t) =>
      issued(t) && t.code && t.now - t.code.issuedAt > CODE_MAX_SECONDS * 1000
        ? [
            violation(
              "OAUTH-CODE-LIFETIME",
              "form code",
              `a code older than ${CODE_MAX_SECONDS} s is refused`,
              `accepted ${Math.round((t.now - t.code.issuedAt) / 1000)} s after it was issued`,
            ),
          ]
        : [],
  },
  {
    name: "a refresh token is bound to its client",
    reports: ["OAUTH-REFRESH-BOUND"],
    run: (t) =>
      issued(t) && t.refresh && t.refresh.clientId !== t.clientId
        ? [
            violation(
              "OAUTH-REFRESH-BOUND",
              "form client_id",
              `the client the refresh token was issued to (${t.refresh.clientId})`,
              quote(t.clientId),
            ),
          ]
        : [],
  },
  {
    name: "a client has one secret",
    reports: ["AUTH-SECRET"],
    run: (t) => {
      const { clientId, secret, memory } = t;
      if (!issued(t) || !clientId || !secret) return [];
      const known = memory.secrets.get(clientId);
      if (known && known !== fingerprint(secret)) {
        return [
          violation(
            "AUTH-SECRET",
            "form client_secret",
            "the client's secret (another one was accepted before)",
            "a different secret, accepted",
          ),
        ];
      }
      memory.secrets.set(clientId, fingerprint(secret));
      return [];
    },
  },
  {
    name: "a token answer may not be stored",
    reports: ["OAUTH-NO-STORE"],
    run: (t) => {
      const cacheControl = header(t.ex, "cache-control");
      return issued(t) && !forbidsStoring(cacheControl)
        ? [violation("OAUTH-NO-STORE", "header Cache-Control", "no-store", quote(cacheControl))]
        : [];
    },
  },
  {
    name: "the token answer is JSON",
    reports: ["TOKEN-FORM-BODY"],
    run: (t) => {
      if (!issued(t) || t.parsed) return [];
      const type = mediaType(header(t.ex, "content-type"));
      return [
        violation(
          "TOKEN-FORM-BODY",
          "header Content-Type",
          "a JSON answer (application/json)",
          type === "application/json" ? "a body that is not JSON" : quote(type),
        ),
      ];
    },
  },
  {
    name: "the token answer has the description's fields, expires_in and the scope",
    reports: ["TOKEN-RESPONSE", "SCOPE-SINGLE", "TOK-CODE-EXCHANGE", "TOK-REFRESH"],
    run: ({ parsed, answer, spec, grant }) => {
      if (!parsed) return [];
      const issuedVia = grant === "refresh_token" ? "TOK-REFRESH" : "TOK-CODE-EXCHANGE";
      return spec.check("TokenResponse", parsed.value).map((p) => {
        const field = p.field.split(".")[0] ?? "";
        const requirement =
          field === "scope"
            ? "SCOPE-SINGLE"
            : (field === "access_token" || field === "refresh_token") && p.message === "is required"
              ? issuedVia
              : "TOKEN-RESPONSE";
        const value = answer?.[field];
        // A token's value is never shown, only its type.
        const found = value === undefined ? "missing" : field.endsWith("token") ? typeof value : JSON.stringify(value);
        return violation(requirement, `body.${p.field || "(body)"}`, expectation(p.message), found);
      });
    },
  },
  {
    name: "every grant names the single scope",
    reports: ["SCOPE-SINGLE"],
    run: ({ answer, memory }) =>
      typeof answer?.scope === "string" ? sameScope(answer.scope, "body.scope", memory) : [],
  },
  {
    name: "tokens can carry 128 bits and are new; remember what was issued",
    reports: ["OAUTH-TOKEN-ENTROPY"],
    run: ({ answer, form, grant, code, refresh, clientId, secret, now, memory, facts }) => {
      if (!answer) return [];
      const out = [];
      const access = typeof answer.access_token === "string" ? answer.access_token : undefined;
      const issuedRefresh = typeof answer.refresh_token === "string" ? answer.refresh_token : undefined;
      const lineage =
        grant === "refresh_token" && form.refresh_token
          ? fingerprint(form.refresh_token)
          : issuedRefresh && fingerprint(issuedRefresh);
      const expiresIn = typeof answer.expires_in === "number" ? answer.expires_in : facts.tokenSeconds;
      // The lineage's newest access token lasts until this (the description's lifetime at most).
      const expiresAt = access ? now + Math.min(expiresIn, facts.tokenSeconds) * 1000 : 0;
      if (access) {
        const fp = fingerprint(access);
        out.push(...entropy(access, "body.access_token", memory.access.has(fp)));
        memory.access.set(fp, {
          issuedAt: now,
          expiresIn,
          via: grant === "refresh_token" ? "refresh" : "code",
          clientId,
          lineage,
          code: code && form.code ? fingerprint(form.code) : undefined,
          answered: undefined,
          revoked: code?.revoked ?? false,
        });
      }
      // Before a refresh token answered again is remembered anew, so the new entry keeps this.
      if (refresh) {
        refresh.worked = true;
        refresh.refusedLast = false;
        refresh.lineageExpiresAt = Math.max(refresh.lineageExpiresAt, expiresAt);
      }
      if (issuedRefresh) {
        const fp = fingerprint(issuedRefresh);
        // A refresh grant may answer the same refresh token again (A-REFRESH-TOKENS); a new one must be new.
        if (!(grant === "refresh_token" && issuedRefresh === form.refresh_token)) {
          out.push(...entropy(issuedRefresh, "body.refresh_token", memory.refresh.has(fp)));
        }
        const known = memory.refresh.get(fp);
        memory.refresh.set(fp, {
          clientId,
          secret: secret && fingerprint(secret),
          redirectUri: form.redirect_uri,
          worked: known?.worked ?? false,
          revoked: known?.revoked ?? false,
          answered: known?.answered,
          lineageExpiresAt: Math.max(known?.lineageExpiresAt ?? 0, expiresAt),
          refusedLast: known?.refusedLast ?? false,
        });
      }
      if (code && form.code) {
        if (code.exchanged === 0) {
          if (access) code.access = fingerprint(access);
          if (issuedRefresh) code.refresh = fingerprint(issuedRefresh);
        }
        code.exchanged++;
      }
      return out;
    },
  },
];

export const TOKEN = group<TokenRequest>({
  name: "POST /OAuth/Token",
  read(j) {
    if (j.place.endpoint !== "token" || j.method !== "POST") return undefined;
    const { ex, memory } = j;
    const form = formOf(ex) ?? {};
    const basic = basicCredentials(ex.requestHeaders.authorization);
    const clientId = form.client_id ?? basic?.id;
    const secret = form.client_secret ?? basic?.secret;
    const grant = form.grant_type;
    const params =
      grant === "authorization_code"
        ? { code: form.code, client_id: clientId, client_secret: secret, redirect_uri: form.redirect_uri }
        : grant === "refresh_token"
          ? {
              refresh_token: form.refresh_token,
              client_id: clientId,
              client_secret: secret,
              redirect_uri: form.redirect_uri,
            }
          : undefined;
    const missing = Object.entries(params ?? {})
      .filter(([, x]) => !x)
      .map(([k]) => k);
    let error: string | undefined;
    let parsed: { value: unknown } | undefined;
    if (ex.status >= 400) {
      const value = jsonOf(ex.body)?.value as { error?: unknown } | undefined;
      error = typeof value?.error === "string" ? value.error : undefined;
    } else if (ex.status === 200 && mediaType(header(ex, "content-type")) === "application/json") {
      parsed = jsonOf(ex.body);
    }
    return {
      form,
      basic,
      clientId,
      secret,
      grant,
      now: memory.targetTime(ex.at),
      code: grant === "authorization_code" && form.code ? memory.codes.get(fingerprint(form.code)) : undefined,
      refresh:
        grant === "refresh_token" && form.refresh_token
          ? memory.refresh.get(fingerprint(form.refresh_token))
          : undefined,
      needed: params && {
        id: grant === "authorization_code" ? "TOKEN-CODE-PARAMS" : "TOK-REFRESH-PARAMS",
        missing,
      },
      error,
      parsed,
      answer: isObject(parsed?.value) ? parsed.value : undefined,
      ...j,
    };
  },
  steps: STEPS,
});
