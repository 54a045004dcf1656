// A mock that holds secrets of its own, behind a tap that notes every secret it
// hands out, and the search of a run's files and output for any of them: the
// harness of the tests that no secret leaves a conformance run
// (conformance-secrets.test.ts, and conformance-beyond.test.ts's whole run).
import { randomBytes } from "node:crypto";
import { cpSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { type AddressInfo, connect, createServer as createNetServer, type Server } from "node:net";
import { join, resolve } from "node:path";
import { unzipSync } from "fflate";
import { parse, stringify } from "yaml";
import type { Application } from "../mock/core/oauth/registry.ts";
import { type BackgroundTokens, backgroundTokens } from "../mock/node/client.ts";
import { loadOAuth, seedAccounts } from "../mock/seed.ts";
import { spawnMock } from "../mock/testing.ts";
import { PROJECT_ROOT } from "../paths.ts";
import { ownMockSettings } from "./conformance.ts";

const distinct = (what: string) => `${what}-${randomBytes(9).toString("hex")}`;

/**
 * A tap in front of the mock (bytes passed on as they are, both ways) that notes every secret the
 * mock hands out: tokens of token answers, codes and tokens of redirects, cookies.
 */
async function observer(target: string, issued: Set<string>) {
  const PATTERNS = [
    /"(?:access_token|refresh_token)"\s*:\s*"([^"]+)"/g,
    /[?#&](?:code|access_token|refresh_token)=([^&#\s"]+)/g,
    /\r\nset-cookie:\s*[^=\r\n]*=([^;\r\n]*)/gi,
  ];
  const upstream = new URL(target);
  const server: Server = createNetServer((client) => {
    const mock = connect(Number(upstream.port), upstream.hostname);
    let window = "";
    mock.on("data", (chunk: Buffer) => {
      // A token cut in two by a chunk boundary is whole in the window of the last 64 KiB.
      window = (window + chunk.toString("latin1")).slice(-65_536);
      for (const p of PATTERNS) {
        for (const m of window.matchAll(p)) {
          const value = decodeURIComponent(m[1]!.replace(/\+/g, " "));
          if (value.length >= 8) issued.add(value);
        }
      }
    });
    client.pipe(mock).pipe(client);
    // A body the mock refused unread (413) resets its side: what it answered still goes out whole.
    mock.on("error", () => client.end());
    client.on("error", () => mock.destroy());
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { issued, server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

export interface SecretMock {
  /** The tap's address: what the suite is pointed at. */
  url: string;
  /** The mock's own address (behind the tap). */
  mockUrl: string;
  /** The settings of its seed as CONFORMANCE_* variables, its control token included. */
  settings: Record<string, string>;
  /** The seed folder with the secrets (another mock started on it shares them). */
  seed: string;
  /** The demo application of that seed, with its secret. */
  app: Application;
  /** A control call of the mock (it has a control token). */
  control(path: string, body: unknown): Promise<Response>;
  /**
   * Another mock on the same seed and control token, behind a tap of its own (noting into the same
   * secrets), with the background user's tokens of its own: `url` is the tap's.
   */
  another(): Promise<{
    url: string;
    mockUrl: string;
    tokens: BackgroundTokens;
    control: SecretMock["control"];
    close(): void;
  }>;
  /** Every secret the mock knew or handed out so far. */
  secrets(): string[];
  /** How many tokens, codes and cookies the mock handed out so far. */
  readonly issuedCount: number;
  close(): void;
}

/** The project's seed with secrets of its own (in `dir`), a mock on it and the tap in front. */
export async function secretMock(dir: string): Promise<SecretMock> {
  const secrets = {
    clientSecret: distinct("ClientSecret"),
    secondSecret: distinct("SecondSecret"),
    password: distinct("Passw0rd"),
    otherPassword: distinct("OtherPassw0rd"),
    controlToken: distinct("ControlToken"),
  };
  const seed = join(dir, "seed");
  cpSync(resolve(PROJECT_ROOT, "mock-data"), seed, { recursive: true });
  const oauth = parse(readFileSync(join(seed, "oauth.yaml"), "utf8"));
  const defaults = seedAccounts();
  for (const app of oauth.applications) {
    if (app.clientId === defaults.app.clientId) app.clientSecret = secrets.clientSecret;
    if (app.clientId === defaults.second.clientId) app.clientSecret = secrets.secondSecret;
  }
  for (const user of oauth.users) {
    if (user.username === defaults.user.username) user.password = secrets.password;
    else user.password = secrets.otherPassword;
  }
  writeFileSync(join(seed, "oauth.yaml"), stringify(oauth));
  const accounts = seedAccounts(loadOAuth(seed));
  const start = async () => {
    const started = await spawnMock(["--seed", seed, "--control-token", secrets.controlToken]);
    const control = (path: string, body: unknown) =>
      fetch(`${started.url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-bawa-control-token": secrets.controlToken },
        body: JSON.stringify(body),
      });
    // Secrets too, though handed out beside the tap.
    const tokens = await backgroundTokens(started.url, accounts.app, secrets.controlToken);
    beside.push(tokens.refresh, tokens.access);
    const watch = await observer(started.url, issued);
    const close = () => {
      started.child.kill();
      watch.server.close();
    };
    return { url: watch.url, mockUrl: started.url, tokens, control, close };
  };
  const issued = new Set<string>();
  const beside: string[] = [];
  const mock = await start();
  const { control, tokens } = mock;
  return {
    url: mock.url,
    mockUrl: mock.mockUrl,
    settings: {
      ...ownMockSettings(mock.url, tokens.refresh, accounts),
      CONFORMANCE_CONTROL_TOKEN: secrets.controlToken,
    },
    seed,
    app: accounts.app,
    control,
    another: start,
    secrets: () => [...Object.values(secrets), ...beside, ...issued],
    get issuedCount() {
      return issued.size;
    },
    close: mock.close,
  };
}

/** Every text in `dir`: files, zip entries (nested too), data: URLs and long base64 runs decoded. */
export function textsUnder(dir: string): Array<{ where: string; text: string }> {
  const out: Array<{ where: string; text: string }> = [];
  const add = (where: string, bytes: Uint8Array) => {
    if (bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 3) {
      for (const [entry, data] of Object.entries(unzipSync(bytes))) add(`${where}!${entry}`, data);
      return;
    }
    const text = Buffer.from(bytes).toString("utf8");
    out.push({ where, text });
    for (const m of text.matchAll(/[A-Za-z0-9+/]{40,}={0,2}/g)) {
      const decoded = Buffer.from(m[0], "base64");
      if (decoded[0] === 0x50 && decoded[1] === 0x4b) add(`${where}#base64`, decoded);
      else out.push({ where: `${where}#base64`, text: decoded.toString("utf8") });
    }
  };
  for (const entry of readdirSync(dir, { recursive: true, encoding: "utf8" })) {
    let bytes: Buffer;
    try {
      bytes = readFileSync(join(dir, entry));
    } catch {
      continue;
    }
    add(entry, bytes);
  }
  return out;
}

/** Where each secret was found: `secret in file: ...context...`. */
export function leaks(secrets: Iterable<string>, texts: Array<{ where: string; text: string }>): string[] {
  const found: string[] = [];
  for (const s of secrets) {
    for (const { where, text } of texts) {
      const at = text.indexOf(s);
      if (at >= 0) found.push(`${s} in ${where}: …${text.slice(Math.max(0, at - 80), at + s.length + 20)}…`);
    }
  }
  return found;
}
