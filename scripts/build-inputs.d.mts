/** What tsc reads for dist/ and what decides its output, from the project's root. */
export const BUILD_INPUTS: readonly string[];

/** What tsc writes, from the project's root. */
export const BUILD_OUTPUTS: readonly string[];

/**
 * A text that differs whenever a file under `paths` (files or folders, from `root`) was added,
 * removed, or changed in size or modification time (to the millisecond).
 */
export function inputsRecord(root: string, paths: readonly string[]): string;
