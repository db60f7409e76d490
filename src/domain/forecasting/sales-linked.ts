import { type Cents, medianCents } from "./cents.ts";
import { addMonths, dateOf, dayNumber } from "./dates.ts";
import type { RecurringStream } from "./recurring.ts";

/**
 * Recurring payments that follow sales: a tax office's sales tax (GST, VAT) and the like is due on
 * the sales of the period it settles, not on what was paid last time. A monthly or quarterly
 * outgoing stream's occurrence settles the last whole calendar month or quarter before it (a BAS
 * paid on 28 October settles July–September); its amount is told by the sales invoiced in that
 * period. Fitted on the stream's own past occurrences (amount against the invoiced sales of the
 * period each settled): amount = a + b × sales, by least squares, the slope shrunk toward 0 by its
 * standard error (b · b² ÷ (b² + se²)), anchored on the last three occurrences, so a part that does
 * not follow sales (withholding on wages) stays where it was. Used only for a stream whose past
 * occurrences this rule would have told better than the median of the three before each (judged
 * forward: each occurrence by a fit on the occurrences before it). A coming occurrence's period
 * holds invoiced sales up to today and the engine's expected sales after it.
 * docs/forecast.md, "Recurring payments that follow sales".
 */

/** Past occurrences used for the fit: the latest, two years of a quarterly stream. */
export const SALES_LINKED_POINTS = 8;
/** Occurrences (with a settled period inside the sales history) needed before a fit. */
export const MIN_SALES_LINKED_POINTS = 4;
/** Occurrences each judged by a fit on those before it, needed before the rule is used. */
const MIN_JUDGED = 2;
/** The last occurrences the projection is anchored on (the recurring rule's median of three). */
const ANCHOR = 3;

/** A stream's amount as a function of the sales of the period each occurrence settles. */
export interface SalesLinkedFit {
  streamId: string;
  /** Payment per unit of sales, shrunk; `rawSlope` before shrinking, `standardError` its error. */
  slope: number;
  rawSlope: number;
  standardError: number;
  /** Mean amount and mean sales of the anchor occurrences' periods (cents). */
  anchorAmount: number;
  anchorSales: number;
  /** Occurrences fitted on. */
  observations: number;
  /** Absolute error over the judged occurrences: this rule, the median of the three before. */
  judged: number;
  judgedError: Cents;
  medianError: Cents;
  /** The first fitted occurrence's period start and the last's end. */
  from: string;
  to: string;
}

/** Daily invoiced sales from `start` (a day number), cents: what a period's sales are summed from. */
export interface DailySales {
  start: number;
  cents: Float64Array;
}

/** The calendar period an occurrence on `day` settles: the last whole month or quarter before it. */
export function settledPeriod(
  day: number,
  cadence: RecurringStream["cadence"],
): { from: number; to: number } | null {
  const months = cadence.name === "monthly" ? 1 : cadence.name === "quarterly" ? 3 : 0;
  if (months === 0) return null;
  const date = dateOf(day);
  const yearStart = `${date.slice(0, 4)}-01-01`;
  const first = Math.floor((Number(date.slice(5, 7)) - 1) / months) * months - months;
  return {
    from: dayNumber(addMonths(yearStart, first)),
    to: dayNumber(addMonths(yearStart, first + months)) - 1,
  };
}

/** Sales of days `from` … `to`; null when the period starts before the daily sales do. */
export function periodSales(sales: DailySales, from: number, to: number): number | null {
  if (from < sales.start || to >= sales.start + sales.cents.length) return null;
  let sum = 0;
  for (let d = from; d <= to; d++) sum += sales.cents[d - sales.start] ?? 0;
  return sum;
}

interface Point {
  sales: number;
  amount: number;
}

/** Least squares of amount on sales, the slope shrunk by its standard error; null: no spread. */
function slopeOf(points: readonly Point[]): { slope: number; raw: number; se: number } | null {
  const n = points.length;
  if (n < 3) return null;
  const mx = points.reduce((a, p) => a + p.sales, 0) / n;
  const my = points.reduce((a, p) => a + p.amount, 0) / n;
  let sxx = 0;
  let sxy = 0;
  for (const p of points) {
    sxx += (p.sales - mx) ** 2;
    sxy += (p.sales - mx) * (p.amount - my);
  }
  if (sxx <= 0) return null;
  const raw = sxy / sxx;
  let rss = 0;
  for (const p of points) rss += (p.amount - my - raw * (p.sales - mx)) ** 2;
  const se = Math.sqrt(rss / (n - 2) / sxx);
  const slope = raw <= 0 ? 0 : (raw * raw * raw) / (raw * raw + se * se);
  return { slope, raw, se };
}

/** The amount `points` tell for a period of `sales`: the anchor moved by the shrunk slope. */
function told(points: readonly Point[], sales: number): number | null {
  const fit = slopeOf(points);
  if (fit === null) return null;
  const anchor = points.slice(-ANCHOR);
  const amount = anchor.reduce((a, p) => a + p.amount, 0) / anchor.length;
  const base = anchor.reduce((a, p) => a + p.sales, 0) / anchor.length;
  return Math.max(0, amount + fit.slope * (sales - base));
}

/**
 * The stream's fit, when it is a monthly or quarterly payment whose past amounts followed the
 * sales of the periods they settled better than the median of three told them; null otherwise.
 */
export function fitSalesLinked(stream: RecurringStream, sales: DailySales): SalesLinkedFit | null {
  if (stream.direction !== "out") return null;
  const all: (Point & { period: { from: number; to: number } })[] = [];
  const amounts = stream.amounts;
  for (let i = 0; i < stream.days.length; i++) {
    const period = settledPeriod(stream.days[i] ?? 0, stream.cadence);
    if (period === null) return null;
    const s = periodSales(sales, period.from, period.to);
    if (s === null) continue;
    all.push({ sales: s, amount: amounts[i] ?? 0, period });
  }
  const points = all.slice(-SALES_LINKED_POINTS);
  if (points.length < MIN_SALES_LINKED_POINTS) return null;
  // Judged forward: each occurrence by a fit on the fitted ones before it, against the median of
  // the stream's three amounts before it (what the recurring rule would have projected).
  const offset = amounts.length - points.length;
  let judged = 0;
  let judgedError = 0;
  let medianError = 0;
  for (let k = 3; k < points.length; k++) {
    const p = points[k] as Point;
    const guess = told(points.slice(0, k), p.sales);
    if (guess === null) continue;
    const before = amounts.slice(Math.max(0, offset + k - ANCHOR), offset + k);
    judged += 1;
    judgedError += Math.abs(guess - p.amount);
    medianError += Math.abs(medianCents(before) - p.amount);
  }
  if (judged < MIN_JUDGED || judgedError >= medianError) return null;
  const fit = slopeOf(points);
  if (fit === null || fit.slope <= 0) return null;
  const anchor = points.slice(-ANCHOR);
  return {
    streamId: stream.id,
    slope: fit.slope,
    rawSlope: fit.raw,
    standardError: fit.se,
    anchorAmount: anchor.reduce((a, p) => a + p.amount, 0) / anchor.length,
    anchorSales: anchor.reduce((a, p) => a + p.sales, 0) / anchor.length,
    observations: points.length,
    judged,
    judgedError: Math.round(judgedError),
    medianError: Math.round(medianError),
    from: dateOf(points[0]?.period.from ?? 0),
    to: dateOf(points[points.length - 1]?.period.to ?? 0),
  };
}

/** A coming occurrence's amount for a period of `sales`, whole cents, at least 0. */
export function salesLinkedAmount(fit: SalesLinkedFit, sales: number): Cents {
  return Math.max(0, Math.round(fit.anchorAmount + fit.slope * (sales - fit.anchorSales)));
}
