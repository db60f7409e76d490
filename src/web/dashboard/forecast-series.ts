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
  /** The week's flows by ledger account (names as the signed-in owner sees them). */
  categories?:
    | { accounts: Record<string, { name: string; inflow?: string; outflow?: string }> }
    | undefined;
  /**
   * The forecast's prediction interval for the closing cash, where the forecast provides one.
   * Drawn as a band around the closing line.
   */
  band?: { low: string; high: string } | undefined;
}

/** The forecast the dashboard draws: the same row `GET /api/agent/forecast` serves. */
export interface ForecastInput {
  scenarioId?: string | undefined;
  scenarioName?: string | undefined;
  scenarioKind?: string | undefined;
  computedAt: string;
  startingCash: string;
  currency?: string | undefined;
  weeks: ForecastWeekInput[];
}

/** One point per week: the engine's closing and the two bounding lines (decimal strings). */
export interface ForecastPoint {
  weekStart: string;
  weekEnd: string;
  inflow: string;
  outflow: string;
  closing: string;
  band?: { low: string; high: string };
  /** Opening cash plus guaranteed inflows only, minus outflows: what happens if no predicted order arrives. */
  conservative: string;
  /** Opening cash plus guaranteed and statistical (forecast) inflows, minus outflows. */
  optimistic: string;
}

export interface ForecastSeries {
  points: ForecastPoint[];
  /**
   * Smallest and largest value over all lines (and the band), for the chart's axis. Zero is not
   * forced in: an axis from zero flattens the movement that matters.
   */
  min: string;
  max: string;
  endingCash: string;
  lowestClosing: { value: string; weekStart: string } | null;
  /** The largest weekly inflow or outflow, for the bars' scale. */
  maxFlow: string;
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
  let lo: Decimal | null = null;
  let hi: Decimal | null = null;
  let lowest: { value: Decimal; weekStart: string } | null = null;
  let maxFlow: Decimal = money(0);
  for (const week of forecast.weeks) {
    const predicted = money(week.forecastInflow ?? "0");
    const guaranteed =
      week.guaranteedInflow === undefined
        ? money(week.inflow).minus(predicted)
        : money(week.guaranteedInflow);
    conservative = conservative.plus(guaranteed).minus(money(week.outflow));
    optimistic = optimistic.plus(guaranteed).plus(predicted).minus(money(week.outflow));
    const closing = money(week.closing);
    const band = week.band ? [money(week.band.low), money(week.band.high)] : [];
    for (const v of [closing, conservative, optimistic, ...band]) {
      if (lo === null || v.lessThan(lo)) lo = v;
      if (hi === null || v.greaterThan(hi)) hi = v;
    }
    for (const f of [money(week.inflow), money(week.outflow)])
      if (f.greaterThan(maxFlow)) maxFlow = f;
    if (!lowest || closing.lessThan(lowest.value))
      lowest = { value: closing, weekStart: week.weekStart };
    points.push({
      weekStart: week.weekStart,
      weekEnd: week.weekEnd,
      inflow: canonical(week.inflow),
      outflow: canonical(week.outflow),
      closing: canonical(closing),
      ...(week.band
        ? { band: { low: canonical(week.band.low), high: canonical(week.band.high) } }
        : {}),
      conservative: canonical(conservative),
      optimistic: canonical(optimistic),
    });
  }
  const last = forecast.weeks[forecast.weeks.length - 1];
  return {
    points,
    min: canonical(lo ?? forecast.startingCash),
    max: canonical(hi ?? forecast.startingCash),
    endingCash: canonical(last ? last.closing : forecast.startingCash),
    lowestClosing: lowest ? { value: canonical(lowest.value), weekStart: lowest.weekStart } : null,
    maxFlow: canonical(maxFlow),
  };
}
