import type { CustomerModel } from "./hazard.ts";

/**
 * Growth or decline within regular customers. A fitted customer's cadence (hazard.ts) is the
 * pace of its last 12 intervals, which for a monthly customer span a year: where each
 * customer orders less and less (a business in decline) or more and more (a growing one), the
 * coming months are not at that pace. The business's own regular customers say how their ordering
 * has moved: orders of the customers fitted today, in the last half-year against the same
 * half-year a year earlier (a year apart, so the season cancels), pooled over the customers
 * who were already ordering then. Each customer's expected orders are then carried along that
 * trend from today to each coming day.
 * docs/forecast.md, "Growth and decline within regular customers".
 */

/** The half-year the orders are counted over. */
const TREND_WINDOW_DAYS = 182;
/** The two windows are a year apart, so the season cancels. */
const TREND_LAG_DAYS = 364;
/** Bounds of the factor on one customer's orders. */
const MIN_FACTOR = 0.5;
const MAX_FACTOR = 2;

/** The pooled trend of the fitted customers' orders, with its evidence. */
export interface CustomerTrend {
  /**
   * Log change of the order rate per year, shrunk toward 0 (no trend) by its standard error:
   * g · g² ÷ (g² + se²). 0 without evidence.
   */
  logPerYear: number;
  /** Before shrinking: ln(later ÷ earlier) over the year between the windows. */
  rawLogPerYear: number;
  /** Orders of the customers counted in the earlier window (a year before the later one). */
  earlier: number;
  /** Their orders in the last TREND_WINDOW_DAYS up to today. */
  later: number;
  /** Fitted customers counted: those with an order before the earlier window started. */
  customers: number;
  /** Day numbers of the earlier window's first day and of today; null without evidence. */
  from: number | null;
  to: number | null;
}

/**
 * Counts the orders of the fitted customers first seen before (today − 364 − 182), in
 * (today − 546, today − 364] and in (today − 182, today]. Counts of orders are about Poisson, so
 * ln(later ÷ earlier) has a standard error of √(1/earlier + 1/later).
 */
export function fitCustomerTrend(
  customers: readonly CustomerModel[],
  todayDay: number,
): CustomerTrend {
  const laterFrom = todayDay - TREND_WINDOW_DAYS;
  const earlierTo = todayDay - TREND_LAG_DAYS;
  const earlierFrom = earlierTo - TREND_WINDOW_DAYS;
  let earlier = 0;
  let later = 0;
  let counted = 0;
  for (const c of customers) {
    const first = c.orderDays[0];
    if (first === undefined || first > earlierFrom) continue;
    counted += 1;
    for (const d of c.orderDays) {
      if (d > laterFrom && d <= todayDay) later += 1;
      else if (d > earlierFrom && d <= earlierTo) earlier += 1;
    }
  }
  if (earlier === 0 || later === 0)
    return {
      logPerYear: 0,
      rawLogPerYear: 0,
      earlier,
      later,
      customers: counted,
      from: null,
      to: null,
    };
  const years = TREND_LAG_DAYS / 365;
  const g = Math.log(later / earlier) / years;
  const se2 = (1 / earlier + 1 / later) / (years * years);
  return {
    logPerYear: (g * g * g) / (g * g + se2),
    rawLogPerYear: g,
    earlier,
    later,
    customers: counted,
    from: earlierFrom + 1,
    to: todayDay,
  };
}

/**
 * The factor on a customer's expected orders `j` days after today: the trend carried from today
 * to that day, within [½, 2]. The cadence is taken as today's pace (carrying the trend from the
 * middle of the orders it was fitted on instead lowered a forecast already running low where
 * the trend is mostly customers who stop: docs/forecast.md).
 */
export function trendFactor(trend: CustomerTrend, j: number): number {
  if (trend.logPerYear === 0) return 1;
  const f = Math.exp((trend.logPerYear * j) / 365);
  return Math.min(MAX_FACTOR, Math.max(MIN_FACTOR, f));
}
