import type { z } from "@hono/zod-openapi";
import type { CashPositionAccountSchema } from "../../contracts/agent/cash-position.ts";
import { SENSITIVE_ACCOUNT_NAME } from "../../domain/forecasting/redact.ts";
import { canSeeSensitive, requireScope, type ServiceContext } from "../context.ts";
import { computeStartingCash } from "./starting-cash.ts";

/** One bank account of the cash position. */
export type CashPositionAccount = z.infer<typeof CashPositionAccountSchema>;

/** The spec's CashPositionResponse (without alerts, which the pipeline adds). */
export interface CashPosition {
  asOfDate: string;
  startingCash: string;
  source: "manual" | "ledger_reconciled";
  ledgerReconciledTotal: string;
  effectiveStartingCash: string;
  currency: string;
  accounts: CashPositionAccount[];
  redactedItemCount: number;
}

/**
 * `GET /api/agent/cash-position`: today's opening cash (the organisation's local date), how it
 * was reached, and every active bank account. A composite endpoint: without READ_SENSITIVE,
 * sensitive accounts stay (totals reconcile) but are renamed "Sensitive account", and
 * redactedItemCount counts them. Amounts and ids are never masked.
 */
export async function getCashPosition({ ctx }: { ctx: ServiceContext }): Promise<CashPosition> {
  requireScope(ctx, "READ_FORECAST");
  const cash = await computeStartingCash(ctx.db, ctx.org, ctx.now);
  const showSensitive = canSeeSensitive(ctx);
  let redactedItemCount = 0;
  const accounts = cash.accounts.map((a) => {
    const hide = a.isSensitive && !showSensitive;
    if (hide) redactedItemCount += 1;
    return {
      id: a.id,
      name: hide ? SENSITIVE_ACCOUNT_NAME : a.name,
      currency: a.currency,
      reconciledBalance: a.reconciledBalance,
      statementBalance: a.statementBalance,
      balanceSource: a.balanceSource,
      included: a.included,
    };
  });
  return {
    asOfDate: cash.asOfDate,
    startingCash: cash.effectiveStartingCash,
    source: cash.source,
    ledgerReconciledTotal: cash.ledgerReconciledTotal,
    effectiveStartingCash: cash.effectiveStartingCash,
    currency: cash.currency,
    accounts,
    redactedItemCount,
  };
}
