import { dayNumber } from "./dates.ts";
import type { SalesHistoryEntry } from "./types.ts";

/**
 * When customers actually pay: lateness (payment date − due date, in days; negative = early)
 * of paid invoices, per customer and across the organisation. An open receivable is expected on
 * its due date plus the median lateness *among past payments at least as late as this invoice
 * already is* (the conditional median: an invoice 20 days overdue is compared with payments
 * that came 20 or more days late). docs/forecast.md, "Receivable timing".
 */

/** Paid invoices a customer needs before their own habit is used (else the organisation's). */
export const MIN_OWN_PAYMENTS = 3;
/** A customer's habit: their most recent paid invoices. */
const RECENT_PAYMENTS = 12;

export interface CollectionModel {
  /** Sorted lateness of each customer's last RECENT_PAYMENTS paid invoices. */
  byContact: Map<string, Int32Array>;
  /** Sorted lateness of every paid invoice of the organisation. */
  all: Int32Array;
}

/** Builds the model from sales history (paid invoices with a due date). */
export function fitCollection(history: readonly SalesHistoryEntry[]): CollectionModel {
  // Parallel arrays, not an object per payment: the history can hold hundreds of thousands.
  const days: number[] = [];
  const lates: number[] = [];
  const byContactIdx = new Map<string, number[]>();
  for (const e of history) {
    if (!e.paidDate || !e.dueDate) continue;
    const late = dayNumber(e.paidDate) - dayNumber(e.dueDate);
    const i = lates.length;
    days.push(dayNumber(e.issueDate));
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
  return { byContact, all: Int32Array.from(lates).sort() };
}

/** First index of `sorted` holding a value ≥ x. */
function lowerBound(sorted: Int32Array, x: number): number {
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
 * when not yet due): the median of the past lateness values ≥ overdueDays, from the customer's
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

/** The median of the values ≥ x of a sorted array (the lower middle), or null when none. */
function conditionalMedian(sorted: Int32Array, x: number): number | null {
  const from = lowerBound(sorted, x);
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
