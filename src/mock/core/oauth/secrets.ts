// Comparing secrets and reading cookies: shared by the screens, the token
// endpoint and the portal.
import { hash, timingSafeEqual } from "node:crypto";
import type { MockRequest } from "../http.ts";

/** Constant-time comparison of a secret (hashing first makes the lengths equal). */
export function sameSecret(given: string | null | undefined, expected: string): boolean {
  if (typeof given !== "string") return false;
  return timingSafeEqual(hash("sha256", given, "buffer"), hash("sha256", expected, "buffer"));
}

/** The value of a request cookie, or undefined. */
export function cookie(req: MockRequest, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? "").split(";")) {
    const [k, ...v] = part.trim().split("=");
    if (k === name) return v.join("=");
  }
  return undefined;
}
