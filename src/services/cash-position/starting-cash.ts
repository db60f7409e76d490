import { sql } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.ts";
import type { BankAccountRow } from "../../db/queries/bank-accounts.ts";
import { canonical, money } from "../../domain/money.ts";
import { localDate } from "../../domain/timezones.ts";

/**
 * The opening cash of the forecast, and how it was reached (docs/forecast.md, "Starting cash"):
 *
 * - An account is **included** when it is active, its balance source is RECONCILED and its
 *   currency is the organisation's base currency. Foreign-currency accounts are listed but not
 *   summed: the ledger gives no rate for a balance, and adding AUD to USD would be wrong.
 * - `ledgerReconciledTotal` = the plain sum of `reconciledBalance` over included accounts.
 * - Automatic adjustment: an account's reconciled balance is the ledger's balance at the end of
 *   the bank summary it came from (the import's local date, `balanceSyncedAt`). Unreconciled
 *   payments and spend/receive-money lines recorded on an included account with a date after
 *   that balance date and on or before `asOfDate` (entered ahead, now due) are not in the balance
 *   yet: their signed sum is added. A later import moves the balance date past them, so they are
 *   never counted twice.
 * - An operator override (`cashrunway cash override`) replaces the whole figure: source `manual`.
 */
export interface StartingCashAccount extends BankAccountRow {
  externalId: string;
  included: boolean;
  /** The automatic adjustment of this account (0 when none). */
  adjustment: string;
}

export interface StartingCash {
  asOfDate: string;
  currency: string;
  ledgerReconciledTotal: string;
  /** Σ of the accounts' automatic adjustments. */
  adjustment: string;
  override: { amount: string; setAt: Date } | null;
  effectiveStartingCash: string;
  source: "manual" | "ledger_reconciled";
  accounts: StartingCashAccount[];
}

interface AccountRow {
  id: string;
  externalId: string;
  name: string;
  currency: string;
  reconciledBalance: string;
  statementBalance: string;
  balanceSource: "STATEMENT" | "RECONCILED";
  balanceSyncedAt: Date | string | null;
  isSensitive: boolean;
  overrideAmount: string | null;
  overrideSetAt: Date | string | null;
}

/** Payment types that bring money in; every other type takes it out. */
export const INFLOW_PAYMENT_TYPES = [
  "ACCRECPAYMENT",
  "APCREDITPAYMENT",
  "ARPREPAYMENTPAYMENT",
  "AROVERPAYMENTPAYMENT",
] as const;

const asDate = (v: Date | string | null): Date | null =>
  v === null ? null : v instanceof Date ? v : new Date(v);

/**
 * The starting cash of an organisation on `now`'s local date. Two round trips: the accounts
 * with the override, then (only when some included account has lines after its balance date)
 * the adjustment sums.
 */
export async function computeStartingCash(
  db: DbOrTx,
  org: { id: string; baseCurrency: string; timezone: string },
  now: Date,
): Promise<StartingCash> {
  const asOfDate = localDate(now, org.timezone);
  const result = await db.execute(sql`
    SELECT b.id, b.external_id AS "externalId", b.name, b.currency,
           b.reconciled_balance::text AS "reconciledBalance",
           b.statement_balance::text AS "statementBalance",
           b.balance_source AS "balanceSource", b.balance_synced_at AS "balanceSyncedAt",
           la.is_sensitive AS "isSensitive",
           o.amount::text AS "overrideAmount", o.set_at AS "overrideSetAt"
    FROM (SELECT 1) one
    LEFT JOIN bank_accounts b ON b.org_id = ${org.id} AND b.is_active
    LEFT JOIN ledger_accounts la ON la.id = b.ledger_account_id AND la.org_id = ${org.id}
    LEFT JOIN cash_overrides o ON o.org_id = ${org.id}
    ORDER BY b.name COLLATE "C", b.id COLLATE "C"`);
  const rows = (result as unknown as { rows: AccountRow[] }).rows;
  const first = rows[0];
  const override =
    first?.overrideAmount != null
      ? {
          amount: canonical(first.overrideAmount),
          setAt: asDate(first.overrideSetAt) ?? new Date(0),
        }
      : null;
  const accounts: StartingCashAccount[] = rows
    .filter((r) => r.id !== null)
    .map((r) => ({
      id: r.id,
      externalId: r.externalId,
      name: r.name,
      currency: r.currency,
      reconciledBalance: canonical(r.reconciledBalance),
      statementBalance: canonical(r.statementBalance),
      balanceSource: r.balanceSource,
      balanceSyncedAt: asDate(r.balanceSyncedAt),
      isSensitive: Boolean(r.isSensitive),
      included: r.balanceSource === "RECONCILED" && r.currency === org.baseCurrency,
      adjustment: "0",
    }));

  // Lines dated after each included account's balance date, up to today, not reconciled.
  const pending = accounts.filter((a) => a.included && a.balanceSyncedAt !== null);
  const afterDates = pending
    .map((a) => ({ a, since: localDate(a.balanceSyncedAt as Date, org.timezone) }))
    .filter((x) => x.since < asOfDate);
  if (afterDates.length > 0) {
    const values = sql.join(
      afterDates.map((x) => sql`(${x.a.externalId}, ${x.since}::date)`),
      sql`, `,
    );
    const sums = await db.execute(sql`
      WITH acct(ext, since) AS (VALUES ${values})
      SELECT acct.ext AS "externalId", COALESCE(SUM(m.amount), 0)::text AS "sum"
      FROM acct
      JOIN LATERAL (
        SELECT CASE WHEN p.payment_type IN (${sql.join(
          INFLOW_PAYMENT_TYPES.map((t) => sql`${t}`),
          sql`, `,
        )}) OR (p.payment_type IS NULL AND ci.source = 'LEDGER_INVOICE')
               THEN COALESCE(p.bank_amount, p.amount) ELSE -COALESCE(p.bank_amount, p.amount) END AS amount
        FROM payments p
        LEFT JOIN cash_items ci ON p.payment_type IS NULL AND ci.org_id = p.org_id
          AND ci.external_id = p.invoice_external_id
        WHERE p.org_id = ${org.id} AND p.bank_account_external_id = acct.ext
          AND p.status <> 'DELETED' AND NOT p.is_reconciled
          AND p.date > acct.since AND p.date <= ${asOfDate}::date
        UNION ALL
        SELECT CASE WHEN t.type LIKE 'RECEIVE%' THEN t.total ELSE -t.total END
        FROM bank_transactions t
        WHERE t.org_id = ${org.id} AND t.bank_account_external_id = acct.ext
          AND t.status = 'AUTHORISED' AND NOT t.is_reconciled
          AND t.date > acct.since AND t.date <= ${asOfDate}::date
      ) m ON true
      GROUP BY acct.ext`);
    const byExt = new Map(
      (sums as unknown as { rows: { externalId: string; sum: string }[] }).rows.map((r) => [
        r.externalId,
        r.sum,
      ]),
    );
    for (const a of accounts) {
      const s = byExt.get(a.externalId);
      if (s !== undefined) a.adjustment = canonical(s);
    }
  }

  let ledger = money(0);
  let adjustment = money(0);
  for (const a of accounts) {
    if (!a.included) continue;
    ledger = ledger.plus(a.reconciledBalance);
    adjustment = adjustment.plus(a.adjustment);
  }
  const automatic = ledger.plus(adjustment);
  return {
    asOfDate,
    currency: org.baseCurrency,
    ledgerReconciledTotal: canonical(ledger),
    adjustment: canonical(adjustment),
    override,
    effectiveStartingCash: override ? override.amount : canonical(automatic),
    source: override ? "manual" : "ledger_reconciled",
    accounts,
  };
}
