import { dayNumber } from "./dates.ts";
import { NO_DAY, salesDays } from "./sales-history.ts";
import type { SalesHistoryEntry } from "./types.ts";

/**
 * When customers actually pay: lateness (payment date − due date, in days; negative = early)
 * of paid invoices, per customer and across the organisation. An open receivable is expected on
 * its due date plus the median lateness *among past payments later than this invoice already
 * is* (the conditional median: an invoice 20 days overdue at the end of today is compared with
 * payments that came more than 20 days late). docs/forecast.md, "Receivable timing".
 */

/** Paid invoices a customer needs before their own habit is used (else the organisation's). */
export const MIN_OWN_PAYMENTS = 3;
/** A customer's habit: their most recent paid invoices. */
const RECENT_PAYMENTS = 12;

/**
 * An invoice still unpaid this many days after its due date counts as one that was not paid
 * (within a forecast's reach: the 13 weeks): it enters the spread of later receivables as a
 * share that never arrives. Invoices open for less are still undecided and left out.
 */
export const UNPAID_AFTER_DAYS = 91;

export interface CollectionModel {
  /** Sorted lateness of each customer's last RECENT_PAYMENTS paid invoices. */
  byContact: Map<string, Int32Array>;
  /** Sorted lateness of every paid invoice of the organisation. */
  all: Int32Array;
  /** Per customer and overall: days overdue (sorted) of invoices unpaid UNPAID_AFTER_DAYS on. */
  unpaidByContact: Map<string, Int32Array>;
  unpaidAll: Int32Array;
}

/** Builds the model from sales history (paid invoices with a due date). */
export function fitCollection(
  history: readonly SalesHistoryEntry[],
  today?: string,
): CollectionModel {
  // Parallel arrays, not an object per payment: the history can hold hundreds of thousands.
  const days: number[] = [];
  const lates: number[] = [];
  const byContactIdx = new Map<string, number[]>();
  const unpaid: number[] = [];
  const unpaidByContact = new Map<string, number[]>();
  const todayDay = today === undefined ? null : dayNumber(today);
  const parsed = salesDays(history);
  for (let k = 0; k < history.length; k++) {
    const e = history[k] as SalesHistoryEntry;
    const due = parsed.due[k] ?? NO_DAY;
    const paid = parsed.paid[k] ?? NO_DAY;
    if (!e.paidDate && e.dueDate && todayDay !== null) {
      const overdue = todayDay - due;
      if (overdue < UNPAID_AFTER_DAYS) continue;
      unpaid.push(overdue);
      const l = unpaidByContact.get(e.contactId);
      if (l) l.push(overdue);
      else unpaidByContact.set(e.contactId, [overdue]);
      continue;
    }
    if (!e.paidDate || !e.dueDate) continue;
    const late = paid - due;
    const i = lates.length;
    days.push(parsed.issue[k] ?? 0);
    lates.push(late);
    const list = byContactIdx.get(e.contactId);
    if (list) list.push(i);
    else byContactIdx.set(e.contactId, [i]);
  }
  const byContact = new Map<string, Int32Array>();
  for (const [id, idx] of byContactIdx) {
    idx.sort((a, b) => (days[a] ?? 0) - (days[b] ?? 0) || a - b);
    byContact.set(id, Int32Array.from(idx.slice(-RECENT_PAYMENTS), (i) => lates[i] ?? 0).sort());
  }
  return {
    byContact,
    all: Int32Array.from(lates).sort(),
    unpaidByContact: new Map(
      [...unpaidByContact].map(([id, l]) => [
        id,
        Int32Array.from(l.slice(-RECENT_PAYMENTS)).sort(),
      ]),
    ),
    unpaidAll: Int32Array.from(unpaid).sort(),
  };
}

/** First index of `sorted` holding a value ≥ x. */
export function lowerBound(sorted: Int32Array, x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((sorted[mid] ?? 0) < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The expected lateness of an open receivable already `overdueDays` past its due date (negative
 * when not yet due): the median of the past lateness values > overdueDays, from the customer's
 * own payments when they have MIN_OWN_PAYMENTS and one at least this late, else the
 * organisation's. `undefined` when there is no history at all; `null` when no payment of the
 * organisation was ever this late (a doubtful receivable).
 */
export function expectedLateness(
  model: CollectionModel,
  contactId: string | null,
  overdueDays: number,
): number | null | undefined {
  const own = contactId ? model.byContact.get(contactId) : undefined;
  if (own && own.length >= MIN_OWN_PAYMENTS) {
    const m = conditionalMedian(own, overdueDays);
    if (m !== null) return m;
  }
  if (model.all.length === 0) return undefined;
  return conditionalMedian(model.all, overdueDays);
}

/**
 * The median of the values later than x of a sorted array (the lower middle), or null when
 * none. Strictly later: the books stand at the end of today, so a payment that would have come
 * exactly `overdueDays` late (today) has not.
 */
function conditionalMedian(sorted: Int32Array, x: number): number | null {
  const from = lowerBound(sorted, x + 1);
  if (from >= sorted.length) return null;
  return sorted[from + ((sorted.length - from - 1) >> 1)] ?? null;
}

/** The median lateness of a customer's past payments (theirs, else the organisation's), ≥ 0. */
export function medianLateness(model: CollectionModel, contactId: string | null): number {
  const own = contactId ? model.byContact.get(contactId) : undefined;
  const pool = own && own.length > 0 ? own : model.all;
  if (pool.length === 0) return 0;
  const mid = pool.length >> 1;
  const m = pool.length % 2 ? (pool[mid] ?? 0) : ((pool[mid - 1] ?? 0) + (pool[mid] ?? 0)) / 2;
  return Math.max(0, Math.round(m));
}

/** How a receivable is spread: past lateness values later than today, and the unpaid share. */
export interface LatenessSpread {
  /** Sorted lateness of past payments later than the receivable already is. */
  values: Int32Array;
  /** Past invoices at least this overdue that were never paid (UNPAID_AFTER_DAYS on). */
  unpaid: number;
  /** Whose history: the customer's own or the organisation's. */
  own: boolean;
}

/**
 * The past lateness values an open receivable `overdueDays` past due is spread over: the
 * customer's (or the organisation's) payments later than that, sorted, with the count of their
 * invoices at least this overdue that were never paid; the customer's own when they have
 * MIN_OWN_PAYMENTS paid or never-paid invoices and one of them this late (a customer who never
 * paid one this late: values empty, every share unpaid).
 * `undefined` without history, `null` when doubtful (nothing ever this late).
 */
export function latenessSpread(
  model: CollectionModel,
  contactId: string | null,
  overdueDays: number,
): LatenessSpread | null | undefined {
  const own = contactId ? model.byContact.get(contactId) : undefined;
  const ownUnpaid = contactId ? model.unpaidByContact.get(contactId) : undefined;
  // A customer whose invoices went unpaid has a record of their own even with few payments: a
  // bad debtor's next invoice is judged by their history, not by the organisation's payers.
  if ((own?.length ?? 0) + (ownUnpaid?.length ?? 0) >= MIN_OWN_PAYMENTS) {
    const values = own ? own.subarray(lowerBound(own, overdueDays + 1)) : new Int32Array(0);
    const unpaid = countFrom(ownUnpaid, overdueDays);
    if (values.length > 0 || unpaid > 0) return { values, unpaid, own: true };
  }
  if (model.all.length === 0) return undefined;
  // Strictly later than today (conditionalMedian says why).
  const from = lowerBound(model.all, overdueDays + 1);
  return from < model.all.length
    ? {
        values: model.all.subarray(from),
        unpaid: countFrom(model.unpaidAll, overdueDays),
        own: false,
      }
    : null;
}

/** How many values of a sorted array are ≥ x (0 without an array). */
function countFrom(sorted: Int32Array | undefined, x: number): number {
  return sorted ? sorted.length - lowerBound(sorted, x) : 0;
}
