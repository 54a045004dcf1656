// A client of a running mock over HTTP, for the tests and the bench that
// need a token without walking the screens: the background user's refresh
// token from the generator, exchanged at the token endpoint.
import type { Application } from "../core/oauth/registry.ts";
import { seedAccounts } from "../seed.ts";

export interface BackgroundTokens {
  access: string;
  refresh: string;
}

/** The form of a refresh grant for an application (client_secret_post, as the description says). */
export const refreshForm = (
  refresh: string,
  app: Pick<Application, "clientId" | "clientSecret" | "redirectUri"> = seedAccounts().app,
): string =>
  new URLSearchParams({
    grant_type: "refresh_token",
    refresh_token: refresh,
    client_id: app.clientId,
    client_secret: app.clientSecret,
    redirect_uri: app.redirectUri,
  }).toString();

/** The background user's tokens; `controlToken` for a mock that has one (the generator is a control call). */
export async function backgroundTokens(
  base: string,
  app: Application = seedAccounts().app,
  controlToken?: string,
): Promise<BackgroundTokens> {
  const gen = await fetch(`${base}/__mock/refresh-tokens`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(controlToken ? { "x-bawa-control-token": controlToken } : {}),
    },
    body: JSON.stringify({ clientId: app.clientId, clientSecret: app.clientSecret }),
  });
  const refresh = ((await gen.json()) as { refresh_token?: string }).refresh_token;
  if (!refresh) throw new Error(`the mock at ${base} issued no refresh token (${gen.status})`);
  const res = await fetch(`${base}/v1/OAuth/Token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: refreshForm(refresh, app),
  });
  const access = ((await res.json()) as { access_token?: string }).access_token;
  if (!access) throw new Error(`the mock at ${base} refused the refresh grant (${res.status})`);
  return { access, refresh };
}
