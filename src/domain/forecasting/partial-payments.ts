import { toCents } from "./cents.ts";
import {
  kaplanMeier,
  type LatenessSpread,
  lowerBound,
  MIN_OWN_PAYMENTS,
  type PoolWeights,
  UNPAID_AFTER_DAYS,
} from "./collection.ts";
import { dayNumber } from "./dates.ts";
import { inHistoryOrder, salesByContact } from "./sales-history.ts";
import type { SalesHistoryEntry } from "./types.ts";

/**
 * How customers pay in parts, learnt from their paid invoices (docs/forecast.md, "Partial
 * payments"). An invoice paid on two or more days is paid in parts: its first part covers a share
 * of what was paid, and the rest comes some days after it (the lag, from the first part to the
 * last). An invoice already part-paid has its remainder timed from its first payment by the lags
 * of past invoices paid in parts (those longer than the days since that payment: the rest has not
 * come by today), not from its due date as a fresh invoice is: the customer's own lags when
 * MIN_OWN_PAYMENTS of them are that long, else the organisation's (which needs MIN_OWN_PAYMENTS
 * invoices paid in parts); a part-paid invoice whose rest had not come UNPAID_AFTER_DAYS after its
 * first part counts as a share that never arrives. A part-paid invoice still open and younger
 * than that is undecided: its rest has not come in the days since its first part (a censored
 * observation), so, as the receivables' timing does, its weight passes to the lags longer than
 * that (Kaplan–Meier, collection.ts `kaplanMeier`); left out, the quick rests are in the record
 * and the slow ones are not. Without them, it is timed as before.
 *
 * Measured and not served: splitting an invoice with nothing paid yet into a first part and the
 * rest (docs/forecast.md says why).
 */

/** A customer's record: their most recent paid invoices (as the collection model keeps). */
const RECENT_INVOICES = 12;

/** What a record of paid invoices says of parts. */
export interface PartsRecord {
  /** Paid invoices looked at. */
  paid: number;
  /** Of them, paid on two or more days. */
  inParts: number;
  /** Σ first parts ÷ Σ paid, over the invoices paid in parts (0 without any): evidence only. */
  firstShare: number;
  /** Days from the first part to the last, per invoice paid in parts, sorted. */
  lags: Int32Array;
  /**
   * Days since the first part (sorted) of part-paid invoices whose rest had not come
   * UNPAID_AFTER_DAYS after it: a rest never paid (within a forecast's reach).
   */
  unpaidRests: Int32Array;
  /** How many part-paid invoices are still open and undecided (younger than UNPAID_AFTER_DAYS). */
  openRests: number;
  /** The Kaplan–Meier weights of `lags` and `unpaidRests` given the open rests (null without). */
  weights: PoolWeights | null;
  /** Issue dates of the first and last invoice looked at (null without any). */
  from: string | null;
  to: string | null;
}

export interface PartialPayments {
  byContact: Map<string, PartsRecord>;
  organisation: PartsRecord;
}

/** The record of `paid` (indices into `history`) given its rests never paid and still open. */
function record(
  history: readonly SalesHistoryEntry[],
  paid: readonly number[],
  unpaidRests: readonly number[],
  openRests: readonly number[],
): PartsRecord {
  let firstCents = 0;
  let paidCents = 0;
  const lags: number[] = [];
  let from: string | null = null;
  let to: string | null = null;
  for (const i of paid) {
    const e = history[i] as SalesHistoryEntry;
    if (from === null || e.issueDate < from) from = e.issueDate;
    if (to === null || e.issueDate > to) to = e.issueDate;
    const p = e.parts;
    if (!p) continue;
    firstCents += toCents(p.firstAmount);
    paidCents += toCents(p.paid);
    lags.push(dayNumber(p.lastDate) - dayNumber(p.firstDate));
  }
  const sorted = new Int32Array(lags).sort();
  return {
    paid: paid.length,
    inParts: lags.length,
    firstShare: paidCents > 0 ? firstCents / paidCents : 0,
    lags: sorted,
    unpaidRests: new Int32Array(unpaidRests).sort(),
    openRests: openRests.length,
    weights: kaplanMeier(sorted, openRests, unpaidRests.length),
    from,
    to,
  };
}

/**
 * Each customer's record (their last RECENT_INVOICES paid invoices by issue date) and the
 * organisation's (every paid invoice of the history), with the rests never paid (part-paid
 * invoices still open UNPAID_AFTER_DAYS after their first part) and the rests still open (part-paid
 * invoices younger than that: censored). The history is as known at the forecast's day `today`
 * (books.ts: payments after it are unseen).
 */
export function fitPartialPayments(
  history: readonly SalesHistoryEntry[],
  today: string,
): PartialPayments {
  const { contactIds, start, entries } = salesByContact(history);
  const all: number[] = [];
  const unpaidAll: number[] = [];
  const openAll: number[] = [];
  const own: { first: number; contactId: string; value: PartsRecord }[] = [];
  const todayDay = dayNumber(today);
  for (let k = 0; k < contactIds.length; k++) {
    const paid: number[] = [];
    const unpaid: number[] = [];
    const open: number[] = [];
    for (let p = start[k] ?? 0; p < (start[k + 1] ?? 0); p++) {
      const i = entries[p] ?? 0;
      const e = history[i] as SalesHistoryEntry;
      if (!e.paidDate) {
        if (!e.parts) continue;
        const since = todayDay - dayNumber(e.parts.firstDate);
        if (since < UNPAID_AFTER_DAYS) {
          openAll.push(since);
          open.push(since);
        } else {
          unpaidAll.push(since);
          unpaid.push(since);
        }
        continue;
      }
      all.push(i);
      paid.push(i);
    }
    if (paid.length === 0) continue;
    const first = paid[0] ?? 0;
    // Stable: invoices of one day keep the history's order (books.ts orders it by the ledger).
    const issue = (i: number) => (history[i] as SalesHistoryEntry).issueDate;
    paid.sort((a, b) => (issue(a) < issue(b) ? -1 : issue(a) > issue(b) ? 1 : a - b));
    const recent = paid.slice(-RECENT_INVOICES);
    own.push({
      first,
      contactId: contactIds[k] as string,
      value: record(history, recent, unpaid, open),
    });
  }
  return {
    byContact: inHistoryOrder(own),
    organisation: record(history, all, unpaidAll, openAll),
  };
}

/**
 * The lags (days after its first payment) a part-paid invoice's remainder is spread over: those
 * of past invoices paid in parts longer than `elapsed` (the days since its first payment: the
 * rest has not come by today), with the count of rests never paid whose first part is at least
 * that old (shares that never arrive); the customer's when MIN_OWN_PAYMENTS of their lags are
 * that long, else the organisation's; null when neither has one that long (the invoice is then
 * timed as a fresh one). Weighed by the record's Kaplan–Meier weights (its open rests).
 */
export function remainderLags(
  model: PartialPayments,
  contactId: string | null,
  elapsed: number,
): LatenessSpread | null {
  const spread = (r: PartsRecord, own: boolean): LatenessSpread => {
    const offset = lowerBound(r.lags, elapsed + 1);
    return {
      values: r.lags.subarray(offset),
      unpaid: r.unpaidRests.length - lowerBound(r.unpaidRests, elapsed),
      own,
      weights: r.weights,
      offset,
    };
  };
  const own = contactId ? model.byContact.get(contactId) : undefined;
  if (own && own.inParts >= MIN_OWN_PAYMENTS) {
    const s = spread(own, true);
    if (s.values.length >= MIN_OWN_PAYMENTS) return s;
  }
  const org = model.organisation;
  if (org.inParts < MIN_OWN_PAYMENTS) return null;
  const s = spread(org, false);
  return s.values.length > 0 ? s : null;
}

/** A record as `forecast explain` lists it (learned.ts). */
export function partsEntry(contactId: string | null, r: PartsRecord) {
  const median = r.lags.length === 0 ? null : (r.lags[(r.lags.length - 1) >> 1] ?? null);
  return {
    contactId,
    shareInParts: r.paid === 0 ? 0 : Math.round((r.inParts / r.paid) * 1000) / 1000,
    firstPartShare: Math.round(r.firstShare * 1000) / 1000,
    medianDaysToLastPart: median,
    paidInParts: r.inParts,
    restNeverPaid: r.unpaidRests.length,
    restOpen: r.openRests,
    observations: r.paid + r.unpaidRests.length,
    from: r.from,
    to: r.to,
  };
}
