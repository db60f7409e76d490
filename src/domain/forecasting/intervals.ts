import { type Cents, centsToDecimal, toCents } from "./cents.ts";
import type { ForecastWeek } from "./types.ts";

/**
 * Prediction intervals for weekly closing cash, from the organisation's own backtest residuals
 * (split-conformal, per horizon): at horizon h the served BASE engine's past errors e = forecast
 * − actual are sorted, and the 80% interval is [closing − e(hi), closing − e(lo)] with the
 * finite-sample conformal ranks lo = ⌊0.1(n + 1)⌋ and hi = ⌈0.9(n + 1)⌉. The signed errors carry
 * the engine's bias into the band, so a forecast that runs high gets a band reaching lower.
 * docs/forecast.md, "Prediction intervals".
 */

/** The interval's nominal coverage. */
export const INTERVAL_LEVEL = 0.8;
/** Fewer residuals than this at a horizon: no band there ("insufficient history"). */
export const MIN_RESIDUALS = 12;

export interface IntervalBounds {
  /** Error quantiles (forecast − actual), cents; closing − upper … closing − lower. */
  lower: Cents;
  upper: Cents;
}

/** The conformal error bounds of one horizon's residuals; null when too few. */
export function errorBounds(
  residuals: readonly Cents[],
  level = INTERVAL_LEVEL,
): IntervalBounds | null {
  const n = residuals.length;
  if (n < MIN_RESIDUALS) return null;
  const alpha = (1 - level) / 2;
  // The ε keeps float noise (0.1 is not exact) from moving a rank by one.
  const lo = Math.floor(alpha * (n + 1) + 1e-9);
  const hi = Math.ceil((1 - alpha) * (n + 1) - 1e-9);
  if (lo < 1 || hi > n) return null;
  const sorted = [...residuals].sort((a, b) => a - b);
  return { lower: sorted[lo - 1] as Cents, upper: sorted[hi - 1] as Cents };
}

/**
 * Coverage as it would have been lived: errors in time order, each judged by the interval built
 * from the errors known before it (`lag` earlier: at horizon h an origin's own week h ends h
 * origins later). Returns how many were judged and the share inside.
 */
export function sequentialCoverage(
  residuals: readonly Cents[],
  lag: number,
): { judged: number; coverage: number | null } {
  let judged = 0;
  let inside = 0;
  for (let i = 0; i < residuals.length; i++) {
    const b = errorBounds(residuals.slice(0, Math.max(0, i - lag + 1)));
    if (!b) continue;
    judged += 1;
    const e = residuals[i] as Cents;
    if (e >= b.lower && e <= b.upper) inside += 1;
  }
  return { judged, coverage: judged === 0 ? null : inside / judged };
}

/** What `/forecast` says about the band. */
export interface ClosingInterval {
  level: number;
  method: "split-conformal on backtest residuals per horizon";
  /** `calibrated`: every week has a band; `partial`: some horizons lack history; `insufficient_history`: none. */
  status: "calibrated" | "partial" | "insufficient_history";
  /** The local date of the backtest it was calibrated on; null without one. */
  calibratedOn: string | null;
  /** Residuals per horizon (1–13) it was calibrated on. */
  residualCounts: number[];
}

/** The band of each week from per-horizon residuals (decimal strings, as the backtest keeps them). */
export function closingBands(
  weeks: readonly Pick<ForecastWeek, "closing">[],
  residuals: Record<number, readonly string[]> | null,
): { low: string | null; high: string | null }[] {
  return weeks.map((w, i) => {
    const b = residuals ? errorBounds((residuals[i + 1] ?? []).map(toCents)) : null;
    if (!b) return { low: null, high: null };
    const closing = toCents(w.closing);
    return { low: centsToDecimal(closing - b.upper), high: centsToDecimal(closing - b.lower) };
  });
}
