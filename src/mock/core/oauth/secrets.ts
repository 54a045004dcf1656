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
  return cookies(req, name)[0];
}

/** Every value a request sends for a cookie name (a browser sends one per path it was set for). */
export function cookies(req: MockRequest, name: string): string[] {
  const found: string[] = [];
  for (const part of (req.headers.cookie ?? "").split(";")) {
    const [k, ...v] = part.trim().split("=");
    if (k === name) found.push(v.join("="));
  }
  return found;
}
