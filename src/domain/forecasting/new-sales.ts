import type { Cents } from "./cents.ts";
import { fitCustomerTrend, trendFactor } from "./customer-trend.ts";
import { dateOf } from "./dates.ts";
import { expectedOrdersByDay, fitCustomers } from "./hazard.ts";
import { RUN_RATE_DAYS, seasonalEvidence } from "./run-rates.ts";
import { salesCents, salesDays } from "./sales-history.ts";
import type { CustomerInfo, SalesHistoryEntry } from "./types.ts";

/**
 * New sales as the business's own last quarters show them. The hazard model (hazard.ts) forecasts
 * the customers with a cadence today and the run rate (run-rates.ts) the last 91 days' sales of
 * every other customer; on every business of the family the fitted customers sold less than
 * forecast and the others far more (1.4–2.5 times the run rate): about half of a quarter's
 * "other" sales are customers not seen before it (arrivals, more of them each quarter), the rest
 * customers with one or two orders who go on ordering. The run rate counts the window's young
 * customers once and no newcomer. So each of the last CHECK_QUARTERS quarters is replayed from
 * its start p (books up to p only):
 *
 * - the customers fitted at p: what the engine then expected of them over (p, p + 91] (their
 *   hazard model, the trend and season of p) against what they invoiced;
 * - every other customer (no cadence at p, including those first seen after p): what they
 *   invoiced over (p, p + 91], the quarter's *analogue* of the coming one's other customers.
 *
 * The fitted customers' expected orders are multiplied by the pooled ratio actual ÷ expected, its
 * log shrunk toward 0 by its standard error (the larger of the between-quarter one and the
 * invoices' own, √Σv² ÷ Σv, a few large invoices being noisy); the run rate is moved to the
 * quarters' mean analogue, the log ratio shrunk the same way (the invoices' errors of both). The
 * fitted customers' factor stays within [½, 2]. docs/forecast.md, "New customers and the fitted customers' track record".
 */

/** Quarters replayed. */
export const CHECK_QUARTERS = 4;
const MIN_FACTOR = 0.5;
const MAX_FACTOR = 2;

/** The replay's evidence and the two factors it serves. */
export interface NewSalesCheck {
  /** Quarters replayed (each with a quarter of books before its start). */
  quarters: number;
  /** Σ over the quarters of the fitted customers' expected and actual sales (cents). */
  fittedExpected: Cents;
  fittedActual: Cents;
  /** Their invoices in the quarters. */
  fittedInvoices: number;
  /** ln(actual ÷ expected), pooled; its standard error; the factor served (e^shrunk). */
  fittedLogRatio: number;
  fittedSe: number;
  fittedScale: number;
  /** The quarters' mean sales of customers without a cadence at the quarter's start (cents). */
  othersAnalogue: Cents;
  othersInvoices: number;
  /** The run rate's window total before the factor (cents). */
  runRate: Cents;
  /** ln(analogue ÷ run rate), its standard error, the factor on the run rate served. */
  othersLogRatio: number;
  othersSe: number;
  othersFactor: number;
  /** Day numbers of the earliest quarter's start and of today; null without a quarter. */
  from: number | null;
  to: number | null;
}

/** x · x² ÷ (x² + se²): toward 0 as its standard error grows. */
const shrink = (x: number, se2: number) => (x === 0 ? 0 : (x * x * x) / (x * x + se2));
const clamp = (f: number) => Math.min(MAX_FACTOR, Math.max(MIN_FACTOR, f));

/**
 * Replays the last CHECK_QUARTERS quarters (see above). `fittedToday` names the customers with a
 * cadence today, whose complement the run rate was measured on, and `runRate` is its window total.
 */
export function checkNewSales(input: {
  history: readonly SalesHistoryEntry[];
  customers: readonly CustomerInfo[];
  todayDay: number;
  baseCurrency: string;
  fittedToday: ReadonlySet<string>;
  runRate: Cents;
}): NewSalesCheck {
  const { history, customers, todayDay, baseCurrency } = input;
  const days = salesDays(history);
  const totals = salesCents(history, baseCurrency);
  let earliest = Number.POSITIVE_INFINITY;
  for (let i = 0; i < history.length; i++) earliest = Math.min(earliest, days.issue[i] ?? 0);
  let fittedExpected = 0;
  let fittedActual = 0;
  let fittedSq = 0;
  let fittedInvoices = 0;
  let others = 0;
  let othersSq = 0;
  let othersInvoices = 0;
  let quarters = 0;
  let from: number | null = null;
  const logs: number[] = [];
  for (let q = 1; q <= CHECK_QUARTERS; q++) {
    const p = todayDay - RUN_RATE_DAYS * q;
    // A quarter of books before the replayed one, so "no cadence at p" is not "no books yet".
    if (earliest > p - RUN_RATE_DAYS + 1) break;
    quarters += 1;
    from = p + 1;
    const models = fitCustomers(history, customers, dateOf(p), baseCurrency);
    const trend = fitCustomerTrend(models, p);
    const season = Math.sqrt(seasonalEvidence(history, dateOf(p), baseCurrency).ratio);
    let expected = 0;
    for (const c of models) {
      const byDay = expectedOrdersByDay(c, p, RUN_RATE_DAYS);
      for (let j = 1; j <= RUN_RATE_DAYS; j++)
        expected += (byDay[j] ?? 0) * trendFactor(trend, j) * c.typicalOrder * season;
    }
    const fitted = new Set(models.map((c) => c.contactId));
    let actual = 0;
    history.forEach((e, i) => {
      const d = days.issue[i] ?? 0;
      if (d <= p || d > p + RUN_RATE_DAYS) return;
      const v = totals[i] ?? 0;
      if (fitted.has(e.contactId)) {
        actual += v;
        fittedSq += v * v;
        fittedInvoices += 1;
      } else {
        others += v;
        othersSq += v * v;
        othersInvoices += 1;
      }
    });
    fittedExpected += expected;
    fittedActual += actual;
    if (expected > 0 && actual > 0) logs.push(Math.log(actual / expected));
  }
  // The fitted customers' factor: at least two quarters to judge its between-quarter error.
  let fittedLogRatio = 0;
  let fittedSe = Number.POSITIVE_INFINITY;
  if (logs.length >= 2 && fittedExpected > 0 && fittedActual > 0) {
    fittedLogRatio = Math.log(fittedActual / fittedExpected);
    const mean = logs.reduce((a, b) => a + b, 0) / logs.length;
    const between = logs.reduce((a, b) => a + (b - mean) ** 2, 0) / (logs.length - 1);
    fittedSe = Math.sqrt(Math.max(fittedSq / (fittedActual * fittedActual), between / logs.length));
  }
  const fittedScale = Number.isFinite(fittedSe)
    ? clamp(Math.exp(shrink(fittedLogRatio, fittedSe * fittedSe)))
    : 1;
  // The other customers: the quarters' mean analogue against the run rate's window.
  let runSq = 0;
  history.forEach((e, i) => {
    const d = days.issue[i] ?? 0;
    if (d > todayDay - RUN_RATE_DAYS && d <= todayDay && !input.fittedToday.has(e.contactId))
      runSq += (totals[i] ?? 0) ** 2;
  });
  const othersAnalogue = quarters > 0 ? Math.round(others / quarters) : 0;
  let othersLogRatio = 0;
  let othersSe = Number.POSITIVE_INFINITY;
  if (othersAnalogue > 0 && input.runRate > 0) {
    othersLogRatio = Math.log(othersAnalogue / input.runRate);
    othersSe = Math.sqrt(
      othersSq / (quarters * quarters * othersAnalogue * othersAnalogue) +
        runSq / (input.runRate * input.runRate),
    );
  }
  const othersFactor = Number.isFinite(othersSe)
    ? Math.exp(shrink(othersLogRatio, othersSe * othersSe))
    : 1;
  return {
    quarters,
    fittedExpected: Math.round(fittedExpected),
    fittedActual,
    fittedInvoices,
    fittedLogRatio,
    fittedSe,
    fittedScale,
    othersAnalogue,
    othersInvoices,
    runRate: input.runRate,
    othersLogRatio,
    othersSe,
    othersFactor,
    from,
    to: quarters > 0 ? todayDay : null,
  };
}
