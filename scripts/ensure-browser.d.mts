/** The Chromium binary the browser tests use, or undefined when none is installed. */
export function findChromium(): string | undefined;

/** Finds or installs a Chromium and says which; 0 when there is one, 1 with the reason when none can be had. */
export function ensureBrowser(): number;
