import type { Decimal } from "decimal.js";
import { canonical, money } from "../../domain/money.ts";

/** One forecast week as the API's ForecastWeek carries it (decimal strings). */
export interface ForecastWeekInput {
  weekStart: string;
  weekEnd: string;
  opening: string;
  inflow: string;
  /** Absent on engineVersion=1 snapshots: then all of `inflow` counts as guaranteed. */
  guaranteedInflow?: string | undefined;
  /** Absent on engineVersion=1 snapshots: readers treat it as 0 (spec). */
  forecastInflow?: string | undefined;
  outflow: string;
  closing: string;
}

/** The forecast the dashboard draws: the same row `GET /api/agent/forecast` serves. */
export interface ForecastInput {
  computedAt: string;
  startingCash: string;
  currency?: string | undefined;
  weeks: ForecastWeekInput[];
}

/** One point per week: the engine's closing and the two bounding lines (decimal strings). */
export interface ForecastPoint {
  weekStart: string;
  closing: string;
  /** Opening cash plus guaranteed inflows only, minus outflows: what happens if no predicted order arrives. */
  conservative: string;
  /** Opening cash plus guaranteed and statistical (forecast) inflows, minus outflows. */
  optimistic: string;
}

export interface ForecastSeries {
  points: ForecastPoint[];
  /** Smallest and largest value over all lines and zero, for the chart's axis. */
  min: string;
  max: string;
  endingCash: string;
  lowestClosing: { value: string; weekStart: string } | null;
}

/**
 * The lines of the 13-week chart. `closing` is the engine's own figure. The conservative and
 * optimistic lines are cumulated from the starting cash week by week:
 *
 *   conservative[w] = conservative[w-1] + guaranteedInflow[w] - outflow[w]
 *   optimistic[w]   = optimistic[w-1]   + guaranteedInflow[w] + forecastInflow[w] - outflow[w]
 *
 * When the engine's inflow is exactly guaranteed + forecast (the spec's split), the optimistic
 * line coincides with closing; the gap between the two lines is the part of the forecast that
 * rests on predicted orders. Exact decimal arithmetic throughout.
 */
export function forecastSeries(forecast: ForecastInput): ForecastSeries {
  let conservative = money(forecast.startingCash);
  let optimistic = money(forecast.startingCash);
  const points: ForecastPoint[] = [];
  let lo: Decimal = money(0);
  let hi: Decimal = money(0);
  let lowest: { value: Decimal; weekStart: string } | null = null;
  for (const week of forecast.weeks) {
    const predicted = money(week.forecastInflow ?? "0");
    const guaranteed =
      week.guaranteedInflow === undefined
        ? money(week.inflow).minus(predicted)
        : money(week.guaranteedInflow);
    conservative = conservative.plus(guaranteed).minus(money(week.outflow));
    optimistic = optimistic.plus(guaranteed).plus(predicted).minus(money(week.outflow));
    const closing = money(week.closing);
    for (const v of [closing, conservative, optimistic]) {
      if (v.lessThan(lo)) lo = v;
      if (v.greaterThan(hi)) hi = v;
    }
    if (!lowest || closing.lessThan(lowest.value))
      lowest = { value: closing, weekStart: week.weekStart };
    points.push({
      weekStart: week.weekStart,
      closing: canonical(closing),
      conservative: canonical(conservative),
      optimistic: canonical(optimistic),
    });
  }
  const last = forecast.weeks[forecast.weeks.length - 1];
  return {
    points,
    min: canonical(lo),
    max: canonical(hi),
    endingCash: canonical(last ? last.closing : forecast.startingCash),
    lowestClosing: lowest ? { value: canonical(lowest.value), weekStart: lowest.weekStart } : null,
  };
}
