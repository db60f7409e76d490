import type { z } from "@hono/zod-openapi";
import { sql } from "drizzle-orm";
import { boundedCache } from "../../cache.ts";
import type { ForecastVarianceSchema } from "../../contracts/agent/forecast.ts";
import type { DbOrTx } from "../../db/client.ts";
import { forecastHistory } from "../../db/schema/index.ts";
import { type Cents, centsToDecimal, toCents } from "../../domain/forecasting/cents.ts";
import { addDays, dateOf, dayNumber, mondayOnOrBefore } from "../../domain/forecasting/dates.ts";
import { SENSITIVE_ACCOUNT_NAME } from "../../domain/forecasting/redact.ts";
import { money, sum } from "../../domain/money.ts";
import { localDate } from "../../domain/timezones.ts";
import { canSeeSensitive, requireScope, type ServiceContext } from "../context.ts";
import { dataVersion } from "../summaries/summary-cache.ts";
import { loadBankMovements } from "./bank-movements.ts";
import { loadAccounts, loadCash } from "./load-forecast-input.ts";
import type { ForecastPayload } from "./recompute-forecasts.ts";

/**
 * Days of served forecasts kept per organisation (53 weeks): enough to score the 13-week horizon
 * over 40 weeks. At most one row per day, so at most this many rows per organisation.
 */
export const HISTORY_DAYS = 371;

/** Completed weeks a variance shows by default, and at most. */
export const VARIANCE_WEEKS = 13;
export const MAX_VARIANCE_WEEKS = 52;

/** One week of a kept forecast: what the track record needs, nothing behind it. */
export interface HistoryWeek {
  weekStart: string;
  weekEnd: string;
  inflow: string;
  outflow: string;
  closing: string;
  closingLow?: string;
  closingHigh?: string;
  /**
   * The week's `categories.accounts` without names (by account id; accounts with money only).
   * Absent on rows kept before categories were: those forecasts have no category rows.
   */
  accounts?: Record<string, { inflow: string; outflow: string }>;
}

/** The name of the category row of money with no ledger account (`accountId: null`). */
export const NO_ACCOUNT_NAME = "No account";

const rows = <T>(result: unknown): T[] => (result as { rows: T[] }).rows;

/**
 * Keeps the day's served BASE forecast (called inside the recompute's transaction): one row per
 * (organisation, local day), replaced by a later recompute on the same day, and prunes rows
 * older than HISTORY_DAYS before `asOfDate`.
 */
export async function recordForecastHistory(
  db: DbOrTx,
  row: {
    orgId: string;
    asOfDate: string;
    scenarioId: string;
    computedAt: Date;
    startingCash: string;
    weeks: ForecastPayload["weeks"];
  },
): Promise<void> {
  const weeks: HistoryWeek[] = row.weeks.map((w) => ({
    weekStart: w.weekStart,
    weekEnd: w.weekEnd,
    inflow: w.inflow,
    outflow: w.outflow,
    closing: w.closing,
    ...(w.closingLow !== undefined && w.closingHigh !== undefined
      ? { closingLow: w.closingLow, closingHigh: w.closingHigh }
      : {}),
    accounts: Object.fromEntries(
      Object.entries(w.categories.accounts)
        .filter(([, a]) => toCents(a.inflow) !== 0 || toCents(a.outflow) !== 0)
        .map(([id, a]) => [id, { inflow: a.inflow, outflow: a.outflow }]),
    ),
  }));
  const values = { ...row, weeks };
  await db
    .insert(forecastHistory)
    .values(values)
    .onConflictDoUpdate({
      target: [forecastHistory.orgId, forecastHistory.asOfDate],
      set: {
        scenarioId: row.scenarioId,
        computedAt: row.computedAt,
        startingCash: row.startingCash,
        weeks,
      },
    });
  await db.execute(sql`
    DELETE FROM forecast_history
    WHERE org_id = ${row.orgId} AND as_of_date < ${addDays(row.asOfDate, -HISTORY_DAYS)}::date`);
}

/** One forecast of a past week: made `horizon` weeks ahead (1: during that week). */
export type PastForecast = VarianceWeek["forecasts"][number];

/** A completed week: what happened, and what was forecast for it at each horizon kept. */
export type VarianceWeek = ForecastVariance["weeks"][number];

/** The BASE forecast's track record (`GET /api/agent/forecast?variance=true`, the dashboard). */
export type ForecastVariance = z.infer<typeof ForecastVarianceSchema>;

/** A forecast's category row: an account's forecast and its error. */
export type ForecastCategory = NonNullable<PastForecast["categories"]>[number];

/**
 * The track record of the organisation's BASE forecast over the last `weeks` completed weeks:
 * for each, the actual opening, inflow, outflow and closing cash of the included bank accounts
 * (today's cash walked back through every movement since, as the backtest does; an operator
 * override is not used) and each kept forecast of it, by horizon. Horizon h is the first
 * forecast kept in the week h − 1 weeks before it (horizon 1: made during the week itself).
 *
 * With `categories`, each week's actual money and each forecast (kept with its accounts) are
 * also given by ledger account, the rows summing to the totals to the cent; without
 * READ_SENSITIVE (or with `seesSensitive: false`, the CLI's default as for such a key),
 * sensitive accounts are named "Sensitive account" (amounts never masked).
 */
export async function getForecastVariance({
  ctx,
  weeks = VARIANCE_WEEKS,
  categories = false,
  seesSensitive = true,
  horizon,
}: {
  ctx: ServiceContext;
  weeks?: number;
  categories?: boolean;
  /** false: mask sensitive accounts even for a reader who may see them. */
  seesSensitive?: boolean;
  /** Keep only the forecasts made this many weeks ahead, and the weeks that have one (byHorizon unchanged). */
  horizon?: number;
}): Promise<ForecastVariance> {
  const all = await cachedVariance(ctx, weeks, categories, seesSensitive);
  if (horizon === undefined) return all;
  return {
    ...all,
    weeks: all.weeks.flatMap((w) => {
      const forecasts = w.forecasts.filter((f) => f.horizon === horizon);
      return forecasts.length === 0 ? [] : [{ ...w, forecasts }];
    }),
  };
}

async function cachedVariance(
  ctx: ServiceContext,
  weeks: number,
  categories: boolean,
  seesSensitive: boolean,
): Promise<ForecastVariance> {
  requireScope(ctx, "READ_FORECAST");
  const count = Math.max(1, Math.min(MAX_VARIANCE_WEEKS, Math.floor(weeks)));
  const version = await varianceVersion(ctx.db, ctx.org.id);
  const seesAll = seesSensitive && canSeeSensitive(ctx);
  const view: CategoryView = categories
    ? { sensitive: seesAll ? new Set() : new Set(version.sensitive) }
    : null;
  // Without a data version (never imported) the rows may change unseen: never reuse.
  if (version.data === null) return computeVariance(ctx, count, view);
  // The sensitive accounts are read with the version: a change of flags is another entry.
  const shown = categories ? (seesAll ? "*" : version.sensitive.join(",")) : "-";
  const key = `${ctx.org.id}|${localDate(ctx.now, ctx.org.timezone)}|${count}|${version.data}|${shown}`;
  const hit = varianceCache.get(key);
  if (hit) return hit;
  const pending = computeVariance(ctx, count, view);
  varianceCache.set(key, pending);
  pending.catch(() => varianceCache.delete(key));
  return pending;
}

/** No categories, or categories with these accounts' names masked. */
type CategoryView = { sensitive: ReadonlySet<string> } | null;

/**
 * Variances per (organisation, local day, weeks, version, categories shown): the version moves
 * with every import (data version), every kept forecast (the latest computedAt and the number of
 * kept days) and every listed write (the data epoch), so a stale entry is never hit and ages out.
 * Bound: src/cache.ts (`forecastVariance`).
 */
const varianceCache = boundedCache<string, Promise<ForecastVariance>>("forecastVariance");

/**
 * What a variance is computed from (see `varianceCache`): `data` null before any import; the
 * organisation's sensitive accounts now.
 */
async function varianceVersion(
  db: DbOrTx,
  orgId: string,
): Promise<{ data: string | null; sensitive: string[] }> {
  const data = await dataVersion(db, orgId);
  const [row] = rows<{
    recomputed: string | null;
    epoch: string | number | null;
    sensitive: string | null;
  }>(
    await db.execute(sql`
      SELECT (SELECT max(computed_at)::text || '/' || count(*) FROM forecast_history
               WHERE org_id = ${orgId}) AS recomputed,
             (SELECT epoch FROM org_data_epochs WHERE org_id = ${orgId}) AS epoch,
             (SELECT string_agg(id, ',' ORDER BY id) FROM ledger_accounts
               WHERE org_id = ${orgId} AND is_sensitive) AS sensitive`),
  );
  return {
    data: data === null ? null : `${data}|${row?.recomputed ?? "none"}|${row?.epoch ?? 0}`,
    sensitive: row?.sensitive ? row.sensitive.split(",") : [],
  };
}

/** The category key of money without an account (the `accountId: null` row). */
const NO_ACCOUNT = "";

/** Inflow and outflow cents by category key (account id, or NO_ACCOUNT). */
type CategoryFlows = Map<string, { inflow: Cents; outflow: Cents }>;

function addFlow(flows: CategoryFlows, key: string, inflow: Cents, outflow: Cents): void {
  const f = flows.get(key);
  if (f) {
    f.inflow += inflow;
    f.outflow += outflow;
  } else flows.set(key, { inflow, outflow });
}

/**
 * A kept forecast week's flows by account, with what no account holds as the NO_ACCOUNT row (the
 * week's totals less the accounts'), so the rows sum to the week's inflow and outflow exactly.
 */
function forecastFlows(
  week: HistoryWeek & { accounts: NonNullable<HistoryWeek["accounts"]> },
): CategoryFlows {
  const flows: CategoryFlows = new Map();
  let inflow = toCents(week.inflow);
  let outflow = toCents(week.outflow);
  for (const [id, a] of Object.entries(week.accounts)) {
    const i = toCents(a.inflow);
    const o = toCents(a.outflow);
    addFlow(flows, id, i, o);
    inflow -= i;
    outflow -= o;
  }
  if (inflow !== 0 || outflow !== 0) addFlow(flows, NO_ACCOUNT, inflow, outflow);
  return flows;
}

/** Names the category rows, masking sensitive accounts and counting them. */
class CategoryNamer {
  redacted = 0;
  constructor(
    private readonly names: ReadonlyMap<string, string>,
    private readonly sensitive: ReadonlySet<string>,
  ) {}

  row(key: string): { accountId: string | null; name: string } {
    if (key === NO_ACCOUNT) return { accountId: null, name: NO_ACCOUNT_NAME };
    if (this.sensitive.has(key)) {
      this.redacted += 1;
      return { accountId: key, name: SENSITIVE_ACCOUNT_NAME };
    }
    return { accountId: key, name: this.names.get(key) ?? "Unknown account" };
  }
}

/** Largest |value| first, then by account id (null last): an order that names no name. */
const byMagnitude = <T extends { key: string; size: Cents }>(a: T, b: T) =>
  Math.abs(b.size) - Math.abs(a.size) ||
  (a.key === NO_ACCOUNT ? 1 : 0) - (b.key === NO_ACCOUNT ? 1 : 0) ||
  (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

/** A forecast's category rows against the week's actual ones: the union of both sides' keys. */
function forecastCategories(
  forecast: CategoryFlows,
  actual: CategoryFlows,
  namer: CategoryNamer,
): ForecastCategory[] {
  const keys = new Set([...forecast.keys(), ...actual.keys()]);
  return [...keys]
    .map((key) => {
      const f = forecast.get(key) ?? { inflow: 0, outflow: 0 };
      const a = actual.get(key) ?? { inflow: 0, outflow: 0 };
      return {
        key,
        f,
        inflowError: f.inflow - a.inflow,
        outflowError: f.outflow - a.outflow,
        size: f.inflow - f.outflow - (a.inflow - a.outflow),
      };
    })
    .sort(byMagnitude)
    .map((r) => ({
      ...namer.row(r.key),
      inflow: centsToDecimal(r.f.inflow),
      outflow: centsToDecimal(r.f.outflow),
      inflowError: centsToDecimal(r.inflowError),
      outflowError: centsToDecimal(r.outflowError),
      netError: centsToDecimal(r.size),
    }));
}

async function computeVariance(
  ctx: ServiceContext,
  count: number,
  view: CategoryView,
): Promise<ForecastVariance> {
  const orgId = ctx.org.id;
  const { cash, included } = await loadCash(ctx.db, ctx.org, ctx.now);
  const today = cash.asOfDate;
  const thisMonday = mondayOnOrBefore(dayNumber(today));
  const firstWeek = dateOf(thisMonday - 7 * count);
  // Forecasts of the first week at horizon 13 were made 12 weeks before it.
  const madeFrom = addDays(firstWeek, -7 * 12);
  const kept = rows<{ asOfDate: string; weeks: HistoryWeek[] | string }>(
    await ctx.db.execute(sql`
      SELECT as_of_date::text AS "asOfDate", weeks FROM forecast_history
      WHERE org_id = ${orgId} AND as_of_date >= ${madeFrom}::date AND as_of_date < ${today}::date
      ORDER BY as_of_date`),
  );
  const [oldest] = rows<{ at: string | null }>(
    await ctx.db.execute(sql`
      SELECT min(as_of_date)::text AS at FROM forecast_history WHERE org_id = ${orgId}`),
  );
  // The first kept forecast of each week (by its week 1's Monday).
  const firstOfWeek = new Map<string, { madeOn: string; weeks: HistoryWeek[] }>();
  for (const k of kept) {
    const list = typeof k.weeks === "string" ? (JSON.parse(k.weeks) as HistoryWeek[]) : k.weeks;
    const monday = list[0]?.weekStart;
    if (monday === undefined || firstOfWeek.has(monday)) continue;
    firstOfWeek.set(monday, { madeOn: k.asOfDate, weeks: list });
  }
  const accounts = await loadAccounts(ctx.db, orgId);
  const names = new Map(accounts.infos.map((a) => [a.id, a.name]));
  const namer = new CategoryNamer(names, view?.sensitive ?? new Set());
  const byWeek = new Map<string, PastForecast[]>();
  const actualOf = await actualWeeks(ctx, {
    included,
    accountOfCode: accounts.byCode,
    currentCash: money(sum([cash.ledgerReconciledTotal, cash.adjustment])).toFixed(2),
    today,
    firstWeek,
    count,
  });
  for (const f of firstOfWeek.values()) {
    f.weeks.forEach((w, i) => {
      const actual = actualOf.get(w.weekStart);
      if (!actual) return;
      const list = byWeek.get(w.weekStart) ?? [];
      const err = (forecast: string, happened: Cents) =>
        centsToDecimal(toCents(forecast) - happened);
      const accountsKept = w.accounts;
      list.push({
        horizon: i + 1,
        madeOn: f.madeOn,
        inflow: w.inflow,
        outflow: w.outflow,
        closing: w.closing,
        ...(w.closingLow !== undefined && w.closingHigh !== undefined
          ? {
              closingLow: w.closingLow,
              closingHigh: w.closingHigh,
            }
          : {}),
        closingError: err(w.closing, actual.closing),
        inflowError: err(w.inflow, actual.inflow),
        outflowError: err(w.outflow, actual.outflow),
        ...(w.closingLow !== undefined && w.closingHigh !== undefined
          ? {
              withinBand:
                toCents(w.closingLow) <= actual.closing && actual.closing <= toCents(w.closingHigh),
            }
          : {}),
        ...(view && accountsKept
          ? {
              categories: forecastCategories(
                forecastFlows({ ...w, accounts: accountsKept }),
                actual.categories,
                namer,
              ),
            }
          : {}),
      });
      byWeek.set(w.weekStart, list);
    });
  }
  const out: VarianceWeek[] = [];
  for (let k = 1; k <= count; k++) {
    const weekStart = dateOf(thisMonday - 7 * k);
    const forecasts = byWeek.get(weekStart);
    const actual = actualOf.get(weekStart);
    if (!forecasts || !actual) continue;
    forecasts.sort((a, b) => a.horizon - b.horizon);
    out.push({
      weekStart,
      weekEnd: addDays(weekStart, 6),
      actual: {
        opening: centsToDecimal(actual.opening),
        inflow: centsToDecimal(actual.inflow),
        outflow: centsToDecimal(actual.outflow),
        closing: centsToDecimal(actual.closing),
        ...(view
          ? {
              categories: [...actual.categories.entries()]
                .map(([key, c]) => ({ key, c, size: c.inflow - c.outflow }))
                .sort(byMagnitude)
                .map(({ key, c }) => ({
                  ...namer.row(key),
                  inflow: centsToDecimal(c.inflow),
                  outflow: centsToDecimal(c.outflow),
                })),
            }
          : {}),
      },
      forecasts,
    });
  }
  const errors = new Map<number, Cents[]>();
  for (const w of out) {
    for (const f of w.forecasts) {
      const list = errors.get(f.horizon) ?? [];
      list.push(toCents(f.closingError));
      errors.set(f.horizon, list);
    }
  }
  const byHorizon = [...errors.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([horizon, es]) => ({
      horizon,
      weeks: es.length,
      meanAbsoluteError: centsToDecimal(
        Math.round(es.reduce((a, e) => a + Math.abs(e), 0) / es.length),
      ),
      bias: centsToDecimal(Math.round(es.reduce((a, e) => a + e, 0) / es.length)),
    }));
  return {
    asOfDate: today,
    keptSince: oldest?.at ?? null,
    weeks: out,
    byHorizon,
    ...(view ? { redactedCategoryCount: namer.redacted } : {}),
  };
}

interface ActualWeek {
  opening: Cents;
  inflow: Cents;
  outflow: Cents;
  closing: Cents;
  /** The week's inflow and outflow by account (NO_ACCOUNT: none); they sum to the totals. */
  categories: CategoryFlows;
}

/** What happened in the `count` completed weeks from `firstWeek`, by week start. */
async function actualWeeks(
  ctx: ServiceContext,
  input: {
    included: readonly string[];
    accountOfCode: ReadonlyMap<string, string>;
    currentCash: string;
    today: string;
    firstWeek: string;
    count: number;
  },
): Promise<Map<string, ActualWeek>> {
  const from = dayNumber(input.firstWeek);
  const todayDay = dayNumber(input.today);
  const movements = await loadBankMovements(
    ctx.db,
    ctx.org.id,
    input.included,
    addDays(input.firstWeek, -1),
  );
  const net = new Map<number, Cents>();
  // Flows by category of each completed week, by the week's offset from firstWeek.
  const weekFlows = new Map<number, CategoryFlows>();
  for (const m of movements) {
    const d = dayNumber(m.date);
    if (d > todayDay) continue;
    const c = toCents(m.amount);
    if (c === 0) continue;
    net.set(d, (net.get(d) ?? 0) + c);
    const k = Math.floor((d - from) / 7);
    if (k < 0 || k >= input.count) continue;
    const flows = weekFlows.get(k) ?? new Map();
    weekFlows.set(k, flows);
    const key = (m.code !== null && input.accountOfCode.get(m.code)) || NO_ACCOUNT;
    addFlow(flows, key, Math.max(c, 0), Math.max(-c, 0));
  }
  // Cash at the end of each day from the day before firstWeek to today.
  const closingOf = new Map<number, Cents>();
  let cashAt = toCents(input.currentCash);
  for (let d = todayDay; d >= from - 1; d--) {
    closingOf.set(d, cashAt);
    cashAt -= net.get(d) ?? 0;
  }
  const out = new Map<string, ActualWeek>();
  for (let k = 0; k < input.count; k++) {
    const start = from + 7 * k;
    const end = start + 6;
    if (end >= todayDay) break;
    const categories: CategoryFlows = weekFlows.get(k) ?? new Map();
    let i = 0;
    let o = 0;
    for (const f of categories.values()) {
      i += f.inflow;
      o += f.outflow;
    }
    out.set(dateOf(start), {
      opening: closingOf.get(start - 1) ?? 0,
      inflow: i,
      outflow: o,
      closing: closingOf.get(end) ?? 0,
      categories,
    });
  }
  return out;
}
