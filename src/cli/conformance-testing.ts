// The own mock in a process of its own, and `bawa conformance` (the compiled
// command line) run against it with the settings of its seed: the harness of
// the tests of the command.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { type IncomingMessage, request, type ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { backgroundTokens } from "../mock/node/client.ts";
import { spawnMock } from "../mock/testing.ts";
import { PROJECT_ROOT } from "../paths.ts";
import { ownMockSettings } from "./conformance.ts";

export interface Harness {
  /** The mock's address. */
  readonly url: string;
  /** The settings of the mock's seed, as CONFORMANCE_* variables. */
  readonly settings: Record<string, string>;
  /** The working directory of the runs (their reports). */
  readonly dir: string;
  /**
   * `bawa conformance <args>` with `env` (default: the settings; a variable set to undefined is
   * left out); its exit code and output.
   */
  bawa(args: string[], env?: Record<string, string | undefined>): Promise<BawaRun>;
  /** What each of those runs printed, in order (a search for secrets reads it). */
  readonly printed: ReadonlyArray<{ where: string; text: string }>;
}

/** A mock the harness runs the command against: its address, its settings, how to stop it. */
export interface HarnessMock {
  url: string;
  settings: Record<string, string>;
  close(): void;
}

/** The project's mock in a process of its own, with the settings of its seed. */
async function ownMock(): Promise<HarnessMock> {
  const mock = await spawnMock();
  const tokens = await backgroundTokens(mock.url);
  return { url: mock.url, settings: ownMockSettings(mock.url, tokens.refresh), close: () => mock.child.kill() };
}

/**
 * Starts a mock before the file's tests (`start`, given the runs' folder; by default the project's)
 * and stops it after them.
 */
export function conformanceHarness(start: (dir: string) => Promise<HarnessMock> = ownMock): Harness {
  let mock: HarnessMock;
  let dir: string;
  const printed: Array<{ where: string; text: string }> = [];
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "bawa-conformance-cli-"));
    mock = await start(dir);
  });
  afterAll(() => {
    mock?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return {
    get url() {
      return mock.url;
    },
    get settings() {
      return mock.settings;
    },
    get dir() {
      return dir;
    },
    printed,
    async bawa(args, env = mock.settings) {
      const run = await runBawa(args, { cwd: dir, env });
      printed.push({ where: `the terminal of bawa conformance ${args.join(" ")}`, text: run.out });
      return run;
    },
  };
}

export interface BawaRun {
  code: number;
  /** Standard output and standard error, as a terminal shows them. */
  out: string;
}

/**
 * `bawa conformance <args>` (the compiled command line) in `cwd`, with `env` over this process's
 * environment and CI=1 (a variable `env` sets to undefined is left out); `started` is called with
 * the process once it runs (to signal it).
 */
export function runBawa(
  args: string[],
  opts: { cwd: string; env: Record<string, string | undefined>; started?: (child: ChildProcess) => void },
): Promise<BawaRun> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [resolve(PROJECT_ROOT, "bin/bawa.js"), "conformance", ...args], {
      cwd: opts.cwd,
      env: { ...process.env, CI: "1", ...opts.env },
    });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.on("close", (code) => done({ code: code ?? 1, out }));
    opts.started?.(child);
  });
}

/** A gateway's part: the request passed on to `target`, its answer back as it came. */
export function passOn(req: IncomingMessage, res: ServerResponse, target: string): void {
  const upstream = request(new URL(req.url ?? "/", target), { method: req.method, headers: req.headers }, (up) => {
    res.writeHead(up.statusCode ?? 502, up.headers);
    up.pipe(res);
  });
  upstream.on("error", () => res.destroy());
  req.pipe(upstream);
}

/** The verdict of each requirement in a summary.json. */
export const verdicts = (file: string): Record<string, string> =>
  Object.fromEntries(
    (
      JSON.parse(readFileSync(file, "utf8")) as { requirements: Array<{ id: string; verdict: string }> }
    ).requirements.map((r) => [r.id, r.verdict]),
  );
