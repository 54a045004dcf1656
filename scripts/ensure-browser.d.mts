/** The Chromium binary the browser tests use, or undefined when none is installed. */
export function findChromium(): string | undefined;
