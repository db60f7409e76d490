import { dayNumber } from "./dates.ts";
import { inHistoryOrder, NO_DAY, salesByContact, salesCents, salesDays } from "./sales-history.ts";
import type { SalesHistoryEntry } from "./types.ts";

/**
 * Collection curves: of the money invoiced on a day, the share in the bank k days later, learnt
 * from the business's own invoices (a "vintage" curve). C(k) = Σ over invoices at least k days
 * old of the amount fully paid within k days of issue ÷ Σ of their amounts, for k = 0…CURVE_DAYS;
 * invoices never paid (bad debts, disputes) and partly paid ones count as not (yet) collected,
 * so C levels off below 1 at the share of sales this business actually collects. Only invoices
 * old enough to show day k judge day k, so recent invoices do not read as unpaid.
 *
 * Predicted new sales (the hazard model's orders and the run rate of other customers) are
 * spread over the days after their order by C's increments instead of landing whole on a
 * median payment day: the slow and never-paying tail stays out of the horizon, as it does in
 * the bank. A customer's own curve is shrunk toward the organisation's by SHRINK_INVOICES
 * pseudo-invoices (empirical Bayes: a customer with few invoices looks like the organisation,
 * one with many like itself). docs/forecast.md, "Collection curves".
 */

/** Days after issue the curve reaches: the 13-week horizon and a week. */
export const CURVE_DAYS = 98;
/** Invoices issued within this many days before today teach the curve. */
export const CURVE_WINDOW_DAYS = 365;
/** Pseudo-invoices of the organisation's curve added to each customer's own. */
export const SHRINK_INVOICES = 4;

export interface CollectionCurve {
  /** cumulative[k]: share of an invoice's amount collected within k days of issue. */
  cumulative: Float64Array;
  /** Invoices it was learnt from, and the issue dates of the oldest and newest. */
  observations: number;
  from: string | null;
  to: string | null;
}

export interface CollectionCurves {
  organisation: CollectionCurve;
  byCustomer: Map<string, CollectionCurve>;
}

interface Tally {
  /** paid[k]: weight paid within k days, among invoices at least k days old. */
  paid: Float64Array;
  /** seen[k]: weight of invoices at least k days old. */
  seen: Float64Array;
  n: number;
  from: string | null;
  to: string | null;
}

const emptyTally = (): Tally => ({
  paid: new Float64Array(CURVE_DAYS + 2),
  seen: new Float64Array(CURVE_DAYS + 2),
  n: 0,
  from: null,
  to: null,
});

/** Adds one invoice: weight w, age a (days since issue), paid after d days (Infinity: not paid). */
function tally(t: Tally, w: number, age: number, delay: number, issueDate: string) {
  const top = Math.min(age, CURVE_DAYS);
  // Difference arrays: seen[0..top] += w; paid[d..top] += w.
  t.seen[0] = (t.seen[0] ?? 0) + w;
  t.seen[top + 1] = (t.seen[top + 1] ?? 0) - w;
  if (delay <= top) {
    const d = Math.max(0, delay);
    t.paid[d] = (t.paid[d] ?? 0) + w;
    t.paid[top + 1] = (t.paid[top + 1] ?? 0) - w;
  }
  t.n += 1;
  if (t.from === null || issueDate < t.from) t.from = issueDate;
  if (t.to === null || issueDate > t.to) t.to = issueDate;
}

/** Prefix sums of a tally's difference arrays, in place. */
function settle(t: Tally) {
  for (let k = 1; k <= CURVE_DAYS; k++) {
    t.paid[k] = (t.paid[k] ?? 0) + (t.paid[k - 1] ?? 0);
    t.seen[k] = (t.seen[k] ?? 0) + (t.seen[k - 1] ?? 0);
  }
}

/** Makes a ratio curve non-decreasing (later days cannot have collected less). */
function monotone(c: Float64Array): Float64Array {
  for (let k = 1; k < c.length; k++) if ((c[k] ?? 0) < (c[k - 1] ?? 0)) c[k] = c[k - 1] ?? 0;
  return c;
}

/** Learns the organisation's curve (amount-weighted) and each customer's (shrunk, by count). */
export function fitCollectionCurves(
  history: readonly SalesHistoryEntry[],
  today: string,
  baseCurrency: string,
): CollectionCurves {
  const todayDay = dayNumber(today);
  const org = emptyTally();
  // Which invoices teach the curve; each customer's tally is made one at a time in one reused
  // tally (a tally per customer is two arrays each).
  const teaches = new Uint8Array(history.length);
  const ages = new Int32Array(history.length);
  const delays = new Float64Array(history.length);
  const days = salesDays(history);
  const totals = salesCents(history, baseCurrency);
  for (let i = 0; i < history.length; i++) {
    const e = history[i] as SalesHistoryEntry;
    const issue = days.issue[i] ?? 0;
    const age = todayDay - issue;
    if (age < 0 || age > CURVE_WINDOW_DAYS) continue;
    const paid = days.paid[i] ?? NO_DAY;
    const delay = paid !== NO_DAY && paid <= todayDay ? paid - issue : Number.POSITIVE_INFINITY;
    const cents = totals[i] ?? 0;
    if (cents <= 0) continue;
    tally(org, cents, age, delay, e.issueDate);
    teaches[i] = 1;
    ages[i] = age;
    delays[i] = delay;
  }
  settle(org);
  const orgCurve = new Float64Array(CURVE_DAYS + 1);
  for (let k = 0; k <= CURVE_DAYS; k++) {
    const seen = org.seen[k] ?? 0;
    // No invoice this old yet: carry the last known share.
    orgCurve[k] = seen > 0 ? (org.paid[k] ?? 0) / seen : k > 0 ? (orgCurve[k - 1] ?? 0) : 0;
  }
  const organisation: CollectionCurve = {
    cumulative: monotone(orgCurve),
    observations: org.n,
    from: org.from,
    to: org.to,
  };
  const own: { first: number; contactId: string; value: CollectionCurve }[] = [];
  const { contactIds, start, entries } = salesByContact(history);
  const t = emptyTally();
  for (let k = 0; k < contactIds.length; k++) {
    t.paid.fill(0);
    t.seen.fill(0);
    t.n = 0;
    t.from = null;
    t.to = null;
    let first = -1;
    for (let p = start[k] ?? 0; p < (start[k + 1] ?? 0); p++) {
      const i = entries[p] ?? 0;
      if (teaches[i] === 0) continue;
      if (first < 0) first = i;
      tally(t, 1, ages[i] ?? 0, delays[i] ?? 0, (history[i] as SalesHistoryEntry).issueDate);
    }
    if (first < 0) continue;
    settle(t);
    const c = new Float64Array(CURVE_DAYS + 1);
    for (let k = 0; k <= CURVE_DAYS; k++) {
      c[k] =
        ((t.paid[k] ?? 0) + SHRINK_INVOICES * (orgCurve[k] ?? 0)) /
        ((t.seen[k] ?? 0) + SHRINK_INVOICES);
    }
    own.push({
      first,
      contactId: contactIds[k] as string,
      value: { cumulative: monotone(c), observations: t.n, from: t.from, to: t.to },
    });
  }
  return { organisation, byCustomer: inHistoryOrder(own) };
}

/** The curve for a customer (theirs when any invoice, else the organisation's). */
export function curveFor(curves: CollectionCurves, contactId: string | null): CollectionCurve {
  return (contactId ? curves.byCustomer.get(contactId) : undefined) ?? curves.organisation;
}

/**
 * Spreads expected orders per day (index j ≥ 1 = today + j, as the hazard model returns them)
 * into cash per week of the horizon: order day + k with weight C(k) − C(k − 1).
 */
export function collectByWeek(
  ordersByDay: ArrayLike<number>,
  curve: CollectionCurve,
  todayDay: number,
  week1Start: number,
  weeks: number,
): Float64Array {
  const out = new Float64Array(weeks);
  const c = curve.cumulative;
  // Collected within k days (0 before issue, flat after CURVE_DAYS): a week's share of an
  // order is a difference of two cumulative values, O(1) per order day and week.
  const cum = (k: number) => (k < 0 ? 0 : (c[Math.min(k, CURVE_DAYS)] ?? 0));
  // The share of the seven days from `start` days after the order (start ≥ −6: the order's
  // own week), at index start + 6: the same for every order day, so computed once per call.
  const weekShare = new Float64Array(CURVE_DAYS + 7);
  for (let start = -6; start <= CURVE_DAYS; start++)
    weekShare[start + 6] = cum(start + 6) - cum(start - 1);
  for (let j = 1; j < ordersByDay.length; j++) {
    const v = ordersByDay[j] ?? 0;
    if (v <= 0) continue;
    const orderDay = todayDay + j;
    for (let w = Math.max(0, Math.floor((orderDay - week1Start) / 7)); w < weeks; w++) {
      const start = week1Start + 7 * w - orderDay;
      if (start > CURVE_DAYS) break;
      const share = weekShare[start + 6] ?? 0;
      if (share > 0) out[w] = (out[w] ?? 0) + v * share;
    }
  }
  return out;
}
