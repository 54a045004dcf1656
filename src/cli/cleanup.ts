// `bawa conformance cleanup`: finds the objects a run left behind (a run that
// died between creating and deleting) by the names the suite gives them, in
// every editable resource of the contract (the suite creates objects of each),
// lists them, and with --yes deletes them. Plain fetch: no browser, so it needs
// a stored refresh token, as a background application would.
import {
  CLIENT_SETTINGS,
  ConfigError,
  loadTarget,
  missingOf,
  STALE_SETTING,
  STORED_REFRESH_TOKEN,
  type Target,
  urlOf,
} from "../../conformance/lib/config.ts";
import { findable, leftBehind } from "../../conformance/lib/created.ts";
import { buildResourceModel, CONTRACT_PATH, loadContract, type ResourceModel } from "../contract/index.ts";
import { refreshForm } from "../mock/node/client.ts";
import { UsageError } from "./options.ts";

export interface Leftover {
  id: string;
  name: string;
}

/** A field of an answered object, whatever the case of its name (camelCase implementations). */
const field = (item: Record<string, unknown>, name: string): unknown =>
  item[name] ?? Object.entries(item).find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];

export async function cleanup(
  env: NodeJS.ProcessEnv,
  remove: boolean,
  log: (line: string) => void = console.log,
): Promise<number> {
  let t: Target;
  try {
    t = loadTarget(env);
  } catch (err) {
    if (err instanceof ConfigError) throw new UsageError(err.message, { usage: false });
    throw err;
  }
  const missing = missingOf(t, ["CONFORMANCE_REFRESH_TOKEN", ...CLIENT_SETTINGS]);
  if (missing.length > 0 || !t.client || !t.refreshToken)
    throw new UsageError(`cleanup needs ${missing.join(", ")} to get a token without a browser`, { usage: false });
  const contractFile = env.CONFORMANCE_CONTRACT || CONTRACT_PATH;
  let model: ResourceModel;
  let doc: ReturnType<typeof loadContract>;
  try {
    doc = loadContract(contractFile);
    model = buildResourceModel(doc);
  } catch (err) {
    throw new UsageError(`the contract ${contractFile} can not be used: ${(err as Error).message}`);
  }

  const tokenUrl = `${t.baseUrl}/v${t.apiVersion}/OAuth/Token`;
  const token = await fetch(tokenUrl, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: refreshForm(t.refreshToken, t.client),
  });
  const tokens = (await token.json().catch(() => ({}))) as { access_token?: string };
  if (token.status !== 200 || !tokens.access_token)
    throw new Error(
      `could not obtain an access token: ${STORED_REFRESH_TOKEN} was refused, POST ${tokenUrl} answered ${token.status}; ${STALE_SETTING}`,
    );
  const auth = { authorization: `Bearer ${tokens.access_token}`, accept: "application/json" };

  const pattern = leftBehind(t.namePrefix);
  const found = new Map<string, Leftover[]>();
  let failed = 0;
  log(`bawa conformance cleanup: in ${t.database}, names like "${t.namePrefix} 0a1b2c3d":`);
  const resources = findable(model, doc);
  for (const r of resources) {
    const name = r.collection.name;
    if (!r.list || !r.remove || !r.nameProperty) {
      // The suite can not have left one it could not find either; say so rather than skip it silently.
      log(`  ${name}: not looked at: ${r.why}`);
      continue;
    }
    const url = urlOf(t, r.list);
    const list = await fetch(url, { headers: auth });
    if (list.status !== 200) {
      failed++;
      log(`  ${name}: GET ${url} answered ${list.status}`);
      continue;
    }
    const items = (await list.json()) as Array<Record<string, unknown>>;
    const left: Leftover[] = [];
    for (const item of items) {
      const id = field(item, r.collection.idProperty!);
      const value = field(item, r.nameProperty);
      if ((typeof id === "string" || typeof id === "number") && typeof value === "string" && pattern.test(value))
        left.push({ id: String(id), name: value });
    }
    found.set(name, left);
    log(`  ${name}: ${left.length === 0 ? "nothing left behind" : `${left.length} left behind by runs`}`);
    for (const o of left) log(`    ${o.id.padEnd(10)} ${o.name}`);
  }
  const total = [...found.values()].reduce((n, l) => n + l.length, 0);
  if (total === 0 || !remove) {
    if (total > 0) log("run again with --yes to delete them");
    return failed === 0 ? 0 : 1;
  }
  for (const r of resources) {
    const left = found.get(r.collection.name) ?? [];
    if (left.length === 0) continue;
    let deleted = 0;
    for (const o of left) {
      const res = await fetch(urlOf(t, r.remove!, o.id), { method: "DELETE", headers: auth });
      if (res.status === 200) deleted++;
      else {
        failed++;
        log(`  ${r.collection.name} ${o.id}: DELETE answered ${res.status}`);
      }
    }
    log(`  ${r.collection.name}: deleted ${deleted} of ${left.length}`);
  }
  return failed === 0 ? 0 : 1;
}
