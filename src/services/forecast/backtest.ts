import { eq, sql } from "drizzle-orm";
import type { Db, DbOrTx } from "../../db/client.ts";
import { forecastBacktests, organisations } from "../../db/schema/index.ts";
import {
  type BacktestData,
  type BacktestResult,
  runBacktest,
} from "../../domain/forecasting/backtest.ts";
import { money, sum } from "../../domain/money.ts";
import { INFLOW_PAYMENT_TYPES } from "../cash-position/starting-cash.ts";
import { NotFoundError } from "../errors.ts";
import { type ForecastOrg, loadBooks, loadCash } from "./load-forecast-input.ts";

const rows = <T>(result: unknown): T[] => (result as { rows: T[] }).rows;

async function findOrg(db: DbOrTx, orgId: string): Promise<ForecastOrg> {
  const [org] = await db
    .select({
      id: organisations.id,
      baseCurrency: organisations.baseCurrency,
      timezone: organisations.timezone,
    })
    .from(organisations)
    .where(eq(organisations.id, orgId));
  if (!org) throw new NotFoundError("organisation");
  return org;
}

/**
 * Everything a backtest reads: the whole books (the loader the live forecast uses, without its
 * cutoff), cash at the end of today (reconciled balances with the unreconciled lines since; an
 * operator override is a statement about today only, so it is not used) and every movement of
 * the included bank accounts, to walk cash back day by day.
 */
export async function loadBacktestData(
  db: DbOrTx,
  orgId: string,
  now: Date,
): Promise<BacktestData> {
  const org = await findOrg(db, orgId);
  const { cash, included } = await loadCash(db, org, now);
  const books = await loadBooks(db, org, { cutoff: null, includedBankAccounts: included });
  const movements = await loadBankMovements(db, orgId, included, null);
  return {
    books,
    today: cash.asOfDate,
    currentCash: money(sum([cash.ledgerReconciledTotal, cash.adjustment])).toFixed(2),
    movements,
  };
}

/**
 * Every signed movement (payments and bank lines, base currency; inflow positive) of the given
 * bank accounts, dated after `after` when given: what walks today's cash back day by day.
 */
export async function loadBankMovements(
  db: DbOrTx,
  orgId: string,
  included: readonly string[],
  after: string | null,
): Promise<{ date: string; amount: string }[]> {
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
  return rows<{ date: string; amount: string }>(
    await db.execute(sql`
      SELECT p.date::text AS date,
             (CASE WHEN p.payment_type IN (${inflow}) OR (p.payment_type IS NULL AND ci.source = 'LEDGER_INVOICE')
                   THEN COALESCE(p.bank_amount, p.amount) ELSE -COALESCE(p.bank_amount, p.amount) END)::text AS amount
      FROM payments p
      LEFT JOIN cash_items ci ON p.payment_type IS NULL AND ci.org_id = p.org_id AND ci.external_id = p.invoice_external_id
      WHERE p.org_id = ${orgId} AND p.status <> 'DELETED' AND p.bank_account_external_id IN (${list})
        AND ${since}
      UNION ALL
      SELECT date::text, (CASE WHEN type LIKE 'RECEIVE%' THEN total ELSE -total END)::text
      FROM bank_transactions
      WHERE org_id = ${orgId} AND status = 'AUTHORISED' AND bank_account_external_id IN (${list})
        AND ${sinceLine}`),
  );
}

/**
 * Backtests an organisation over `origins` past weeks and stores the result as its latest
 * (`forecast_backtests`), which the daily job also refreshes.
 */
export async function backtestOrganisation(
  db: Db,
  input: { orgId: string; now: Date; origins: number },
): Promise<BacktestResult> {
  const data = await loadBacktestData(db, input.orgId, input.now);
  const result = runBacktest(data, { origins: input.origins });
  await db
    .insert(forecastBacktests)
    .values({ orgId: input.orgId, computedAt: input.now, asOfDate: data.today, result })
    .onConflictDoUpdate({
      target: forecastBacktests.orgId,
      set: { computedAt: input.now, asOfDate: data.today, result },
    });
  return result;
}

/** The organisation's latest stored backtest, or null before its first. */
export async function latestBacktest(
  db: DbOrTx,
  orgId: string,
): Promise<{ computedAt: Date; asOfDate: string; result: BacktestResult } | null> {
  const [row] = await db.select().from(forecastBacktests).where(eq(forecastBacktests.orgId, orgId));
  return row ? { ...row, result: row.result as BacktestResult } : null;
}
