// How every browser test of the project launches Chromium: the system's one
// where it exists (Playwright's download can not reach its servers there),
// else Playwright's own.
import type { LaunchOptions } from "playwright-core";
import { findChromium } from "../scripts/ensure-browser.mjs";

export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
];

export function chromiumLaunchOptions(): LaunchOptions {
  const found = findChromium();
  const executablePath = found === "playwright" ? undefined : found;
  return { headless: true, args: CHROMIUM_ARGS, ...(executablePath ? { executablePath } : {}) };
}
