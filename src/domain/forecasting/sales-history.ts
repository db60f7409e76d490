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
  const cents = Float64Array.from(history, (e) =>
    baseCents(e.total, e.currency, baseCurrency, e.currencyRate),
  );
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
