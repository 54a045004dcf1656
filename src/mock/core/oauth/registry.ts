// Registered applications and users of the authorization server (A-REGISTRATION).
import { randomBytes } from "node:crypto";

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

  constructor(private readonly seed: OAuthSeed) {
    this.reset();
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
    this.#apps.set(app.clientId, app);
    return app;
  }

  changeRedirectUri(clientId: string, redirectUri: string): Application | undefined {
    const app = this.#apps.get(clientId);
    if (app) app.redirectUri = redirectUri;
    return app;
  }

  activate(clientId: string): Application | undefined {
    const app = this.#apps.get(clientId);
    if (app) app.status = "Actief";
    return app;
  }
}

/** A redirect URI is valid for registration when it is an absolute http(s) URL without a fragment. */
export function redirectUriProblem(uri: string): string | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return "is not an absolute URL";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return "must use http or https";
  if (uri.includes("#")) return "must not contain a fragment (RFC 6749 3.1.2)";
  return undefined;
}
