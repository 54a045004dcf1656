// `bawa conformance cleanup`: finds the customers a run left behind (a run that
// died between creating and deleting) by the prefix of the names the suite
// gives them, lists them, and with --yes deletes them. Plain fetch: no browser,
// so it needs a stored refresh token, as a background application would.
import { ConfigError, loadTarget, type Target } from "../../conformance/lib/config.ts";
import { refreshForm } from "../mock/node/client.ts";
import { UsageError } from "./options.ts";

/** The names the suite gives what it creates: the prefix, a space, eight hexadecimal digits (uniqueName). */
export const leftBehind = (prefix: string): RegExp =>
  new RegExp(`^${prefix.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} [0-9a-f]{8}$`);

export interface Leftover {
  id: string;
  name: string;
}

export async function cleanup(
  env: NodeJS.ProcessEnv,
  remove: boolean,
  log: (line: string) => void = console.log,
): Promise<number> {
  let t: Target;
  try {
    t = loadTarget(env);
  } catch (err) {
    if (err instanceof ConfigError) throw new UsageError(err.message);
    throw err;
  }
  if (!t.client || !t.refreshToken)
    throw new UsageError(
      "cleanup needs CONFORMANCE_REFRESH_TOKEN and the client settings (CONFORMANCE_CLIENT_ID, _SECRET, _REDIRECT_URI) to get a token without a browser",
    );
  const base = `${t.baseUrl}/v${t.apiVersion}`;
  const token = await fetch(`${base}/OAuth/Token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: refreshForm(t.refreshToken, t.client),
  });
  const tokens = (await token.json().catch(() => ({}))) as { access_token?: string };
  if (token.status !== 200 || !tokens.access_token)
    throw new Error(`could not obtain an access token: POST ${base}/OAuth/Token answered ${token.status}`);
  const auth = { authorization: `Bearer ${tokens.access_token}`, accept: "application/json" };
  const db = encodeURIComponent(t.database);
  const list = await fetch(`${base}/api/${db}/CustomerInfoList`, { headers: auth });
  if (list.status !== 200) throw new Error(`GET ${base}/api/${db}/CustomerInfoList answered ${list.status}`);
  const items = (await list.json()) as Array<Record<string, unknown>>;
  const pattern = leftBehind(t.namePrefix);
  const found: Leftover[] = [];
  for (const item of items) {
    const id = item.CustomerId ?? item.customerId;
    const name = item.Name ?? item.name;
    if (typeof id === "string" && typeof name === "string" && pattern.test(name)) found.push({ id, name });
  }
  if (found.length === 0) {
    log(`bawa conformance cleanup: nothing left behind in ${t.database} (names like "${t.namePrefix} 0a1b2c3d")`);
    return 0;
  }
  log(`bawa conformance cleanup: ${found.length} customers in ${t.database} were left behind by runs:`);
  for (const c of found) log(`  ${c.id.padEnd(10)} ${c.name}`);
  if (!remove) {
    log("run again with --yes to delete them");
    return 0;
  }
  let failed = 0;
  for (const c of found) {
    const res = await fetch(`${base}/api/${db}/Customer/${encodeURIComponent(c.id)}`, {
      method: "DELETE",
      headers: auth,
    });
    if (res.status !== 200) {
      failed++;
      log(`  ${c.id}: DELETE answered ${res.status}`);
    }
  }
  log(`bawa conformance cleanup: deleted ${found.length - failed} of ${found.length}`);
  return failed === 0 ? 0 : 1;
}
