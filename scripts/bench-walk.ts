// `npm run bench:walk`: walks through the own mock's login and permission screens by the suite's
// own driver (throughScreens, as a check's code flow walks them), one after another in one kept
// page of one headless Chromium, and what a walk costs: its wall time, Chromium's CPU (every
// process of the browser), this process's (Playwright's driver and the walk) and the mock's.
// A whole run of the suite walks about forty times, and its walks are most of its CPU: a change
// to them shows here first, and steadily. Figures, not tests; CPU is read from /proc (Linux).
//
//   BENCH_WALKS        walks measured, after two that warm up (default 30)
//   BENCH_WALK_CATCH   0: the browser sends every request itself, as against an environment;
//                      1 (the default): the suite fetches the screens for it, as against the
//                      own mock; any other value is refused (exit 2)
//   BENCH_WALK_ARGS    more Chromium arguments, space-separated, to try one
import { chromium } from "playwright-core";
import { loadTarget } from "../conformance/lib/config.ts";
import { keptPage, throughScreens } from "../conformance/lib/screens.ts";
import { chromiumLaunchOptions } from "../src/browser.ts";
import { ownMockSettings } from "../src/cli/conformance.ts";
import { backgroundTokens } from "../src/mock/node/client.ts";
import { PROJECT_ROOT } from "../src/paths.ts";
import { cpuMs, start } from "./bench-servers.ts";

const WALKS = Number(process.env.BENCH_WALKS ?? 30);
const CATCH = process.env.BENCH_WALK_CATCH ?? "1";
const catching = CATCH === "1";
const extraArgs = (process.env.BENCH_WALK_ARGS ?? "").split(" ").filter(Boolean);

if (!Number.isInteger(WALKS) || WALKS < 1) {
  console.error(`bench:walk: BENCH_WALKS must be a whole number above 0, not ${process.env.BENCH_WALKS}`);
  process.exit(2);
}
if (CATCH !== "0" && CATCH !== "1") {
  console.error(`bench:walk: BENCH_WALK_CATCH must be 0 or 1, not ${CATCH}`);
  process.exit(2);
}

const mock = await start(
  "mock",
  [`${PROJECT_ROOT}/bin/bawa.js`, "mock", "--port", "{port}", "--quiet"],
  "/__mock/clock",
);
const launch = chromiumLaunchOptions();
const browser = await chromium.launch({ ...launch, args: [...(launch.args ?? []), ...extraArgs] });
try {
  const settings = ownMockSettings(mock.url, (await backgroundTokens(mock.url)).refresh);
  if (!catching) delete settings.CONFORMANCE_CATCH_REDIRECTS;
  const target = loadTarget(settings);
  const context = await browser.newContext();
  const page = await keptPage(context);
  const walk = async () => {
    await context.clearCookies();
    await throughScreens(page, target, { responseType: "code" });
  };
  await walk();
  await walk();
  const own = process.cpuUsage();
  // The renderer processes Chromium ends meanwhile count too (reaped), this process's own time
  // comes from itself, the mock's from its tree: the rest of the tree is Chromium.
  const tree = () => cpuMs(process.pid, { reaped: true });
  const before = { all: tree(), mock: cpuMs(mock.child.pid!), own: (own.user + own.system) / 1000 };
  const t0 = performance.now();
  for (let i = 0; i < WALKS; i++) await walk();
  const wall = (performance.now() - t0) / WALKS;
  const ownAfter = process.cpuUsage();
  const ownMs = (ownAfter.user + ownAfter.system) / 1000 - before.own;
  const mockMs = cpuMs(mock.child.pid!) - before.mock;
  const chromiumMs = tree() - before.all - ownMs - mockMs;
  const per = (ms: number) => `${(ms / WALKS).toFixed(0)} ms`;
  console.log(
    `${WALKS} walks through the own mock's screens (login, permission, the redirect ${catching ? "caught where the mock answers it" : "requested by the browser"}${extraArgs.length ? `; Chromium with ${extraArgs.join(" ")}` : ""})`,
  );
  console.log(
    `  a walk: ${wall.toFixed(0)} ms wall; CPU: Chromium ${per(chromiumMs)}, the suite's side ${per(ownMs)}, the mock ${per(mockMs)}`,
  );
} finally {
  await browser.close();
  mock.child.kill();
}
