// Assembles the mock from its parts: contract, seed, authorization server, customer API.
import { type CompiledContract, compileContract } from "../contract/index.ts";
import { createMock, type Mock } from "./core/app.ts";
import type { MovableClock } from "./core/clock.ts";
import { controlRoutes } from "./core/control.ts";
import { portalRoutes } from "./core/oauth/portal.ts";
import { Registry } from "./core/oauth/registry.ts";
import { createAuthorizationServer } from "./core/oauth/server.ts";
import { TokenStore } from "./core/oauth/tokens.ts";
import type { MockConfig } from "./core/router.ts";
import { applyFaults, type Fault, type FaultBuild } from "./faults/faults.ts";
import { FileJournal } from "./node/journal.ts";
import { DEFAULT_SEED_DIR, loadSeed } from "./seed.ts";

export interface BawaMock extends Mock {
  registry: Registry;
  tokens: TokenStore;
  /** Drops what has expired (abandoned authorization requests); `listen()` calls it on a timer. */
  sweep(): void;
  /** Learns the Host header values that address it (`listen()` tells it). */
  listensAt(hosts: readonly string[]): void;
}

export interface BuildOptions {
  /** Keep customers across restarts in this folder (an fsync'ed journal); in memory when absent. */
  dataDir?: string;
  /** Rules to break on purpose (src/mock/faults/); empty in normal use. */
  faults?: readonly Fault[];
  seedDir?: string;
  config?: Partial<MockConfig>;
  contract?: CompiledContract;
  clock?: MovableClock;
}

/** The whole mock, in process: call `handle()` directly or put it behind `listen()`. */
export function buildMock(options: BuildOptions = {}): BawaMock {
  const contract = options.contract ?? compileContract();
  const seed = loadSeed(contract, options.seedDir ?? DEFAULT_SEED_DIR);
  const registry = new Registry(seed.oauth);
  const build: FaultBuild = Object.assign({}, ...(options.faults ?? []).map((f) => f.build ?? {}));
  const tokens = new TokenStore({
    ...(build.codeSeconds !== undefined ? { codeSeconds: build.codeSeconds } : {}),
    ...(build.secretBytes !== undefined ? { secretBytes: build.secretBytes } : {}),
  });
  const authorization = createAuthorizationServer(
    registry,
    tokens,
    build.checkCsrf === false ? { checkCsrf: false } : {},
  );
  const journal = options.dataDir ? new FileJournal(options.dataDir) : undefined;
  const recorded = journal?.read() ?? [];
  const reset = () => {
    mock.ctx.store.reset();
    registry.reset();
    authorization.reset();
  };
  const mock = createMock({
    ...(journal ? { journal } : {}),
    routes: authorization.routes,
    rootRoutes: [...controlRoutes({ registry, tokens, reset }), ...portalRoutes(registry)],
    contract,
    seed: seed.customers,
    tokens,
    ...(options.config ? { config: options.config } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
  });
  mock.ctx.store.replay(recorded);
  const whole: BawaMock = {
    ...mock,
    registry,
    tokens,
    sweep: () => authorization.sweep(mock.clock.now()),
    listensAt: (hosts) => {
      mock.ctx.config.ownHosts = hosts;
    },
  };
  return options.faults?.length ? { ...whole, handle: applyFaults(whole, options.faults) } : whole;
}
