import { and, asc, eq, max, sql } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.ts";
import { bankAccounts } from "../../db/schema/index.ts";
import type { ForecastInput } from "../dashboard/forecast-series.ts";

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

/** A section of the daily brief (spec: BriefSection). */
export interface BriefSectionView {
  headline: string;
  bodyMarkdown: string;
}

/** The daily brief as the dashboard shows it (spec: DailyBriefResponse). */
export interface DailyBriefView {
  asOfDate: string;
  generatedAt: string;
  generatorTier: "rules" | "llm";
  mainDriver: BriefSectionView;
  riskSignal: BriefSectionView;
  recommendedAction: BriefSectionView;
}

/**
 * Where the dashboard reads the forecast and the daily brief. Both must return the same rows the
 * API serves (`/api/agent/forecast`, `/api/agent/orgs/{orgId}/daily-brief`); null means none
 * exists yet, and the page says so.
 */
export interface DashboardSources {
  latestForecast(db: DbOrTx, orgId: string): Promise<ForecastInput | null>;
  latestDailyBrief(db: DbOrTx, orgId: string): Promise<DailyBriefView | null>;
}

/**
 * Until the forecast and daily-brief issues land there is no table to read: these answer null
 * and the dashboard shows "No forecast computed yet" / "No daily brief yet". PLUG-IN POINT:
 * replace each body with the read of the latest stored row (or pass other sources to
 * `registerWeb`).
 */
export const defaultDashboardSources: DashboardSources = {
  latestForecast: async () => null,
  latestDailyBrief: async () => null,
};
