import { canonical, type Money, money } from "../money.ts";

/** A count and a canonical decimal amount (`0` when empty). */
export interface TotalsBucket {
  count: number;
  amount: string;
}

/** One group of the SQL aggregate: matched rows of one status in one currency. */
export interface StatusCurrencyGroup {
  status: string;
  currency: string;
  count: number;
  /** The SUM as PostgreSQL prints it. */
  amount: string;
}

/**
 * The spec's InvoiceBillTotals, in its three variants:
 * - single currency: `byStatus` (every status of the vocabulary, zero-filled), `grandTotal`,
 *   `currency`;
 * - several currencies: `mixedCurrency: true`, `primaryCurrency` (the lexicographically first
 *   code), `byStatus: null`; no `grandTotal`, since a sum across currencies means nothing;
 * - empty set: every bucket zero, `grandTotal` `{ count: 0, amount: "0" }`, no `currency`.
 */
export type StatusTotals =
  | { byStatus: Record<string, TotalsBucket>; grandTotal: TotalsBucket; currency?: string }
  | { byStatus: null; mixedCurrency: true; primaryCurrency: string };

/** Shapes the grouped aggregate (status, currency) into StatusTotals over `statuses`. */
export function statusTotals(
  groups: readonly StatusCurrencyGroup[],
  statuses: readonly string[],
): StatusTotals {
  const currencies = [...new Set(groups.map((g) => g.currency))].sort();
  const primary = currencies[0];
  if (currencies.length > 1 && primary !== undefined) {
    return { byStatus: null, mixedCurrency: true, primaryCurrency: primary };
  }
  const sums = new Map<string, { count: number; amount: Money }>();
  for (const s of statuses) sums.set(s, { count: 0, amount: money(0) });
  let count = 0;
  let amount = money(0);
  for (const g of groups) {
    // Only the vocabulary's statuses are keys; any other row still counts in the grand total.
    const bucket = sums.get(g.status);
    if (bucket) {
      bucket.count += g.count;
      bucket.amount = bucket.amount.plus(money(g.amount));
    }
    count += g.count;
    amount = amount.plus(money(g.amount));
  }
  const byStatus: Record<string, TotalsBucket> = {};
  for (const [status, b] of sums)
    byStatus[status] = { count: b.count, amount: canonical(b.amount) };
  return {
    byStatus,
    grandTotal: { count, amount: canonical(amount) },
    ...(primary !== undefined ? { currency: primary } : {}),
  };
}

/** Matched rows counted in `groups`. */
export function groupCount(groups: readonly { count: number }[]): number {
  let n = 0;
  for (const g of groups) n += g.count;
  return n;
}
