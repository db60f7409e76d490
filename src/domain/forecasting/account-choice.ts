import type { AccountInfo } from "./types.ts";

/**
 * Which ledger account a fitted stream of money is forecast under: the one most of its documents
 * used. Ties go to the account listed first in the chart of accounts (the input lists it by code),
 * then to the smallest id, so the choice follows the ledger's own codes and not the ids one
 * import happened to assign: the same books give the same categories after a re-import.
 */

/** Position of each account in the chart of accounts. */
export type AccountOrder = ReadonlyMap<string, number>;

export function accountOrder(accounts: readonly AccountInfo[]): AccountOrder {
  return new Map(accounts.map((a, i) => [a.id, i]));
}

/** The most used non-null account (ties as above), or null. */
export function mostUsedAccount(
  values: readonly (string | null)[],
  order: AccountOrder,
): string | null {
  const counts = new Map<string, number>();
  for (const v of values) if (v !== null) counts.set(v, (counts.get(v) ?? 0) + 1);
  const rank = (id: string) => order.get(id) ?? Number.POSITIVE_INFINITY;
  let best: string | null = null;
  let bestCount = 0;
  for (const [v, n] of counts) {
    const better =
      n > bestCount ||
      (best !== null &&
        n === bestCount &&
        (rank(v) < rank(best) || (rank(v) === rank(best) && v < best)));
    if (better) {
      best = v;
      bestCount = n;
    }
  }
  return best;
}
