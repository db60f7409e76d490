/** The legacy per-organisation daily bucket: counted per UTC calendar day. */

const DAY_MS = 86_400_000;

/** The UTC calendar day of `now`, `YYYY-MM-DD`. */
export function utcDay(now: Date): string {
  return now.toISOString().slice(0, 10);
}

/** The next 00:00 UTC after `now` (when the bucket empties). */
export function nextUtcMidnight(now: Date): Date {
  return new Date(Math.floor(now.getTime() / DAY_MS) * DAY_MS + DAY_MS);
}

/** The status `quota` object and the `X-Service-Quota-*` headers. */
export interface DailyQuota {
  limit: number;
  used: number;
  remaining: number;
  /** ISO 8601: the next 00:00 UTC. */
  resetAt: string;
}

/** The last reset instant formatted, by day number: every call of a day shares it. */
let resetAtMemo = { day: Number.NaN, iso: "" };

export function dailyQuota(limit: number, used: number, now: Date): DailyQuota {
  const day = Math.floor(now.getTime() / DAY_MS);
  if (day !== resetAtMemo.day) resetAtMemo = { day, iso: nextUtcMidnight(now).toISOString() };
  return { limit, used, remaining: Math.max(0, limit - used), resetAt: resetAtMemo.iso };
}
