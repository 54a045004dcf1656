// One Chromium for the browser tests of a vitest worker. Test files share their workers
// (vitest.config.ts: isolate false), and a launch costs about 1.5 CPU-s with the browser's own
// processes; each file closes the contexts it opened after its tests, so the next file starts as
// with a new browser. The browser goes with the worker's process.
import { type Browser, chromium } from "playwright-core";
import { chromiumLaunchOptions } from "./browser.ts";

let launched: Promise<Browser> | undefined;

/** The worker's Chromium, launched at the first call (again after one that crashed or failed). */
export async function testBrowser(): Promise<Browser> {
  const running = await launched?.catch(() => undefined);
  if (running?.isConnected()) return running;
  launched = chromium.launch(chromiumLaunchOptions());
  return launched;
}

/** After a file's tests: closes every context it opened in the worker's browser. */
export async function releaseBrowser(browser: Browser | undefined): Promise<void> {
  if (!browser?.isConnected()) return;
  await Promise.all(browser.contexts().map((c) => c.close()));
}
