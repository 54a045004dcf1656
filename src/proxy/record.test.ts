// A session recorded through bawa proxy and served again by `bawa mock --seed`:
// the objects read through the proxy come back the same, the objects seen only
// in a list come back with their info fields, what was deleted stays gone, and
// no secret of the session (tokens, codes, client secrets, passwords, cookies,
// anti-forgery values) is anywhere in the recording. The target has its own
// applications and users with secrets made up for the run, and a database the
// default users do not have: the recording gets the default ones, who may open it.
import { randomBytes } from "node:crypto";
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { contractInUse } from "../contract/index.ts";
import { buildMock } from "../mock/index.ts";
import { backgroundTokens } from "../mock/node/client.ts";
import { type Listening, listen } from "../mock/node/listen.ts";
import { SCOPE, spawnMock } from "../mock/testing.ts";
import { PROJECT_ROOT } from "../paths.ts";
import { type RunningProxy, startProxy } from "./node.ts";
import { fullCustomer, Session } from "./testing.ts";

const DB = "ACME";
const made = () => randomBytes(18).toString("base64url");
const work = mkdtempSync(join(tmpdir(), "bawa-record-"));
const targetSeed = join(work, "target");
const recording = join(work, "recording");
const account = {
  app: { clientId: "shop-app", clientSecret: made(), redirectUri: "http://localhost:5173/callback" },
  second: { clientId: "other-app", clientSecret: made(), redirectUri: "http://localhost:5174/cb" },
  username: "alice",
  password: made(),
  database: DB,
  scope: SCOPE,
};

let target: Listening;
let proxy: RunningProxy;
let session: Session;
let served: { child: import("node:child_process").ChildProcess; url: string } | undefined;

beforeAll(async () => {
  // The target: the project's customers in a database ACME, and accounts of its own.
  mkdirSync(join(targetSeed, "Customer"), { recursive: true });
  const customers = JSON.parse(readFileSync(resolve(PROJECT_ROOT, "mock-data/Customer/DEMO.json"), "utf8")) as Array<
    Record<string, unknown>
  >;
  writeFileSync(
    join(targetSeed, "Customer", `${DB}.json`),
    JSON.stringify(customers.map((c) => ({ ...c, Database: DB }))),
  );
  copyFileSync(resolve(PROJECT_ROOT, "mock-data/AdministrationInfo.json"), join(targetSeed, "AdministrationInfo.json"));
  const administrations = JSON.parse(readFileSync(join(targetSeed, "AdministrationInfo.json"), "utf8")) as unknown[];
  writeFileSync(
    join(targetSeed, "AdministrationInfo.json"),
    JSON.stringify([
      ...administrations,
      { AdministrationId: DB, Code: "ACME", Description: "Acme B.V.", ShortName: "ACME", GroupId: 1 },
    ]),
  );
  writeFileSync(
    join(targetSeed, "oauth.yaml"),
    stringify({
      applications: [
        { ...account.app, name: "Shop", status: "Actief" },
        { ...account.second, name: "Other", status: "Actief" },
      ],
      users: [
        { username: account.username, password: account.password, databases: [DB] },
        { username: "batch", password: made(), databases: [DB] },
      ],
      backgroundUser: "batch",
    }),
  );
  const contract = contractInUse();
  target = await listen(buildMock({ seedDir: targetSeed, contract }), { host: "127.0.0.1", port: 0 });
  proxy = await startProxy({
    target: target.url,
    host: "127.0.0.1",
    port: 0,
    contract,
    recordDir: recording,
    recordDelayMs: 10,
  });
  session = new Session(proxy.url, account);
}, 30_000);
afterAll(async () => {
  served?.child.kill();
  await proxy?.close();
  await target?.close();
  rmSync(work, { recursive: true, force: true });
});

describe("a session recorded through bawa proxy", () => {
  it("is served again by bawa mock --seed, the same, with no secret in it", async () => {
    const s = session;
    const tokens = await s.codeGrant(await s.code());
    const at = tokens.access;
    await s.refreshGrant(tokens.refresh);
    // The list shows every customer's info fields; a few are read whole, one in XML only.
    expect((await s.data("GET", "CustomerInfoList", at)).status).toBe(200);
    for (const id of ["1001", "1002", "1003"]) expect((await s.data("GET", `Customer/${id}`, at)).status).toBe(200);
    await s.data("GET", "Customer/1004", at, { headers: { accept: "application/xml" } });
    const created = await s.data("POST", "Customer", at, { body: fullCustomer("Opgenomen B.V.") });
    expect(created.status).toBe(200);
    await s.data("GET", `Customer/${created.id}`, at);
    const changed = { ...(s.read.get(`${DB} 1002`) as object), City: "Zwolle" };
    expect((await s.data("PUT", "Customer/1002", at, { body: changed })).status).toBe(200);
    await s.data("GET", "Customer/1002", at);
    expect((await s.data("DELETE", "Customer/1003", at)).status).toBe(200);
    s.read.delete(`${DB} 1003`);
    await s.data("GET", "/v1/api/AdministrationInfoList", at);
    await proxy.close();

    // No secret of the session is anywhere in the recording.
    const files = filesUnder(recording);
    expect(files.map((f) => f.slice(recording.length + 1)).sort()).toEqual([
      "AdministrationInfo.json",
      "Customer/ACME.json",
      "README.md",
    ]);
    const text = files.map((f) => readFileSync(f, "utf8")).join("\n");
    // What the session saw: client secrets, the password, the screens' cookies and anti-forgery values, the code, tokens.
    for (const seen of [tokens.access, tokens.refresh, account.password, account.app.clientSecret]) {
      expect(s.secrets.has(seen ?? "")).toBe(true);
    }
    expect(s.secrets.size).toBeGreaterThanOrEqual(10);
    expect([...s.secrets].filter((secret) => secret.length >= 8 && text.includes(secret))).toEqual([]);
    // The README names the objects seen only in the list, whose other fields are defaults.
    expect(readFileSync(join(recording, "README.md"), "utf8")).toMatch(/- Customer in ACME: 1005, 1006/);

    // bawa mock serves the recording with its default applications and users, who may open ACME.
    served = await spawnMock(["--seed", recording]);
    const { access } = await backgroundTokens(served.url);
    const get = async (path: string) => {
      const res = await fetch(`${served!.url}/v1/api/${path}`, { headers: { authorization: `Bearer ${access}` } });
      return { status: res.status, body: res.status === 200 ? await res.json() : undefined };
    };
    expect(s.read.size).toBe(3);
    for (const [key, object] of s.read) {
      const id = key.split(" ")[1]!;
      expect((await get(`${DB}/Customer/${id}`)).body, `Customer ${id}`).toEqual(object);
    }
    expect((await get(`${DB}/Customer/1003`)).status).toBe(404);
    // Seen only in the list: there, with the list's fields and the contract's defaults for the rest.
    const listed = (await get(`${DB}/CustomerInfoList`)).body as Array<Record<string, unknown>>;
    expect(listed.map((c) => c.CustomerId)).toEqual(["1001", "1002", "1004", "1005", "1006", created.id]);
    const only = (await get(`${DB}/Customer/1005`)).body as Record<string, unknown>;
    expect(only).toMatchObject({ CustomerId: "1005", Database: DB, CreditLimit: 0, CocDate: null });
    const administrations = (await get("AdministrationInfoList")).body as Array<Record<string, unknown>>;
    expect(administrations.map((a) => a.AdministrationId)).toContain(DB);
  }, 60_000);
});

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}
