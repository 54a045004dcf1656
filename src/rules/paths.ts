// Where a request goes, read the one way the mock routes it and the proxy and
// the suite judge it: the version segment (Versioning 1: `/v<digits>`, either
// letter), literal segments without case and one trailing slash allowed
// (A-PATH-CASE), a `.json` or `.xml` suffix on a data path (A-FORMAT-SUFFIX),
// and a data path whose database segment is missing (Errors, rule 4). The mock's
// router and the rules' Places both match through PathMatcher, so a path the
// mock answers is the path the judge reads.

/** `v1`, `V221`: the letter as sent and the version's digits. */
export const VERSION_SEGMENT = /^([vV])(\d+)$/;

/** The version segment of a path, when its first segment is one. */
export function versionOf(segment: string | undefined): { letter: "v" | "V"; number: string } | undefined {
  const m = VERSION_SEGMENT.exec(segment ?? "");
  return m ? { letter: m[1] as "v" | "V", number: m[2]! } : undefined;
}

/**
 * The segments of a request target's path, decoded, without the query and
 * without one trailing slash; undefined when a segment's escapes do not decode.
 */
export function pathSegments(target: string): string[] | undefined {
  const q = target.indexOf("?");
  const raw = (q < 0 ? target : target.slice(0, q)).split("/").slice(1);
  if (raw.length > 1 && raw.at(-1) === "") raw.pop();
  try {
    return raw.map((s) => (s.includes("%") ? decodeURIComponent(s) : s));
  } catch {
    return undefined;
  }
}

/** Whether segments after the version segment address the data API (`/api/...`). */
export const isDataPath = (segments: readonly string[]) => segments[0]?.toLowerCase() === "api";

/**
 * A-FORMAT-SUFFIX: `.json` or `.xml` on the last segment of a data path chooses the answer's
 * format; the path is matched without it.
 */
export function formatSuffix(segments: readonly string[]): { path: string[]; suffix: "json" | "xml" } | undefined {
  if (!isDataPath(segments)) return undefined;
  const m = /^(.+)\.(json|xml)$/i.exec(segments.at(-1) ?? "");
  if (!m) return undefined;
  return { path: [...segments.slice(0, -1), m[1]!], suffix: m[2]!.toLowerCase() as "json" | "xml" };
}

/** Errors, rule 4: the segments of a data path read as if its database segment were there and empty. */
export const withEmptyDatabase = (segments: readonly string[]) => ["api", "", ...segments.slice(1)];

/** A path template read once: each segment a literal (lower case) or the name of a parameter. */
interface Pattern {
  literals: ReadonlyArray<string | undefined>;
  params: ReadonlyArray<string | undefined>;
  literalCount: number;
}

function compile(path: string): Pattern {
  const segments = path.split("/").slice(1);
  const literals = segments.map((s) => (s.startsWith("{") ? undefined : s.toLowerCase()));
  return {
    literals,
    params: segments.map((s) => (s.startsWith("{") ? s.slice(1, -1) : undefined)),
    literalCount: literals.filter((l) => l !== undefined).length,
  };
}

export interface PathMatch<T> {
  entry: T;
  /** The parameters' values by name, as the segments carried them (decoded). */
  params: Record<string, string>;
}

/**
 * Finds the entry whose path template (`/api/{database_id}/Customer/{customer_id}`) matches
 * decoded path segments. Where two templates match, the one with more literal segments wins
 * (`/api/{db}/Customer/Command` over `/api/{db}/Customer/{id}`), then the earlier one. Every
 * request of the mock passes here: segments are lower-cased once, and an object of parameters
 * is made only for the entry that matches.
 */
export class PathMatcher<T> {
  readonly #entries: ReadonlyArray<{ entry: T; pattern: Pattern }>;

  constructor(entries: readonly T[], pathOf: (entry: T) => string) {
    this.#entries = entries
      .map((entry) => ({ entry, pattern: compile(pathOf(entry)) }))
      // Array.prototype.sort is stable: equally specific templates keep their order.
      .sort((a, b) => b.pattern.literalCount - a.pattern.literalCount);
  }

  match(segments: readonly string[]): PathMatch<T> | undefined {
    let lower: string[] | undefined;
    for (const { entry, pattern } of this.#entries) {
      const { literals, params } = pattern;
      if (literals.length !== segments.length) continue;
      lower ??= segments.map((s) => s.toLowerCase());
      let i = 0;
      while (i < literals.length && (literals[i] === undefined || literals[i] === lower[i])) i++;
      if (i < literals.length) continue;
      const values: Record<string, string> = {};
      for (let k = 0; k < params.length; k++) if (params[k] !== undefined) values[params[k]!] = segments[k]!;
      return { entry, params: values };
    }
    return undefined;
  }
}
