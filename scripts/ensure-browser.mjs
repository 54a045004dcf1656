#!/usr/bin/env node
// Makes sure a Chromium for the browser tests exists, and says which one.
// Order: BAWA_CHROMIUM, Debian's chromium-headless-shell or chromium,
// Playwright's own download; when none is there: as root with apt-get
// (Debian, CI) install Debian's chromium-headless-shell, otherwise
// `playwright install chromium` (an ordinary machine).
// Plain JavaScript so it runs before anything is compiled. Exit 1 with the
// reason when no browser can be had.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

function playwrightChromium() {
  try {
    const path = require("playwright-core").chromium.executablePath();
    return path && existsSync(path) ? path : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The Chromium the browser tests use: a path, "playwright" for Playwright's
 * own download (whose headless shell it picks itself), or undefined. The
 * headless shell comes first: it does the same work for a quarter of the CPU
 * of the full browser, which the suite's hundreds of screen walks feel.
 */
export function findChromium() {
  const fromEnv = process.env.BAWA_CHROMIUM;
  if (fromEnv) return existsSync(fromEnv) ? fromEnv : undefined;
  for (const path of ["/usr/bin/chromium-headless-shell", "/usr/bin/chromium", "/usr/bin/chromium-browser"]) {
    if (existsSync(path)) return path;
  }
  return playwrightChromium() ? "playwright" : undefined;
}

function run(cmd, args) {
  console.log(`ensure-browser: ${cmd} ${args.join(" ")}`);
  return (
    spawnSync(cmd, args, { stdio: "inherit", env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } }).status === 0
  );
}

function hasAptAsRoot() {
  if (process.getuid?.() !== 0) return false;
  try {
    execFileSync("apt-get", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** Finds or installs a Chromium and says which; 0 when there is one, 1 with the reason when none can be had. */
export function ensureBrowser() {
  let found = findChromium();
  if (found) {
    console.log(`ensure-browser: using ${found}`);
    return 0;
  }
  if (process.env.BAWA_CHROMIUM) {
    console.error(`ensure-browser: BAWA_CHROMIUM=${process.env.BAWA_CHROMIUM} does not exist`);
    return 1;
  }
  if (hasAptAsRoot()) {
    run("apt-get", ["update", "-qq"]);
    run("apt-get", ["install", "-y", "-qq", "chromium-headless-shell"]);
  } else {
    run(process.execPath, [require.resolve("playwright-core/cli"), "install", "chromium"]);
  }
  found = findChromium();
  if (!found) {
    console.error(
      "ensure-browser: no Chromium could be installed. Install one (Debian: apt-get install chromium; elsewhere: npx playwright install chromium) or point BAWA_CHROMIUM at a Chromium binary.",
    );
    return 1;
  }
  console.log(`ensure-browser: using ${found}`);
  return 0;
}

if (import.meta.url === `file://${process.argv[1]}`) process.exit(ensureBrowser());
