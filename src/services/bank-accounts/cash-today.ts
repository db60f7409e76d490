import { and, asc, eq, max, sql } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.ts";
import { bankAccounts } from "../../db/schema/index.ts";

/** Cash at the bank in one currency: the sum of reconciled balances of active accounts. */
export interface CashInCurrency {
  currency: string;
  /** Exact decimal string. */
  total: string;
  accounts: number;
  /** The most recent balance sync among these accounts. */
  syncedAt: Date | null;
}

/**
 * Cash today, per currency (amounts in different currencies are never added together), from
 * the same reconciled balances `GET /api/agent/bank-accounts` serves. People signed in to the
 * screen see every account, sensitive or not (gap facts §2.4).
 */
export function cashToday(db: DbOrTx, orgId: string): Promise<CashInCurrency[]> {
  return db
    .select({
      currency: bankAccounts.currency,
      total: sql<string>`sum(${bankAccounts.reconciledBalance})::text`,
      accounts: sql<number>`count(*)::int`,
      syncedAt: max(bankAccounts.balanceSyncedAt),
    })
    .from(bankAccounts)
    .where(and(eq(bankAccounts.orgId, orgId), eq(bankAccounts.isActive, true)))
    .groupBy(bankAccounts.currency)
    .orderBy(asc(bankAccounts.currency));
}
