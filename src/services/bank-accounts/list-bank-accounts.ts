import type { z } from "@hono/zod-openapi";
import type { alertFields } from "../../contracts/agent/alerts.ts";
import type {
  BankAccountSchema,
  BankAccountsResponseSchema,
} from "../../contracts/agent/bank-accounts.ts";
import { listActiveBankAccountRows } from "../../db/queries/bank-accounts.ts";
import { canonical } from "../../domain/money.ts";
import { canSeeSensitive, requireScope, type ServiceContext } from "../context.ts";

/** One bank account as the API shows it (spec: BankAccount). */
export type BankAccount = z.infer<typeof BankAccountSchema>;

/** The list without the alerts the transport adds (spec: BankAccountsResponse). */
export type BankAccountList = Omit<
  z.infer<typeof BankAccountsResponseSchema>,
  keyof typeof alertFields
>;

/**
 * The organisation's active bank accounts, by name then id. Without READ_SENSITIVE, accounts
 * whose ledger account is flagged sensitive are left out and only counted.
 */
export async function listBankAccounts({ ctx }: { ctx: ServiceContext }): Promise<BankAccountList> {
  requireScope(ctx, "READ_BANK");
  const rows = await listActiveBankAccountRows(ctx.db, { orgId: ctx.org.id });
  const showSensitive = canSeeSensitive(ctx);
  const accounts: BankAccount[] = [];
  let redactedItemCount = 0;
  for (const row of rows) {
    if (row.isSensitive && !showSensitive) {
      redactedItemCount += 1;
      continue;
    }
    accounts.push({
      id: row.id,
      name: row.name,
      currency: row.currency,
      reconciledBalance: canonical(row.reconciledBalance),
      statementBalance: canonical(row.statementBalance),
      balanceSource: row.balanceSource,
      ...(row.balanceSyncedAt ? { balanceSyncedAt: row.balanceSyncedAt.toISOString() } : {}),
    });
  }
  return { accounts, redactedItemCount };
}
