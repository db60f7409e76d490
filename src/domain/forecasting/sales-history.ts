import { baseCents } from "./cents.ts";
import { dayNumber } from "./dates.ts";
import type { RecurringHistoryEntry, SalesHistoryEntry } from "./types.ts";

/**
 * The sales history's dates and amounts, parsed once per history. Every fitting step of a model
 * (customers' cadences, collection, collection curves, season, run rates) reads the same
 * 100,000-odd invoices; each parsed their date strings and amounts again, which was about a
 * fifth of building the model (docs/benchmarks.md, stop 12). Index i is `history[i]`.
 *
 * Kept per history array (a WeakMap, so it goes with the array): the engine never changes its
 * input, so a parsed history stays true as long as its array lives.
 */
export interface SalesDays {
  issue: Int32Array;
  /** NO_DAY where the invoice has no due date. */
  due: Int32Array;
  /** NO_DAY where the invoice is not paid. */
  paid: Int32Array;
}

/** A missing date in SalesDays. */
export const NO_DAY = -2147483648;

const daysOf = new WeakMap<readonly SalesHistoryEntry[], SalesDays>();
const centsOf = new WeakMap<readonly SalesHistoryEntry[], Map<string, Float64Array>>();

/** Day numbers of each invoice's issue, due and paid dates. */
export function salesDays(history: readonly SalesHistoryEntry[]): SalesDays {
  const known = daysOf.get(history);
  if (known) return known;
  const n = history.length;
  const days: SalesDays = {
    issue: new Int32Array(n),
    due: new Int32Array(n),
    paid: new Int32Array(n),
  };
  history.forEach((e, i) => {
    days.issue[i] = dayNumber(e.issueDate);
    days.due[i] = e.dueDate ? dayNumber(e.dueDate) : NO_DAY;
    days.paid[i] = e.paidDate ? dayNumber(e.paidDate) : NO_DAY;
  });
  daysOf.set(history, days);
  return days;
}

/**
 * The sales history grouped by contact, once per history: contact k (`contactIds[k]`, in the order
 * of their first invoice) has the invoices `entries[start[k]]` … `entries[start[k + 1] - 1]`,
 * indices into the history in its order. The fits that learn per customer (cadences, collection,
 * collection curves, partial payments) read these ranges instead of each grouping the history
 * again in a map of arrays (docs/benchmarks.md, stop 17). booksAsOf gives the history already
 * grouped by contact, so `entries` is then 0, 1, 2, …; any order is grouped the same way.
 */
export interface SalesByContact {
  contactIds: string[];
  /** contactIds.length + 1 offsets into `entries`. */
  start: Int32Array;
  entries: Int32Array;
}

const groupsOf = new WeakMap<readonly SalesHistoryEntry[], SalesByContact>();

/** The history's invoices by contact (SalesByContact). */
export function salesByContact(history: readonly SalesHistoryEntry[]): SalesByContact {
  const known = groupsOf.get(history);
  if (known) return known;
  const n = history.length;
  const contactIds: string[] = [];
  const slotOf = new Map<string, number>();
  const slots = new Int32Array(n);
  const counts: number[] = [];
  let previous: string | null = null;
  let slot = -1;
  for (let i = 0; i < n; i++) {
    const id = (history[i] as SalesHistoryEntry).contactId;
    // Consecutive invoices of one contact (the usual order) need no lookup.
    if (id !== previous) {
      const seen = slotOf.get(id);
      if (seen === undefined) {
        slot = contactIds.length;
        slotOf.set(id, slot);
        contactIds.push(id);
        counts.push(0);
      } else slot = seen;
      previous = id;
    }
    slots[i] = slot;
    counts[slot] = (counts[slot] ?? 0) + 1;
  }
  const start = new Int32Array(contactIds.length + 1);
  for (let k = 0; k < contactIds.length; k++) start[k + 1] = (start[k] ?? 0) + (counts[k] ?? 0);
  const next = start.slice(0, contactIds.length);
  const entries = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const k = slots[i] ?? 0;
    entries[next[k] ?? 0] = i;
    next[k] = (next[k] ?? 0) + 1;
  }
  const groups = { contactIds, start, entries };
  groupsOf.set(history, groups);
  return groups;
}

/**
 * Per-contact values as a map in the order of each contact's first invoice that counts for it
 * (`first`, an index into the history): the order one pass over the history inserting them
 * gives, which readers iterating the map depend on (similar-customers.ts, `records`).
 */
export function inHistoryOrder<T>(
  values: readonly { first: number; contactId: string; value: T }[],
): Map<string, T> {
  // Already in that order when the history is grouped by contact (booksAsOf's): no sort then.
  const inOrder = values.every((v, k) => k === 0 || (values[k - 1]?.first ?? 0) < v.first);
  const sorted = inOrder ? values : [...values].sort((a, b) => a.first - b.first);
  const out = new Map<string, T>();
  for (const v of sorted) out.set(v.contactId, v.value);
  return out;
}

/** Each invoice's total in cents of `baseCurrency` (cents.ts, baseCents). */
export function salesCents(
  history: readonly SalesHistoryEntry[],
  baseCurrency: string,
): Float64Array {
  let byBase = centsOf.get(history);
  if (!byBase) {
    byBase = new Map();
    centsOf.set(history, byBase);
  }
  const known = byBase.get(baseCurrency);
  if (known) return known;
  // A loop, not Float64Array.from(history, …), which walks the array through its iterator.
  const cents = new Float64Array(history.length);
  for (let i = 0; i < history.length; i++) {
    const e = history[i] as SalesHistoryEntry;
    cents[i] = baseCents(e.total, e.currency, baseCurrency, e.currencyRate);
  }
  byBase.set(baseCurrency, cents);
  return cents;
}

/**
 * A bill of the recurring history in the sales history's shape, so the payment models fitted on
 * invoices (collection, collection curves) fit how the business pays its bills too.
 */
export function billAsSalesEntry(e: RecurringHistoryEntry): SalesHistoryEntry {
  return {
    contactId: e.contactId ?? "",
    issueDate: e.date,
    total: e.amount,
    currency: e.currency,
    currencyRate: e.currencyRate,
    dueDate: e.dueDate,
    paidDate: e.paidDate ?? null,
    accountId: e.accountId,
  };
}
