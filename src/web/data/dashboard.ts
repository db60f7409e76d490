import type { Db, DbOrTx } from "../../db/client.ts";

import type { BriefRef } from "../../domain/brief/types.ts";
import { localDate } from "../../domain/timezones.ts";
import { getLatestBrief } from "../../services/brief/get-daily-brief.ts";
import { NotFoundError } from "../../services/errors.ts";
import { getForecast } from "../../services/forecast/get-forecast.ts";
import { type ForecastVariance, getForecastVariance } from "../../services/forecast/history.ts";
import { listScenarios } from "../../services/forecast/scenarios.ts";
import { loadInsightInput } from "../../services/insights/load-insight-input.ts";
import { notesForAgent } from "../../services/insights/notes-for-agent.ts";
import { getReceivablesAgeing, type ReceivablesAgeing } from "../../services/receivables/ageing.ts";
import { getRunwayThreshold } from "../../services/runway/threshold.ts";
import { getLedgerPanel, type LedgerPanel } from "../../services/status/ledger-panel.ts";
import {
  getExpensesSummary,
  getRevenueSummary,
  type SummaryTopContact,
} from "../../services/summaries/ledger-summary.ts";
import { systemContext } from "../../services/system-context.ts";
import type { ForecastInput } from "../dashboard/forecast-series.ts";

/** A section of the daily brief (spec: BriefSection). */
export interface BriefSectionView {
  headline: string;
  bodyMarkdown: string;
  /** What the section names: a customer, an account category or a forecast week. */
  refs?: BriefRef[] | undefined;
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
  /** The scenario's latest forecast (default: BASE); null when it has none or is not the org's. */
  latestForecast(
    db: Db,
    orgId: string,
    now: Date,
    scenarioId?: string,
  ): Promise<ForecastInput | null>;
  latestDailyBrief(db: DbOrTx, orgId: string): Promise<DailyBriefView | null>;
}

/**
 * The dashboard reads the very rows the API serves: the BASE scenario's latest forecast snapshot
 * (through the same service as `GET /api/agent/forecast`, as the system actor at the app clock's
 * `now`: people signed in see real names) and the latest stored daily brief. null when none
 * exists yet.
 */
export const defaultDashboardSources: DashboardSources = {
  async latestForecast(db, orgId, now, scenarioId) {
    try {
      const ctx = await systemContext(db, orgId, now);
      const forecast = await getForecast({ ctx, scenarioId });
      return {
        scenarioId: forecast.scenarioId,
        scenarioName: forecast.scenarioName,
        scenarioKind: forecast.scenarioKind,
        computedAt: forecast.computedAt,
        startingCash: forecast.startingCash,
        currency: ctx.org.baseCurrency,
        weeks: forecast.weeks.map((w) => ({
          ...w,
          ...(w.categories ? { categories: { accounts: w.categories.accounts } } : {}),
          // The forecast's 80% prediction interval of closing, where its backtest supports one.
          ...(w.closingLow !== undefined && w.closingHigh !== undefined
            ? { band: { low: w.closingLow, high: w.closingHigh } }
            : {}),
        })),
      };
    } catch (err) {
      if (err instanceof NotFoundError) return null; // no organisation, scenario or snapshot yet
      throw err;
    }
  },
  async latestDailyBrief(db, orgId) {
    const brief = await getLatestBrief(db, orgId);
    if (!brief) return null;
    return {
      asOfDate: brief.asOfDate,
      generatedAt: brief.generatedAt,
      generatorTier: brief.generatorTier,
      mainDriver: brief.payload.mainDriver,
      riskSignal: brief.payload.riskSignal,
      recommendedAction: brief.payload.recommendedAction,
    };
  },
};

/** Everything on the dashboard besides cash, forecast and brief (all through services). */
export interface DashboardExtras {
  scenarios: { id: string; name: string; kind: string }[];
  threshold: string;
  weeklyReceipts: string[];
  weeklySpending: string[];
  notes: string[];
  ageing: ReceivablesAgeing;
  financialYear: { from: string; to: string };
  topCustomers: SummaryTopContact[];
  topSuppliers: SummaryTopContact[];
  ledger: LedgerPanel;
  variance: ForecastVariance;
}

/**
 * The dashboard's other panels, read as the system actor (people signed in see real names):
 * the scenarios to pick from, the owner's runway threshold, the insight engine's weekly series
 * and notes, receivables ageing, and the financial year's top customers (cash received) and
 * suppliers (bills), from the same services as the agent API.
 */
export async function dashboardExtras(db: Db, orgId: string, now: Date): Promise<DashboardExtras> {
  const ctx = await systemContext(db, orgId, now);
  const today = localDate(now, ctx.org.timezone);
  const [scenarios, threshold, input, notes, ageing, revenue, expenses, ledger, variance] =
    await Promise.all([
      listScenarios(db, orgId),
      getRunwayThreshold(db, orgId),
      loadInsightInput(db, ctx.org, today),
      notesForAgent(ctx),
      getReceivablesAgeing(ctx, { topN: 5 }),
      getRevenueSummary(ctx, { topN: 5 }),
      getExpensesSummary(ctx, { topN: 5 }),
      getLedgerPanel(db, orgId, now),
      getForecastVariance({ ctx, categories: true }),
    ]);
  return {
    scenarios: scenarios.map((s) => ({ id: s.id, name: s.name, kind: s.kind })),
    threshold,
    weeklyReceipts: input.weeklyReceipts,
    weeklySpending: input.weeklySpending,
    notes: notes.map((n) => n.text),
    ageing,
    financialYear: { from: revenue.window.from, to: revenue.window.to },
    topCustomers: revenue.topContacts,
    topSuppliers: expenses.topContacts,
    ledger,
    variance,
  };
}
