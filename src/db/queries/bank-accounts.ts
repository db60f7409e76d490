import { and, eq, sql } from "drizzle-orm";
import type { DbOrTx } from "../client.ts";
import { bankAccounts, ledgerAccounts } from "../schema/index.ts";
import { UNNAMED_STATEMENT } from "./prepared.ts";

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

function activeBankAccountsQuery(db: DbOrTx) {
  const orgId = sql.placeholder("orgId");
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
        and(eq(ledgerAccounts.id, bankAccounts.ledgerAccountId), eq(ledgerAccounts.orgId, orgId)),
      )
      .where(and(eq(bankAccounts.orgId, orgId), eq(bankAccounts.isActive, true)))
      // Byte order (`COLLATE "C"`): identical on every server whatever its default collation.
      .orderBy(sql`${bankAccounts.name} collate "C"`, sql`${bankAccounts.id} collate "C"`)
      .prepare(UNNAMED_STATEMENT)
  );
}

/**
 * Built once per client, as the key lookup is (api-keys.ts): the query is the same for every
 * organisation, and building it was most of the verb's JavaScript (Drizzle's query builder).
 */
const activeBankAccounts = new WeakMap<DbOrTx, ReturnType<typeof activeBankAccountsQuery>>();

/** The organisation's active bank accounts, by name then id. */
export async function listActiveBankAccountRows(
  db: DbOrTx,
  filter: { orgId: string },
): Promise<BankAccountRow[]> {
  let query = activeBankAccounts.get(db);
  if (!query) {
    query = activeBankAccountsQuery(db);
    activeBankAccounts.set(db, query);
  }
  return query.execute({ orgId: filter.orgId });
}
