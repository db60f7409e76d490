import { eq } from "drizzle-orm";
import type { Db, DbOrTx } from "../../db/client.ts";
import { forecastBacktests, organisations } from "../../db/schema/index.ts";
import {
  type BacktestData,
  type BacktestResult,
  runBacktest,
} from "../../domain/forecasting/backtest.ts";
import { money, sum } from "../../domain/money.ts";
import { NotFoundError } from "../errors.ts";
import { loadBankMovements } from "./bank-movements.ts";
import { type ForecastOrg, loadBooks, loadCash } from "./load-forecast-input.ts";

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
