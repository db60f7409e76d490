import type { z } from "@hono/zod-openapi";
import { sql } from "drizzle-orm";
import { boundedCache } from "../../cache.ts";
import type { ForecastVarianceSchema } from "../../contracts/agent/forecast.ts";
import type { DbOrTx } from "../../db/client.ts";
import { forecastHistory } from "../../db/schema/index.ts";
import { type Cents, centsToDecimal, toCents } from "../../domain/forecasting/cents.ts";
import { addDays, dateOf, dayNumber, mondayOnOrBefore } from "../../domain/forecasting/dates.ts";
import { money, sum } from "../../domain/money.ts";
import { localDate } from "../../domain/timezones.ts";
import { requireScope, type ServiceContext } from "../context.ts";
import { dataVersion } from "../summaries/summary-cache.ts";
import { loadBankMovements } from "./backtest.ts";
import { loadCash } from "./load-forecast-input.ts";
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
}

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

/**
 * The track record of the organisation's BASE forecast over the last `weeks` completed weeks:
 * for each, the actual opening, inflow, outflow and closing cash of the included bank accounts
 * (today's cash walked back through every movement since, as the backtest does; an operator
 * override is not used) and each kept forecast of it, by horizon. Horizon h is the first
 * forecast kept in the week h − 1 weeks before it (horizon 1: made during the week itself).
 */
export async function getForecastVariance({
  ctx,
  weeks = VARIANCE_WEEKS,
}: {
  ctx: ServiceContext;
  weeks?: number;
}): Promise<ForecastVariance> {
  requireScope(ctx, "READ_FORECAST");
  const count = Math.max(1, Math.min(MAX_VARIANCE_WEEKS, Math.floor(weeks)));
  const version = await varianceVersion(ctx.db, ctx.org.id);
  // Without a data version (never imported) the rows may change unseen: never reuse.
  if (version === null) return computeVariance(ctx, count);
  const key = `${ctx.org.id}|${localDate(ctx.now, ctx.org.timezone)}|${count}|${version}`;
  const hit = varianceCache.get(key);
  if (hit) return hit;
  const pending = computeVariance(ctx, count);
  varianceCache.set(key, pending);
  pending.catch(() => varianceCache.delete(key));
  return pending;
}

/**
 * Variances per (organisation, local day, weeks, version): the version moves with every import
 * (data version), every kept forecast (the latest computedAt and the number of kept days) and every
 * listed write (the data epoch), so a stale entry is never hit and ages out. Bound: src/cache.ts
 * (`forecastVariance`).
 */
const varianceCache = boundedCache<string, Promise<ForecastVariance>>("forecastVariance");

/** What a variance was computed from (see `varianceCache`), or null before any import. */
async function varianceVersion(db: DbOrTx, orgId: string): Promise<string | null> {
  const data = await dataVersion(db, orgId);
  if (data === null) return null;
  const [row] = rows<{ recomputed: string | null; epoch: string | number | null }>(
    await db.execute(sql`
      SELECT (SELECT max(computed_at)::text || '/' || count(*) FROM forecast_history
               WHERE org_id = ${orgId}) AS recomputed,
             (SELECT epoch FROM org_data_epochs WHERE org_id = ${orgId}) AS epoch`),
  );
  return `${data}|${row?.recomputed ?? "none"}|${row?.epoch ?? 0}`;
}

async function computeVariance(ctx: ServiceContext, count: number): Promise<ForecastVariance> {
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
  const byWeek = new Map<string, PastForecast[]>();
  const actualOf = await actualWeeks(ctx, {
    included,
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
  return { asOfDate: today, keptSince: oldest?.at ?? null, weeks: out, byHorizon };
}

interface ActualWeek {
  opening: Cents;
  inflow: Cents;
  outflow: Cents;
  closing: Cents;
}

/** What happened in the `count` completed weeks from `firstWeek`, by week start. */
async function actualWeeks(
  ctx: ServiceContext,
  input: {
    included: readonly string[];
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
  const inflow = new Map<number, Cents>();
  const outflow = new Map<number, Cents>();
  const net = new Map<number, Cents>();
  for (const m of movements) {
    const d = dayNumber(m.date);
    if (d > todayDay) continue;
    const c = toCents(m.amount);
    net.set(d, (net.get(d) ?? 0) + c);
    if (c >= 0) inflow.set(d, (inflow.get(d) ?? 0) + c);
    else outflow.set(d, (outflow.get(d) ?? 0) - c);
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
    let i = 0;
    let o = 0;
    for (let d = start; d <= end; d++) {
      i += inflow.get(d) ?? 0;
      o += outflow.get(d) ?? 0;
    }
    out.set(dateOf(start), {
      opening: closingOf.get(start - 1) ?? 0,
      inflow: i,
      outflow: o,
      closing: closingOf.get(end) ?? 0,
    });
  }
  return out;
}
