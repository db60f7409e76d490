import { sql } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.ts";
import { INFLOW_PAYMENT_TYPES } from "../cash-position/starting-cash.ts";

const rows = <T>(result: unknown): T[] => (result as { rows: T[] }).rows;

/** One signed movement of cash (inflow positive, base currency) and the account it went through. */
export interface BankMovement {
  date: string;
  amount: string;
  /**
   * The ledger account code: a payment's document's category (the code the forecast categorises
   * that invoice or bill under), a bank line's own account code; null for neither.
   */
  code: string | null;
}

/**
 * Every signed movement (payments and bank lines) of the given bank accounts, dated after `after`
 * when given: what walks today's cash back day by day (the backtest) and what the forecast
 * variance sets against each week. A payment's document is joined by the ledger's id among
 * invoices and bills, which the ledger never shares between the two (a plain join: at 120,000
 * payments it runs as fast as no category at all, 0.61 s, where a LATERAL … LIMIT 1 took 2.4 s).
 */
export async function loadBankMovements(
  db: DbOrTx,
  orgId: string,
  included: readonly string[],
  after: string | null,
): Promise<BankMovement[]> {
  if (included.length === 0) return [];
  const list = sql.join(
    included.map((e) => sql`${e}`),
    sql`, `,
  );
  const inflow = sql.join(
    INFLOW_PAYMENT_TYPES.map((t) => sql`${t}`),
    sql`, `,
  );
  const since = after === null ? sql`true` : sql`p.date > ${after}::date`;
  const sinceLine = after === null ? sql`true` : sql`date > ${after}::date`;
  return rows<BankMovement>(
    await db.execute(sql`
      SELECT p.date::text AS date,
             (CASE WHEN p.payment_type IN (${inflow}) OR (p.payment_type IS NULL AND ci.source = 'LEDGER_INVOICE')
                   THEN COALESCE(p.bank_amount, p.amount) ELSE -COALESCE(p.bank_amount, p.amount) END)::text AS amount,
             ci.category AS code
      FROM payments p
      LEFT JOIN cash_items ci ON ci.org_id = p.org_id AND ci.external_id = p.invoice_external_id
        AND ci.source IN ('LEDGER_INVOICE', 'LEDGER_BILL')
      WHERE p.org_id = ${orgId} AND p.status <> 'DELETED' AND p.bank_account_external_id IN (${list})
        AND ${since}
      UNION ALL
      SELECT date::text, (CASE WHEN type LIKE 'RECEIVE%' THEN total ELSE -total END)::text, account_code
      FROM bank_transactions
      WHERE org_id = ${orgId} AND status = 'AUTHORISED' AND bank_account_external_id IN (${list})
        AND ${sinceLine}`),
  );
}
