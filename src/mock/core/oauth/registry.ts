// Registered applications and users of the authorization server (A-REGISTRATION).
import { randomBytes } from "node:crypto";
import type { Journal } from "../changes.ts";
import { MAX_REDIRECT_URI } from "../limits.ts";

export type ApplicationStatus = "pending" | "Actief";

export interface Application {
  clientId: string;
  clientSecret: string;
  name: string;
  /** Compared with the redirect_uri of a request by exact string match. */
  redirectUri: string;
  status: ApplicationStatus;
}

export interface User {
  username: string;
  password: string;
  databases: readonly string[];
}

export interface OAuthSeed {
  applications: readonly Application[];
  users: readonly User[];
  /** The single background user that refresh tokens are generated for (description, Authentication 8). */
  backgroundUser: string;
}

export class Registry {
  #apps = new Map<string, Application>();
  #users = new Map<string, User>();

  constructor(
    private readonly seed: OAuthSeed,
    private readonly journal?: Journal,
  ) {
    this.reset();
  }

  /** Puts an application back as a data directory recorded it, without recording it again. */
  restore(app: Application): void {
    this.#apps.set(app.clientId, { ...app });
  }

  /** Records the new state of an application, then keeps it: nothing changes unless it was stored. */
  #keep(app: Application): Application {
    this.journal?.append({ op: "app", app });
    this.#apps.set(app.clientId, app);
    return app;
  }

  get backgroundUser(): string {
    return this.seed.backgroundUser;
  }

  reset(): void {
    this.#apps = new Map(this.seed.applications.map((a) => [a.clientId, { ...a }]));
    this.#users = new Map(this.seed.users.map((u) => [u.username, { ...u }]));
  }

  /** An application that may take part in a flow: registered and active. */
  activeApplication(clientId: string): Application | undefined {
    const app = this.#apps.get(clientId);
    return app?.status === "Actief" ? app : undefined;
  }

  /** The active applications: only they unlock anything (their redirect URI's origin for CORS, A-CORS). */
  activeApplications(): Application[] {
    return this.applications().filter((a) => a.status === "Actief");
  }

  application(clientId: string): Application | undefined {
    return this.#apps.get(clientId);
  }

  applications(): Application[] {
    return [...this.#apps.values()];
  }

  user(username: string): User | undefined {
    return this.#users.get(username);
  }

  /** Registers an application; it stays pending until the operator activates it. */
  register(name: string, redirectUri: string): Application {
    const app: Application = {
      clientId: `app-${randomBytes(6).toString("hex")}`,
      clientSecret: randomBytes(24).toString("base64url"),
      name,
      redirectUri,
      status: "pending",
    };
    return this.#keep(app);
  }

  changeRedirectUri(clientId: string, redirectUri: string): Application | undefined {
    const app = this.#apps.get(clientId);
    return app && this.#keep({ ...app, redirectUri });
  }

  activate(clientId: string): Application | undefined {
    const app = this.#apps.get(clientId);
    return app && this.#keep({ ...app, status: "Actief" });
  }
}

/**
 * The form in which a redirect URI is registered, or why it can not be. It
 * must be an absolute http(s) URL without a fragment (RFC 6749 3.1.2), made of
 * characters RFC 3986 allows. An IRI (letters beyond ASCII, an IDN host) is
 * kept percent-encoded with the host in punycode, as a URL serializes it, so
 * what is stored can always go into a Location header.
 */
export function registrableRedirectUri(uri: string): { ok: true; uri: string } | { ok: false; problem: string } {
  const refuse = (problem: string) => ({ ok: false as const, problem });
  if (uri.length > MAX_REDIRECT_URI) return refuse(`is longer than ${MAX_REDIRECT_URI} characters (A-LIMITS)`);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for
  const bad = /[\u0000-\u0020\u007f-\u009f"<>\\^`{|}]/.exec(uri)?.[0];
  if (bad !== undefined) {
    const hex = bad.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0");
    return refuse(
      `contains U+${hex} (${bad.trim() ? `"${bad}"` : "a space or control character"}), which a URI can not hold (RFC 3986); percent-encode it`,
    );
  }
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return refuse("is not an absolute URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return refuse("must use http or https");
  if (uri.includes("#")) return refuse("must not contain a fragment (RFC 6749 3.1.2)");
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the range is the point: ASCII or not
  const ascii = /^[\u0000-\u007f]*$/.test(uri);
  return { ok: true, uri: ascii ? uri : url.href };
}
