import { canonical, money } from "../../domain/money.ts";

/** How long the BASE forecast's cash stays at or above the owner's threshold. */
export type RunwayWeeks =
  | {
      kind: "below";
      /** Weeks that close at or above the threshold before the first that does not (0 = this week). */
      weeks: number;
      /** The first week closing below the threshold: 1-based, its start and its closing. */
      weekNumber: number;
      weekStart: string;
      closing: string;
    }
  | { kind: "beyond"; horizonWeeks: number };

/**
 * Runway in weeks: the number of forecast weeks before the first week whose closing cash is
 * below `threshold` (exact decimals). None below: "beyond" the forecast's horizon (13 weeks).
 */
export function runwayWeeks(
  weeks: readonly { weekStart: string; closing: string }[],
  threshold: string,
): RunwayWeeks {
  const limit = money(threshold);
  const i = weeks.findIndex((w) => money(w.closing).lessThan(limit));
  const week = weeks[i];
  if (i < 0 || !week) return { kind: "beyond", horizonWeeks: weeks.length };
  return {
    kind: "below",
    weeks: i,
    weekNumber: i + 1,
    weekStart: week.weekStart,
    closing: canonical(week.closing),
  };
}

/** Weeks per month on average (52 weeks / 12 months). */
const WEEKS_PER_MONTH = money(52).div(12);

/** Months of runway at the current net burn, with every figure the page shows for "how". */
export interface BurnRunway {
  /** Weeks averaged (the last full weeks). */
  weeks: number;
  receipts: string;
  spending: string;
  /** Spending minus receipts over those weeks; negative = cash grew. */
  netBurn: string;
  /** Average net burn per month: netBurn / weeks × 52 / 12, to the cent. */
  monthlyBurn: string;
  cash: string;
  /** cash / monthlyBurn to one decimal; null when not burning (monthlyBurn ≤ 0) or no cash. */
  months: string | null;
}

/**
 * Months of runway at the current net burn: cash today divided by the average monthly net burn
 * of the last `weeks` full weeks (customer receipts against spending, as the insight engine
 * reads them). Exact decimals; the page shows each figure so the owner can redo the sum.
 */
export function burnRunway(input: {
  cash: string;
  weeklyReceipts: readonly string[];
  weeklySpending: readonly string[];
  weeks?: number;
}): BurnRunway {
  const n = Math.min(input.weeks ?? 4, input.weeklyReceipts.length, input.weeklySpending.length);
  const sum = (xs: readonly string[]) =>
    xs.slice(xs.length - n).reduce((t, x) => t.plus(money(x)), money(0));
  const receipts = n > 0 ? sum(input.weeklyReceipts) : money(0);
  const spending = n > 0 ? sum(input.weeklySpending) : money(0);
  const net = spending.minus(receipts);
  const monthly = n > 0 ? net.div(n).times(WEEKS_PER_MONTH).toDecimalPlaces(2) : money(0);
  const cash = money(input.cash);
  const months =
    monthly.greaterThan(0) && cash.greaterThan(0)
      ? cash.div(monthly).toDecimalPlaces(1).toFixed(1)
      : null;
  return {
    weeks: n,
    receipts: canonical(receipts),
    spending: canonical(spending),
    netBurn: canonical(net),
    monthlyBurn: canonical(monthly),
    cash: canonical(cash),
    months,
  };
}

/** A KPI tile's change: the latest `span` weeks against the `span` before, as a fraction. */
export function periodChange(weekly: readonly string[], span = 4): number | null {
  if (weekly.length < span * 2) return null;
  const sum = (xs: readonly string[]) => xs.reduce((t, x) => t.plus(money(x)), money(0));
  const latest = sum(weekly.slice(-span));
  const before = sum(weekly.slice(-span * 2, -span));
  if (before.isZero()) return null;
  return latest.minus(before).div(before.abs()).toDecimalPlaces(4).toNumber();
}
