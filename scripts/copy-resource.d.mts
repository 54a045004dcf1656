/** The document with every path and component named after `from` copied under `to`. */
export function copyResource<T extends Record<string, unknown>>(doc: T, from: string, to: string): T;

/** Writes openapi.yaml with the copy to `out` (default reports/second-resource/openapi.yaml); returns the path. */
export function writeCopy(options?: { from?: string; to?: string; out?: string }): string;
