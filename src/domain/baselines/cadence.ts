import { dayNumber } from "../summaries/calendar.ts";
import { median } from "./stats.ts";

/** How often a customer orders. */
export type Cadence = "WEEKLY" | "FORTNIGHTLY" | "MONTHLY" | "QUARTERLY" | "ANNUAL" | "NONE";

/**
 * The cadences with the band of intervals (days, inclusive) that count as "on cadence", the
 * nominal period, and how many intervals give full confidence. Bands leave room for the usual
 * jitter (an order a day or two late, months of 28–31 days) and do not overlap.
 */
export const CADENCE_RULES: readonly {
  cadence: Exclude<Cadence, "NONE">;
  min: number;
  max: number;
  periodDays: number;
  fullConfidenceAt: number;
}[] = [
  { cadence: "WEEKLY", min: 5, max: 9, periodDays: 7, fullConfidenceAt: 8 },
  { cadence: "FORTNIGHTLY", min: 11, max: 17, periodDays: 14, fullConfidenceAt: 6 },
  { cadence: "MONTHLY", min: 24, max: 38, periodDays: 30.44, fullConfidenceAt: 6 },
  { cadence: "QUARTERLY", min: 75, max: 106, periodDays: 91.31, fullConfidenceAt: 3 },
  { cadence: "ANNUAL", min: 320, max: 410, periodDays: 365.25, fullConfidenceAt: 2 },
];

/** Below this share of intervals inside the band, the customer has no cadence. */
export const MIN_IN_BAND_SHARE = 0.5;

export interface CadenceResult {
  cadence: Cadence;
  /** 0–100: share of intervals in the band × min(1, intervals / fullConfidenceAt); 0 for NONE. */
  confidence: number;
  /** Median days between consecutive order dates; null with fewer than two order dates. */
  medianIntervalDays: number | null;
  /** Number of intervals the decision used. */
  intervals: number;
}

/**
 * Detects a customer's cadence from their order dates (issue dates of their invoices):
 *
 * 1. Dates are de-duplicated (two invoices on one day are one order) and sorted; the intervals
 *    are the days between consecutive orders.
 * 2. The candidate is the cadence whose band holds the **median** interval, so an occasional
 *    skipped or extra order does not change it. No band → NONE.
 * 3. At least half the intervals must fall in that band, else NONE (irregular).
 * 4. Confidence = in-band share × a sample factor (intervals / the cadence's `fullConfidenceAt`,
 *    at most 1), as a whole percentage. One interval is enough to guess ANNUAL, but only at 50.
 */
export function detectCadence(orderDates: readonly string[]): CadenceResult {
  const days = [...new Set(orderDates.map(dayNumber))].sort((a, b) => a - b);
  const intervals: number[] = [];
  for (let i = 1; i < days.length; i++) intervals.push((days[i] ?? 0) - (days[i - 1] ?? 0));
  if (intervals.length === 0) {
    return { cadence: "NONE", confidence: 0, medianIntervalDays: null, intervals: 0 };
  }
  const mid = median(intervals);
  const rule = CADENCE_RULES.find((r) => mid >= r.min && mid <= r.max);
  const none = {
    cadence: "NONE" as const,
    confidence: 0,
    medianIntervalDays: mid,
    intervals: intervals.length,
  };
  if (!rule) return none;
  const inBand = intervals.filter((d) => d >= rule.min && d <= rule.max).length / intervals.length;
  if (inBand < MIN_IN_BAND_SHARE) return none;
  const sample = Math.min(1, intervals.length / rule.fullConfidenceAt);
  return {
    cadence: rule.cadence,
    confidence: Math.round(100 * inBand * sample),
    medianIntervalDays: mid,
    intervals: intervals.length,
  };
}

/** The nominal period of a cadence in days; null for NONE. */
export function cadencePeriodDays(cadence: Cadence): number | null {
  return CADENCE_RULES.find((r) => r.cadence === cadence)?.periodDays ?? null;
}
