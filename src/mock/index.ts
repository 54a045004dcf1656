// Assembles the mock from its parts: contract, seed, scenarios, authorization
// server, the data API of the contract's resources, portal and control calls.
import { type CompiledContract, contractInUse } from "../contract/index.ts";
import { createMock, type Mock } from "./core/app.ts";
import { type Change, type Journal, upgradeChange } from "./core/changes.ts";
import type { MovableClock } from "./core/clock.ts";
import { controlRoutes } from "./core/control.ts";
import { type Authorization, createAuthorization } from "./core/oauth/authorize.ts";
import { portalRoutes } from "./core/oauth/portal.ts";
import { Registry } from "./core/oauth/registry.ts";
import { tokenRoutes } from "./core/oauth/token-endpoint.ts";
import { TokenStore } from "./core/oauth/tokens.ts";
import { RequestLog } from "./core/request-log.ts";
import type { MockConfig } from "./core/router.ts";
import type { Rules } from "./core/rules.ts";
import { Scenarios } from "./core/scenarios.ts";
import { dashboardRoutes } from "./dashboard/routes.ts";
import { SWITCHES } from "./faults/index.ts";
import { DataDir, type DataDirOptions } from "./node/data-dir.ts";
import { heapRoom } from "./node/memory.ts";
import { DEFAULT_SEED_DIR, loadSeed, type SeedOptions } from "./seed.ts";

/** What GET /__mock/stats answers: how much each store holds, and the process's memory. */
export type Stats = Record<string, number | Record<string, number>>;

export interface BawaMock extends Mock {
  registry: Registry;
  tokens: TokenStore;
  authorization: Authorization;
  /** Drops what has expired (codes, tokens, abandoned authorization requests); `listen()` calls it on a timer. */
  sweep(): void;
  /** How much each store holds (GET /__mock/stats). */
  counts(): Stats;
  /** The data directory, when the mock keeps its state in one. */
  dataDir?: DataDir;
  /** Learns the Host header values that address it (`listen()` tells it). */
  listensAt(hosts: readonly string[]): void;
}

function memory(): Record<string, number> {
  const m = process.memoryUsage();
  return { rssBytes: m.rss, heapUsedBytes: m.heapUsed, heapTotalBytes: m.heapTotal, externalBytes: m.external };
}

export interface BuildOptions {
  /** Keep objects, applications and tokens across restarts in this folder (src/mock/node/data-dir.ts); in memory when absent. */
  dataDir?: string;
  /** How the data directory writes and when it compacts (tests of full disks and crashes). */
  dataDirOptions?: Partial<DataDirOptions>;
  /** Switches on from the start (faults, tolerated behaviours; src/mock/faults/); none in normal use. */
  switches?: readonly string[];
  /** Rules that differ from the defaults from the start. */
  rules?: Partial<Rules>;
  seedDir?: string;
  /** How the seed is read: a folder that names nothing of the contract stops the start, or is left out with a warning. */
  seedOptions?: SeedOptions;
  config?: Partial<MockConfig>;
  contract?: CompiledContract;
  clock?: MovableClock;
  /** Whether the process has room for a write (default: a look at the heap, src/mock/node/memory.ts). */
  room?: (bytes: number) => string | undefined;
}

/** The whole mock, in process: call `handle()` directly or put it behind `listen()`. */
export function buildMock(options: BuildOptions = {}): BawaMock {
  const contract = options.contract ?? contractInUse();
  const seed = loadSeed(contract, options.seedDir ?? DEFAULT_SEED_DIR, options.seedOptions);
  // Every store records into one journal, switched on only after the data directory was replayed.
  const dataDir = options.dataDir
    ? new DataDir(options.dataDir, {
        objectProblem: (resource, o) => {
          const c = contract.resources.collection(resource);
          if (!c?.editable) {
            const names = contract.resources.collections.filter((x) => x.editable).map((x) => x.name);
            return `its resource ${JSON.stringify(resource).slice(0, 100)} is no editable resource of this contract (${names.join(", ")}): start the mock with the contract that wrote this data directory (--contract), or give it another --data-dir`;
          }
          if (o === undefined) return undefined;
          const p = contract.answers.check(c.schema, o)[0];
          return p && `its ${c.name} does not fit the contract: ${p.field || "body"} ${p.message}`;
        },
        upgrade: (line) => upgradeChange(line, contract.resources),
        warn: (m) => console.error(`bawa mock: ${m}`),
        ...options.dataDirOptions,
      })
    : undefined;
  let recording = false;
  const journal: Journal | undefined = dataDir && { append: (c) => recording && dataDir.append(c) };
  const registry = new Registry(seed.oauth, journal);
  const scenarios = new Scenarios(SWITCHES, {
    switches: options.switches ?? [],
    rules: options.rules ?? {},
  });
  const tokens = new TokenStore(scenarios.rules, journal);
  const log = new RequestLog();
  const authorization = createAuthorization(registry, tokens);
  const sweep = (now: number) => {
    authorization.sweep(now);
    tokens.sweep(now);
  };
  const counts = (): Stats => ({
    objects: Object.values(mock.ctx.store.totals()).reduce((a, b) => a + b, 0),
    objectsByCollection: mock.ctx.store.totals(),
    applications: registry.applications().length,
    pendingAuthorizations: authorization.pending,
    ...tokens.counts(),
    requestLog: log.length,
    // Where the memory goes, for the bench and for anyone watching a long-running mock.
    ...memory(),
  });
  const reset = () => {
    mock.ctx.store.reset();
    registry.reset();
    authorization.reset();
    scenarios.reset();
    // The clock too: a clock pushed far ahead is undone by the same call as everything else.
    mock.clock.reset();
  };
  const mock = createMock({
    ...(journal ? { journal } : {}),
    routes: [...authorization.routes, ...tokenRoutes(registry, tokens)],
    rootRoutes: [
      ...controlRoutes({ registry, tokens, scenarios, log, reset, sweep, counts }),
      ...dashboardRoutes(),
      ...portalRoutes(registry),
    ],
    contract,
    seed: seed.objects,
    tokens,
    scenarios,
    log,
    allowedOrigins: () => {
      const { corsOrigins } = mock.ctx.config;
      if (corsOrigins !== "registered") return corsOrigins;
      // Only active applications: a pending registration unlocks nothing (A-REGISTRATION).
      return [...new Set(registry.activeApplications().map((a) => new URL(a.redirectUri).origin.toLowerCase()))];
    },
    ...(options.config ? { config: options.config } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
    room: options.room ?? heapRoom(),
  });
  if (dataDir) {
    const apply = (c: Change) => {
      if (c.op === "app") registry.restore(c.app);
      else if (c.op === "token") tokens.restore(c.kind, c.token, c.record);
      else if (c.op === "tokens") tokens.restoreAll(c.action, c.at);
      else {
        if (c.op === "reset" && c.db === undefined) registry.reset();
        mock.ctx.store.replay(c);
      }
    };
    dataDir.load(apply);
    tokens.sweep(mock.clock.now());
    recording = true;
    dataDir.snapshotWith(function* () {
      yield* mock.ctx.store.snapshot();
      for (const app of registry.applications()) yield { op: "app", app };
      yield* tokens.snapshot();
    });
  }
  return {
    ...mock,
    registry,
    tokens,
    authorization,
    sweep: () => sweep(mock.clock.now()),
    counts,
    ...(dataDir ? { dataDir } : {}),
    listensAt: (hosts) => {
      mock.ctx.config.ownHosts = hosts;
    },
  };
}
