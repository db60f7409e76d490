import {
  type CollectionModel,
  kaplanMeier,
  type LatenessSpread,
  lowerBound,
  type PoolWeights,
  UNPAID_AFTER_DAYS,
} from "./collection.ts";
import { dateOf, dayNumber } from "./dates.ts";
import { NO_DAY, salesDays } from "./sales-history.ts";
import type { SalesHistoryEntry } from "./types.ts";

/**
 * A first invoice: the receivable of a customer who has shown nothing yet (no invoice paid, none
 * never paid, no other invoice open) is spread over how the organisation's past FIRST invoices
 * were paid (docs/forecast.md, "First invoices"), not over every payment of the organisation.
 * The organisation's pool counts each invoice once, so its frequent customers (who are, by being
 * frequent, its known payers) decide most of it; a new customer is one customer, so each past
 * customer's first invoice counts once here, whatever came after: paid (its lateness), never
 * paid (open UNPAID_AFTER_DAYS after its due date: a share that never arrives) or still open
 * (a censored observation, Kaplan–Meier, as the pool does). With fewer than MIN_FIRST_INVOICES
 * first invoices at least as late as the receivable already is, the organisation's pool decides.
 */

/**
 * First invoices needed before they decide: as many as a customer's own record holds (their last
 * 12 paid invoices, collection.ts): the new customers' habit is taken from at least as much
 * evidence as one customer's.
 */
export const MIN_FIRST_INVOICES = 12;

/**
 * A customer whose first invoice in the history was issued within this many days of the
 * history's first invoice may have been a customer before the books (or the 800-day window)
 * start: a customer invoiced at least quarterly shows within a quarter. Their first invoice in
 * the history is not a first invoice and is left out.
 */
export const FIRST_SEEN_AFTER_DAYS = 91;

/** How the organisation's first invoices were paid. */
export interface FirstInvoices {
  /** Lateness (payment date − due date) of the paid first invoices, sorted. */
  paid: Int32Array;
  /** Days overdue (sorted) of first invoices unpaid UNPAID_AFTER_DAYS on. */
  unpaid: Int32Array;
  /** How many are still open and undecided (censored), and the pool's weights with them. */
  open: number;
  weights: PoolWeights | null;
  /** Issue dates of the earliest and latest first invoice counted (null without any). */
  from: string | null;
  to: string | null;
}

/** Each customer's first invoice in `history` (issued FIRST_SEEN_AFTER_DAYS after the first). */
export function fitFirstInvoices(
  history: readonly SalesHistoryEntry[],
  today: string,
): FirstInvoices {
  const days = salesDays(history);
  const todayDay = dayNumber(today);
  // Each customer's earliest invoice (the first in the history's order on a tie).
  const first = new Map<string, number>();
  let start = Number.POSITIVE_INFINITY;
  for (let k = 0; k < history.length; k++) {
    const e = history[k] as SalesHistoryEntry;
    const issue = days.issue[k] ?? 0;
    if (issue < start) start = issue;
    const known = first.get(e.contactId);
    if (known === undefined || issue < (days.issue[known] ?? 0)) first.set(e.contactId, k);
  }
  const paid: number[] = [];
  const unpaid: number[] = [];
  const open: number[] = [];
  let from = Number.POSITIVE_INFINITY;
  let to = Number.NEGATIVE_INFINITY;
  for (const k of first.values()) {
    const issue = days.issue[k] ?? 0;
    const due = days.due[k] ?? NO_DAY;
    if (issue < start + FIRST_SEEN_AFTER_DAYS || due === NO_DAY) continue;
    const paidDay = days.paid[k] ?? NO_DAY;
    if (paidDay !== NO_DAY) paid.push(paidDay - due);
    else if (todayDay - due >= UNPAID_AFTER_DAYS) unpaid.push(todayDay - due);
    else open.push(todayDay - due);
    from = Math.min(from, issue);
    to = Math.max(to, issue);
  }
  const sorted = Int32Array.from(paid).sort();
  const unpaidSorted = Int32Array.from(unpaid).sort();
  return {
    paid: sorted,
    unpaid: unpaidSorted,
    open: open.length,
    weights: kaplanMeier(sorted, open, unpaidSorted.length),
    from: Number.isFinite(from) ? dateOf(from) : null,
    to: Number.isFinite(to) ? dateOf(to) : null,
  };
}

/**
 * The spread of a receivable `overdueDays` past due whose customer has shown nothing (its own
 * invoice is all the collection model knows of them) over the first invoices later than that,
 * or null: the customer has shown something, or fewer than MIN_FIRST_INVOICES first invoices
 * were paid that late or never paid, or none was paid that late.
 */
export function firstInvoiceSpread(
  firsts: FirstInvoices,
  collection: CollectionModel,
  contactId: string | null,
  overdueDays: number,
): LatenessSpread | null {
  if (contactId === null) return null;
  if (collection.byContact.has(contactId) || collection.unpaidByContact.has(contactId)) return null;
  const open = collection.openByContact.get(contactId);
  if (open && (open.length > 1 || open[0] !== overdueDays)) return null;
  // Strictly later than today (collection.ts, conditionalMedian, says why).
  const offset = lowerBound(firsts.paid, overdueDays + 1);
  const values = firsts.paid.subarray(offset);
  const unpaid = firsts.unpaid.length - lowerBound(firsts.unpaid, overdueDays);
  if (values.length === 0 || values.length + unpaid < MIN_FIRST_INVOICES) return null;
  return { values, unpaid, own: false, first: true, weights: firsts.weights, offset };
}
