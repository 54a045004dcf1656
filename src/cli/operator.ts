// Commands that talk to a running mock: the operator's activation and the
// background user's refresh-token generator.
import { type Command, setting, UsageError } from "./options.ts";

const MOCK_URL_HELP =
  "  --base-url <url>    BAWA_MOCK_URL   the running mock; else BAWA_HOST and BAWA_PORT, as `bawa mock`\n                                      reads them (http://127.0.0.1:4010); --url, the earlier name, works too";

/**
 * The running mock's address, found as every command finds it: --base-url (as every command names
 * a target), --url, BAWA_MOCK_URL, else the address `bawa mock` listens on with the same
 * BAWA_HOST and BAWA_PORT (a wildcard address is reached on loopback).
 */
export function mockUrl(values: Record<string, unknown>, env: NodeJS.ProcessEnv = process.env): string {
  const given = values["base-url"] ?? values.url ?? env.BAWA_MOCK_URL;
  if (typeof given === "string" && given !== "") return given;
  const host = env.BAWA_HOST && !["0.0.0.0", "::"].includes(env.BAWA_HOST) ? env.BAWA_HOST : "127.0.0.1";
  return `http://${host.includes(":") ? `[${host}]` : host}:${env.BAWA_PORT || 4010}`;
}
const URL_OPTIONS = { "base-url": { type: "string" }, url: { type: "string" } } as const;

/** The fields of the mock's control answers that these commands print; `Message` on errors. */
interface ControlAnswer {
  Message?: string;
  clientId?: string;
  client_id?: string;
  clientSecret?: string;
  redirectUri?: string;
  status?: string;
  refresh_token?: string;
  user?: string;
  databases?: string[];
}

async function post(base: string, path: string, body?: unknown): Promise<{ status: number; json: ControlAnswer }> {
  let res: Response;
  try {
    res = await fetch(new URL(path, base), {
      method: "POST",
      headers: { "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(10_000),
    });
  } catch (err) {
    throw new Error(
      `cannot reach the mock at ${base} (${(err as Error).cause ?? (err as Error).message}); start it with \`npm start\` or pass --base-url`,
    );
  }
  const text = await res.text();
  let json: ControlAnswer;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(`${base} did not answer like a bawa mock (HTTP ${res.status}): ${text.slice(0, 200)}`);
  }
  return { status: res.status, json };
}

export const activateCommand: Command = {
  summary: "operator: activate a registered application (status Actief)",
  usage: `usage: bawa activate <client_id> [options]

Activates an application registered in the developer portal of a running mock,
as the service operator does. Prints its Client Identifier and Client Secret.

options:
${MOCK_URL_HELP}
  -h, --help          this text`,
  options: URL_OPTIONS,
  positionals: true,
  async run(values, positionals = []) {
    const [clientId] = positionals;
    if (!clientId || positionals.length > 1) throw new UsageError("name exactly one client_id to activate");
    const base = mockUrl(values);
    const { status, json } = await post(base, `/__mock/applications/${encodeURIComponent(clientId)}/activate`);
    if (status !== 200) throw new Error(json.Message ?? `HTTP ${status}`);
    console.log(
      `${json.clientId} is ${json.status}\nclient_id=${json.clientId}\nclient_secret=${json.clientSecret}\nredirect_uri=${json.redirectUri}`,
    );
    return 0;
  },
};

export const refreshTokenCommand: Command = {
  summary: "generate a refresh token for the background user (background applications)",
  usage: `usage: bawa refresh-token --client <client_id> --secret <client_secret> [options]

Issues a refresh token for the configured background user and the application,
so a background application can run from stored client id, secret and refresh
token: it exchanges the token at POST /v<version>/OAuth/Token with
grant_type=refresh_token. Prints only the token on standard output.

options:
  --client <id>       BAWA_CLIENT_ID       client id of an active application
  --secret <secret>   BAWA_CLIENT_SECRET   its client secret
${MOCK_URL_HELP}
  --json                                    print the whole answer as JSON
  -h, --help                                this text`,
  options: {
    client: { type: "string" },
    secret: { type: "string" },
    ...URL_OPTIONS,
    json: { type: "boolean" },
  },
  async run(values) {
    const clientId = setting(values, "client", "BAWA_CLIENT_ID", "");
    const clientSecret = setting(values, "secret", "BAWA_CLIENT_SECRET", "");
    if (!clientId || !clientSecret)
      throw new UsageError("--client and --secret are required (or BAWA_CLIENT_ID and BAWA_CLIENT_SECRET)");
    const base = mockUrl(values);
    const { status, json } = await post(base, "/__mock/refresh-tokens", { clientId, clientSecret });
    if (status !== 200) throw new Error(json.Message ?? `HTTP ${status}`);
    console.log(values.json ? JSON.stringify(json, null, 2) : json.refresh_token);
    if (!values.json)
      console.error(
        `bawa refresh-token: for user ${json.user} (databases ${(json.databases ?? []).join(", ")}), client ${json.client_id}`,
      );
    return 0;
  },
};
