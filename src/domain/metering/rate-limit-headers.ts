/**
 * The IETF `RateLimit-Policy` and `RateLimit` fields (draft-ietf-httpapi-ratelimit-headers):
 * one list item per policy, e.g. `"burst";q=60;w=60` and `"burst";r=59;t=12`.
 */

export interface RateLimitPolicyState {
  /** Policy name: `burst` or `credits`. */
  name: string;
  /** Units per window (q). */
  quota: number;
  /** Window length in seconds (w). */
  windowSeconds: number;
  /** Units left now (r). */
  remaining: number;
  /** Seconds (rounded up) until `remaining` next grows; 0 when nothing is waiting to free (t). */
  resetSeconds: number;
}

export function rateLimitPolicyField(policies: readonly RateLimitPolicyState[]): string {
  return policies.map((p) => `"${p.name}";q=${p.quota};w=${p.windowSeconds}`).join(", ");
}

export function rateLimitField(policies: readonly RateLimitPolicyState[]): string {
  return policies.map((p) => `"${p.name}";r=${p.remaining};t=${p.resetSeconds}`).join(", ");
}

/** Milliseconds to whole seconds, rounded up. */
export function ceilSeconds(ms: number): number {
  return Math.max(0, Math.ceil(ms / 1000));
}
