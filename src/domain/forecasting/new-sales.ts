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
  /**
   * Leave one quarter out: Σ over the quarters of the engine's absolute error and of the error
   * with the factors learned on the other quarters (cents; 0 without a year of books before).
   */
  replayEngineError: Cents;
  replayCorrectedError: Cents;
  /** A year of books before the oldest replayed quarter. */
  enoughBooks: boolean;
  /** Whether the factors are served (enough books and the replay's corrected error lower). */
  served: boolean;
  /** Day numbers of the earliest quarter's start and of today; null without a quarter. */
  from: number | null;
  to: number | null;
}

/** x · x² ÷ (x² + se²): toward 0 as its standard error grows. */
const shrink = (x: number, se2: number) => (x === 0 ? 0 : (x * x * x) / (x * x + se2));
const clamp = (f: number) => Math.min(MAX_FACTOR, Math.max(MIN_FACTOR, f));

/** Books before the oldest replayed quarter's start, so its cadences are not the books' first. */
export const BOOKS_BEFORE_DAYS = 365;

/** One replayed quarter (cents). */
interface Quarter {
  /** The fitted customers' expected sales (trend and season of its start) and their invoices. */
  expected: number;
  actual: number;
  actualSq: number;
  /** Sales of customers without a cadence at its start, and Σv² of their invoices. */
  others: number;
  othersSq: number;
  /** The run rate the engine then had: the last 91 days' sales of those not fitted, and Σv². */
  runRate: number;
  runSq: number;
  /** The season's factor the engine then applied. */
  season: number;
}

/** The fitted customers' factor from quarters: pooled actual ÷ expected, log shrunk by its error. */
function fittedFactor(qs: readonly Quarter[]): { log: number; se: number; scale: number } {
  let expected = 0;
  let actual = 0;
  let sq = 0;
  const logs: number[] = [];
  for (const q of qs) {
    expected += q.expected;
    actual += q.actual;
    sq += q.actualSq;
    if (q.expected > 0 && q.actual > 0) logs.push(Math.log(q.actual / q.expected));
  }
  // At least two quarters to judge its between-quarter error.
  if (logs.length < 2 || expected <= 0 || actual <= 0)
    return { log: 0, se: Number.POSITIVE_INFINITY, scale: 1 };
  const log = Math.log(actual / expected);
  const mean = logs.reduce((a, b) => a + b, 0) / logs.length;
  const between = logs.reduce((a, b) => a + (b - mean) ** 2, 0) / (logs.length - 1);
  const se = Math.sqrt(Math.max(sq / (actual * actual), between / logs.length));
  return { log, se, scale: clamp(Math.exp(shrink(log, se * se))) };
}

/** The factor moving a run rate (and Σv² of its invoices) to the quarters' mean analogue. */
function othersFactor(
  qs: readonly Quarter[],
  runRate: number,
  runSq: number,
): { analogue: number; log: number; se: number; factor: number } {
  const n = qs.length;
  const analogue = n > 0 ? qs.reduce((a, q) => a + q.others, 0) / n : 0;
  if (analogue <= 0 || runRate <= 0)
    return { analogue, log: 0, se: Number.POSITIVE_INFINITY, factor: 1 };
  const sq = qs.reduce((a, q) => a + q.othersSq, 0);
  const log = Math.log(analogue / runRate);
  const se = Math.sqrt(sq / (n * n * analogue * analogue) + runSq / (runRate * runRate));
  return { analogue, log, se, factor: Math.exp(shrink(log, se * se)) };
}

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
  const qs: Quarter[] = [];
  let fittedInvoices = 0;
  let othersInvoices = 0;
  let from: number | null = null;
  for (let k = 1; k <= CHECK_QUARTERS; k++) {
    const p = todayDay - RUN_RATE_DAYS * k;
    // A quarter of books before the replayed one, so "no cadence at p" is not "no books yet".
    if (earliest > p - RUN_RATE_DAYS + 1) break;
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
    const q: Quarter = {
      expected,
      actual: 0,
      actualSq: 0,
      others: 0,
      othersSq: 0,
      runRate: 0,
      runSq: 0,
      season,
    };
    history.forEach((e, i) => {
      const d = days.issue[i] ?? 0;
      const v = totals[i] ?? 0;
      if (d > p - RUN_RATE_DAYS && d <= p && !fitted.has(e.contactId)) {
        q.runRate += v;
        q.runSq += v * v;
      }
      if (d <= p || d > p + RUN_RATE_DAYS) return;
      if (fitted.has(e.contactId)) {
        q.actual += v;
        q.actualSq += v * v;
        fittedInvoices += 1;
      } else {
        q.others += v;
        q.othersSq += v * v;
        othersInvoices += 1;
      }
    });
    qs.push(q);
  }
  const fitted = fittedFactor(qs);
  // The other customers: the quarters' mean analogue against the run rate's window.
  let runSq = 0;
  history.forEach((e, i) => {
    const d = days.issue[i] ?? 0;
    if (d > todayDay - RUN_RATE_DAYS && d <= todayDay && !input.fittedToday.has(e.contactId))
      runSq += (totals[i] ?? 0) ** 2;
  });
  const others = othersFactor(qs, input.runRate, runSq);
  // Served only with a year of books before the oldest replayed quarter and when the replay
  // itself says so: each quarter forecast with the factors learned on the other quarters
  // (leave one quarter out) against the engine's own forecast of it, Σ absolute errors.
  const oldest = todayDay - RUN_RATE_DAYS * CHECK_QUARTERS;
  const enoughBooks = qs.length === CHECK_QUARTERS && earliest <= oldest - BOOKS_BEFORE_DAYS;
  let engineError = 0;
  let correctedError = 0;
  if (enoughBooks)
    qs.forEach((q, i) => {
      const rest = qs.filter((_, j) => j !== i);
      const truth = q.actual + q.others;
      const runRate = q.runRate * q.season;
      const f = fittedFactor(rest).scale;
      const o = othersFactor(rest, q.runRate, q.runSq).factor;
      engineError += Math.abs(q.expected + runRate - truth);
      correctedError += Math.abs(q.expected * f + runRate * o - truth);
    });
  const served = enoughBooks && correctedError < engineError;
  const fittedExpected = qs.reduce((a, q) => a + q.expected, 0);
  const fittedActual = qs.reduce((a, q) => a + q.actual, 0);
  return {
    quarters: qs.length,
    fittedExpected: Math.round(fittedExpected),
    fittedActual,
    fittedInvoices,
    fittedLogRatio: fitted.log,
    fittedSe: fitted.se,
    fittedScale: served ? fitted.scale : 1,
    othersAnalogue: Math.round(others.analogue),
    othersInvoices,
    runRate: input.runRate,
    othersLogRatio: others.log,
    othersSe: others.se,
    othersFactor: served ? others.factor : 1,
    replayEngineError: Math.round(engineError),
    replayCorrectedError: Math.round(correctedError),
    enoughBooks,
    served,
    from,
    to: qs.length > 0 ? todayDay : null,
  };
}
