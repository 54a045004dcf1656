/**
 * A text that differs whenever a file under `paths` (files or folders, from `root`) was added,
 * removed, or changed in size or modification time.
 */
export function inputsRecord(root: string, paths: readonly string[]): string;
