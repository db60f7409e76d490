import { and, eq, sql } from "drizzle-orm";
import type { DbOrTx } from "../client.ts";
import { bankAccounts, ledgerAccounts } from "../schema/index.ts";

/** An active bank account with its ledger account's sensitive flag. */
export interface BankAccountRow {
  id: string;
  name: string;
  currency: string;
  /** NUMERIC as a string; never a float. */
  reconciledBalance: string;
  statementBalance: string;
  balanceSource: "STATEMENT" | "RECONCILED";
  balanceSyncedAt: Date | null;
  isSensitive: boolean;
}

/** The organisation's active bank accounts, by name then id. */
export async function listActiveBankAccountRows(
  db: DbOrTx,
  filter: { orgId: string },
): Promise<BankAccountRow[]> {
  return (
    db
      .select({
        id: bankAccounts.id,
        name: bankAccounts.name,
        currency: bankAccounts.currency,
        reconciledBalance: bankAccounts.reconciledBalance,
        statementBalance: bankAccounts.statementBalance,
        balanceSource: bankAccounts.balanceSource,
        balanceSyncedAt: bankAccounts.balanceSyncedAt,
        isSensitive: ledgerAccounts.isSensitive,
      })
      .from(bankAccounts)
      .innerJoin(
        ledgerAccounts,
        // Both sides filtered by the organisation: a stray cross-organisation reference never joins.
        and(
          eq(ledgerAccounts.id, bankAccounts.ledgerAccountId),
          eq(ledgerAccounts.orgId, filter.orgId),
        ),
      )
      .where(and(eq(bankAccounts.orgId, filter.orgId), eq(bankAccounts.isActive, true)))
      // Byte order (`COLLATE "C"`): identical on every server whatever its default collation.
      .orderBy(sql`${bankAccounts.name} collate "C"`, sql`${bankAccounts.id} collate "C"`)
  );
}
