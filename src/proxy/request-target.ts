// What the proxy reads of a request target before it forwards it: whether the
// target can be forwarded at all (the judge and the target must see the same
// path, inside the target's prefix), and whether it is a control call or a
// portal page of a bawa mock behind the proxy, which keep their own guard.
import type { Target } from "../mock/core/app.ts";

/** The kind of a mock's own call a path reaches: its control calls and dashboard, or its portal. */
export type LocalCall = "control" | "portal";

/** How many rounds of percent-decoding a path is read through for dot segments (a target may decode twice). */
const DECODING_ROUNDS = 3;

/**
 * Why a request target (path and query, the origin form) can not be forwarded, or undefined. A
 * fragment is never part of a request (RFC 9112 3.2); a dot segment or a backslash, however
 * encoded, lets the target's own normalisation climb out of the prefix the proxy puts in front.
 */
export function targetProblem(url: string): string | undefined {
  // Made only for a problem: the proxy asks this of every request.
  const shown = () => JSON.stringify(url.length > 200 ? `${url.slice(0, 200)}...` : url);
  if (url.includes("#")) {
    return `the request target ${shown()} carries a fragment (#...), which is never sent to a server; send it without`;
  }
  const q = url.indexOf("?");
  const path = q < 0 ? url : url.slice(0, q);
  for (const raw of path.split("/")) {
    let segment = raw;
    for (let round = 0; round <= DECODING_ROUNDS; round++) {
      if (segment.includes("\\")) {
        return `the path ${shown()} has a backslash (\\ or %5C), which some servers read as /; send the path without it`;
      }
      if (isDotSegment(segment) || (segment.includes("/") && segment.split("/").some(isDotSegment))) {
        return `the path ${shown()} has a dot segment ("." or "..", plain or percent-encoded), which could reach outside the target's path; send the path without it`;
      }
      if (!segment.includes("%")) break;
      try {
        segment = decodeURIComponent(segment);
      } catch {
        break;
      }
    }
  }
  return undefined;
}

const isDotSegment = (s: string) => s === "." || s === "..";

/**
 * The mock's own call a request target reaches, read as the mock reads it (every spelling:
 * percent-encoding, case, doubled slashes), or undefined for everything else.
 */
export function localCall(target: Target): LocalCall | undefined {
  if (!target.ok) return undefined;
  const first = target.segments[0]?.toLowerCase();
  return first === "__mock" ? "control" : first === "portal" ? "portal" : undefined;
}
