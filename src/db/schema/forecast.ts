import { sql } from "drizzle-orm";
import {
  date,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { organisations } from "./tenancy.ts";

const orgId = () =>
  text("org_id")
    .notNull()
    .references(() => organisations.id);
const instant = (name: string) => timestamp(name, { withTimezone: true });

export const SCENARIO_KINDS = ["BASE", "BEST", "WORST", "CUSTOM"] as const;

/**
 * Forecast scenarios: sets of assumptions applied to the same ledger data. Every organisation has
 * one BASE, one BEST and one WORST (created with its first forecast) and any number of CUSTOM.
 */
export const forecastScenarios = pgTable(
  "forecast_scenarios",
  {
    id: text("id").primaryKey(),
    orgId: orgId(),
    kind: text("kind", { enum: SCENARIO_KINDS }).notNull(),
    name: text("name").notNull(),
    /** CUSTOM overrides (`ScenarioAssumptions` in src/domain/forecasting/types.ts); `{}` otherwise. */
    assumptions: jsonb("assumptions").notNull().default({}),
    createdAt: instant("created_at").notNull(),
    updatedAt: instant("updated_at").notNull(),
  },
  (t) => [
    // One of each standard kind per organisation; CUSTOM ones are unlimited.
    uniqueIndex("forecast_scenarios_org_standard_key")
      .on(t.orgId, t.kind)
      .where(sql`kind <> 'CUSTOM'`),
    index("forecast_scenarios_org_idx").on(t.orgId, t.createdAt),
  ],
);

/**
 * The predicted customers' and suppliers' orders of one recompute (`PredictedCustomer[]`), the
 * same for every scenario of it: stored once and named by each of its snapshots
 * (`predictions_id`) instead of in each snapshot's detail (ADR 0006). Rows no snapshot names are
 * pruned with the snapshots.
 */
export const forecastPredictions = pgTable(
  "forecast_predictions",
  {
    id: text("id").primaryKey(),
    orgId: orgId(),
    computedAt: instant("computed_at").notNull(),
    predictions: jsonb("predictions").notNull(),
  },
  (t) => [index("forecast_predictions_org_idx").on(t.orgId, t.computedAt)],
);

/**
 * A computed forecast of one scenario, served as stored. `payload` is the engine's answer without
 * redaction (weeks with real account names; `ForecastPayload`); `detail` holds the lines behind
 * every week (for explanations), never served by the API.
 */
export const forecastSnapshots = pgTable(
  "forecast_snapshots",
  {
    id: text("id").primaryKey(),
    orgId: orgId(),
    scenarioId: text("scenario_id")
      .notNull()
      .references(() => forecastScenarios.id, { onDelete: "cascade" }),
    /** 2 since the guaranteed/forecast inflow split; 1 snapshots lack it. */
    engineVersion: integer("engine_version").notNull(),
    computedAt: instant("computed_at").notNull(),
    /** The organisation's local date the forecast was made on (week 1 holds it). */
    asOfDate: date("as_of_date", { mode: "string" }).notNull(),
    startingCash: numeric("starting_cash").notNull(),
    payload: jsonb("payload").notNull(),
    /** `StoredDetailV2` or, before it, `ForecastDetail` (src/services/forecast/snapshot-detail.ts). */
    detail: jsonb("detail"),
    /** The recompute's shared predictions, when the detail does not hold its own. */
    predictionsId: text("predictions_id").references(() => forecastPredictions.id),
    /** The import that triggered it, when one did. */
    syncRunId: text("sync_run_id"),
  },
  (t) => [index("forecast_snapshots_org_scenario_idx").on(t.orgId, t.scenarioId, t.computedAt)],
);

/** The operator's starting-cash override (`cashrunway cash override`): one per organisation. */
export const cashOverrides = pgTable("cash_overrides", {
  orgId: text("org_id")
    .primaryKey()
    .references(() => organisations.id),
  amount: numeric("amount").notNull(),
  setAt: instant("set_at").notNull(),
});

/**
 * Balance-sheet balances as the ledger reported them (Reports/BalanceSheet.json): one row per
 * (report date, account). Balances as at any date are those of the latest report date on or
 * before it (docs/ledger-export.md, "Balance sheet").
 */
export const accountBalances = pgTable(
  "account_balances",
  {
    id: text("id").primaryKey(),
    orgId: orgId(),
    asAtDate: date("as_at_date", { mode: "string" }).notNull(),
    /** The ledger's AccountID; the zero GUID for Current Year Earnings. */
    accountExternalId: text("account_external_id").notNull(),
    /** The row's name in the report (our chart's name is preferred when the account is in it). */
    name: text("name").notNull(),
    /** The report section: Bank, Current Assets, Equity, … */
    section: text("section"),
    /** As the balance sheet shows it: assets, liabilities and equity each positive in their normal sign. */
    balance: numeric("balance").notNull(),
  },
  (t) => [
    uniqueIndex("account_balances_org_date_account_key").on(
      t.orgId,
      t.asAtDate,
      t.accountExternalId,
    ),
  ],
);

/**
 * The latest backtest of an organisation (`BacktestResult` in src/domain/forecasting/backtest.ts):
 * written by the daily forecast job and by `cashrunway backtest`, one row per organisation.
 */
export const forecastBacktests = pgTable("forecast_backtests", {
  orgId: text("org_id")
    .primaryKey()
    .references(() => organisations.id),
  computedAt: instant("computed_at").notNull(),
  /** The organisation's local date the backtest was run on. */
  asOfDate: date("as_of_date", { mode: "string" }).notNull(),
  result: jsonb("result").notNull(),
});

/**
 * The track record: each day's served BASE forecast, kept small (the weeks' closing, inflow,
 * outflow and band; no lines) so that once a week has passed it can be set against what happened
 * (src/services/forecast/history.ts). One row per (organisation, local day): a later recompute
 * on the same day replaces the row, so it holds what was served at the end of that day. Rows
 * older than HISTORY_DAYS are pruned at each write.
 */
export const forecastHistory = pgTable(
  "forecast_history",
  {
    orgId: orgId(),
    /** The organisation's local date the forecast was made on (week 1 holds it). */
    asOfDate: date("as_of_date", { mode: "string" }).notNull(),
    /** The BASE scenario's id (no foreign key: the track record outlives a scenario's rows). */
    scenarioId: text("scenario_id").notNull(),
    computedAt: instant("computed_at").notNull(),
    startingCash: numeric("starting_cash").notNull(),
    /** `HistoryWeek[]`: weekStart, weekEnd, inflow, outflow, closing, closingLow/High. */
    weeks: jsonb("weeks").notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.asOfDate] })],
);
