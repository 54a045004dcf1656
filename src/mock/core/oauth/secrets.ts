// Comparing secrets and reading cookies: shared by the screens, the token
// endpoint and the portal.
import { createHash, timingSafeEqual } from "node:crypto";
import type { MockRequest } from "../http.ts";

/** Constant-time comparison of a secret (hashing first makes the lengths equal). */
export function sameSecret(given: string | null | undefined, expected: string): boolean {
  if (typeof given !== "string") return false;
  const a = createHash("sha256").update(given).digest();
  const b = createHash("sha256").update(expected).digest();
  return timingSafeEqual(a, b);
}

/** The value of a request cookie, or undefined. */
export function cookie(req: MockRequest, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? "").split(";")) {
    const [k, ...v] = part.trim().split("=");
    if (k === name) return v.join("=");
  }
  return undefined;
}
