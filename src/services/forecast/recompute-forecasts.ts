import { eq, sql } from "drizzle-orm";
import type { Db, DbOrTx } from "../../db/client.ts";
import { forecastPredictions, forecastSnapshots, organisations } from "../../db/schema/index.ts";
import { DEFAULT_ORIGINS } from "../../domain/forecasting/backtest.ts";
import { centsToDecimal } from "../../domain/forecasting/cents.ts";
import { computeForecast } from "../../domain/forecasting/compute-forecast.ts";
import {
  type ClosingInterval,
  closingBands,
  INTERVAL_LEVEL,
  INTERVAL_METHOD,
} from "../../domain/forecasting/intervals.ts";
import { type LearnedParameters, learnedParameters } from "../../domain/forecasting/learned.ts";
import type { ForecastResult, ForecastWeek } from "../../domain/forecasting/types.ts";
import { randomToken } from "../../domain/ids.ts";
import { localDate } from "../../domain/timezones.ts";
import { NotFoundError } from "../errors.ts";
import { backtestOrganisation, latestBacktest } from "./backtest.ts";
import { fitForecastInput, type Reuse } from "./fit-forecast-input.ts";
import { recordForecastHistory } from "./history.ts";
import { ensureStandardScenarios, listScenarios } from "./scenarios.ts";
import { encodeDetail } from "./snapshot-detail.ts";

/** Snapshots kept per scenario; older ones are pruned at each recompute. */
export const SNAPSHOTS_KEPT = 5;

/** What a snapshot's `payload` holds: the engine's answer as served, before redaction. */
export interface ForecastPayload {
  startingCash: string;
  endingCash: string;
  minClosingCash: string;
  minClosingCashWeekIndex: number;
  totalInflow: string;
  totalOutflow: string;
  weeks: (ForecastWeek & { closingLow?: string; closingHigh?: string })[];
  /** The band's calibration (absent on snapshots written before intervals). */
  closingInterval?: ClosingInterval;
}

/**
 * What a snapshot's `detail` says: the lines behind every week, never served (stored as
 * snapshot-detail.ts encodes it; read back through `decodeDetail`).
 */
export interface ForecastDetail {
  lines: ForecastResult["lines"];
  predictions: ForecastResult["predictions"];
  runRates: ForecastResult["runRates"];
  excluded: ForecastResult["excluded"];
  startingCash: {
    ledgerReconciledTotal: string;
    adjustment: string;
    override: string | null;
    source: "manual" | "ledger_reconciled";
  };
  /** Timing learned from the organisation's history, with its evidence (absent on older snapshots). */
  learned?: LearnedParameters;
  recurring: {
    id: string;
    kind: string;
    contactName: string | null;
    cadence: string;
    amount: string;
    lastDate: string;
  }[];
}

/** One stored snapshot of a recompute. */
export interface RecomputedSnapshot {
  snapshotId: string;
  scenarioId: string;
  kind: string;
  name: string;
  endingCash: string;
  minClosingCash: string;
}

/**
 * Recomputes every scenario of an organisation from the projection as it is now and stores one
 * snapshot per scenario (engineVersion 2, computedAt = `now`, or 1 ms after the organisation's
 * latest snapshot when that is not earlier), pruning all but the latest
 * SNAPSHOTS_KEPT of each. The BASE, BEST and WORST scenarios are created when missing. The
 * scenario-independent fitting (recurring streams, customer cadences) runs once, and is kept
 * with the books' rows while the organisation's data epoch stands (fit-forecast-input.ts).
 */
export async function recomputeForecasts(
  db: Db,
  input: { orgId: string; now: Date; syncRunId?: string },
): Promise<{
  asOfDate: string;
  snapshots: RecomputedSnapshot[];
  /** What of the organisation's kept books this recompute reused (fit-forecast-input.ts). */
  reuse: Reuse;
  timings: Record<string, number>;
}> {
  const t0 = performance.now();
  const [org] = await db
    .select({
      id: organisations.id,
      baseCurrency: organisations.baseCurrency,
      timezone: organisations.timezone,
    })
    .from(organisations)
    .where(eq(organisations.id, input.orgId));
  if (!org) throw new NotFoundError("organisation");
  await ensureStandardScenarios(db, org.id, input.now);
  const scenarios = await listScenarios(db, org.id);
  // The books and model are kept while the organisation's data epoch stands (ADR 0008).
  const { input: engineInput, model, cash, reuse } = await fitForecastInput(db, org, input.now);
  const backtest = await latestBacktest(db, org.id);
  const residuals = backtest?.result.residuals ?? null;
  const t2 = performance.now();
  const rows: (typeof forecastSnapshots.$inferInsert)[] = [];
  const snapshots: RecomputedSnapshot[] = [];
  const results = scenarios.map((scenario) => ({
    scenario,
    result: computeForecast(
      {
        ...engineInput,
        scenario: {
          id: scenario.id,
          name: scenario.name,
          kind: scenario.kind,
          assumptions: scenario.assumptions,
        },
      },
      model,
    ),
  }));
  // The predictions do not depend on the scenario (the model's, compute-forecast.ts): when every
  // scenario has the same ones, they are stored once for the recompute.
  const first = results[0]?.result.predictions ?? [];
  const shared =
    results.length > 1 &&
    results.every(
      ({ result: r }) =>
        r.predictions.length === first.length && r.predictions.every((p, i) => p === first[i]),
    );
  const predictionsId = shared ? `fpr_${randomToken()}` : null;
  for (const { scenario, result } of results) {
    const bands = closingBands(result.weeks, residuals);
    const banded = bands.filter((b) => b.low !== null).length;
    const payload: ForecastPayload = {
      startingCash: result.startingCash,
      endingCash: result.endingCash,
      minClosingCash: result.minClosingCash,
      minClosingCashWeekIndex: result.minClosingCashWeekIndex,
      totalInflow: result.totalInflow,
      totalOutflow: result.totalOutflow,
      weeks: result.weeks.map((w, i) => {
        const b = bands[i];
        return b?.low != null && b.high != null
          ? { ...w, closingLow: b.low, closingHigh: b.high }
          : w;
      }),
      closingInterval: {
        level: INTERVAL_LEVEL,
        method: INTERVAL_METHOD,
        status:
          banded === result.weeks.length
            ? "calibrated"
            : banded === 0
              ? "insufficient_history"
              : "partial",
        calibratedOn: backtest?.asOfDate ?? null,
        residualCounts: result.weeks.map((_, i) => residuals?.[i + 1]?.length ?? 0),
      },
    };
    const detail: ForecastDetail = {
      lines: result.lines,
      predictions: result.predictions,
      runRates: result.runRates,
      excluded: result.excluded,
      startingCash: {
        ledgerReconciledTotal: cash.ledgerReconciledTotal,
        adjustment: cash.adjustment,
        override: cash.override?.amount ?? null,
        source: cash.source,
      },
      learned: learnedParameters(model, result),
      recurring: model.streams.map((s) => ({
        id: s.id,
        kind: s.kind,
        contactName: s.contactName,
        cadence: s.cadence.name,
        amount: centsToDecimal(s.amount),
        lastDate: s.lastDate,
      })),
    };
    const id = `fcs_${randomToken()}`;
    rows.push({
      id,
      orgId: org.id,
      scenarioId: scenario.id,
      engineVersion: result.engineVersion,
      computedAt: input.now,
      asOfDate: result.asOfDate,
      startingCash: result.startingCash,
      payload,
      detail: encodeDetail(detail, shared),
      predictionsId,
      syncRunId: input.syncRunId ?? null,
    });
    snapshots.push({
      snapshotId: id,
      scenarioId: scenario.id,
      kind: scenario.kind,
      name: scenario.name,
      endingCash: result.endingCash,
      minClosingCash: result.minClosingCash,
    });
  }
  const t3 = performance.now();
  await db.transaction(async (tx) => {
    // Concurrent recomputes of one organisation store one after the other.
    await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`forecast:${org.id}`}))`);
    // The latest snapshot is the one with the latest computedAt: two recomputes at the same
    // instant (a fixed clock, a fast CLI) must still order, so a new one is never older.
    const [latest] = (
      (await tx.execute(sql`
        SELECT max(computed_at) AS at FROM forecast_snapshots WHERE org_id = ${org.id}`)) as unknown as {
        rows: { at: Date | string | null }[];
      }
    ).rows;
    const last = latest?.at ? new Date(latest.at).getTime() : Number.NEGATIVE_INFINITY;
    const computedAt = new Date(Math.max(input.now.getTime(), last + 1));
    if (predictionsId !== null) {
      await tx
        .insert(forecastPredictions)
        .values({ id: predictionsId, orgId: org.id, computedAt, predictions: first });
    }
    for (const row of rows) await tx.insert(forecastSnapshots).values({ ...row, computedAt });
    await pruneSnapshots(tx, org.id);
    // The track record keeps the day's BASE forecast (src/services/forecast/history.ts).
    const base = rows.find((_, i) => snapshots[i]?.kind === "BASE");
    if (base?.asOfDate) {
      await recordForecastHistory(tx, {
        orgId: org.id,
        asOfDate: base.asOfDate,
        scenarioId: base.scenarioId,
        computedAt,
        startingCash: base.startingCash,
        weeks: (base.payload as ForecastPayload).weeks,
      });
    }
  });
  const t4 = performance.now();
  return {
    asOfDate: rows[0]?.asOfDate ?? "",
    snapshots,
    reuse,
    timings: { fitMs: t2 - t0, scenariosMs: t3 - t2, storeMs: t4 - t3 },
  };
}

async function pruneSnapshots(db: DbOrTx, orgId: string): Promise<void> {
  await db.execute(sql`
    DELETE FROM forecast_snapshots
    WHERE org_id = ${orgId} AND id IN (
      SELECT id FROM (
        SELECT id, row_number() OVER (PARTITION BY scenario_id ORDER BY computed_at DESC, id DESC) AS n
        FROM forecast_snapshots WHERE org_id = ${orgId}
      ) ranked WHERE n > ${SNAPSHOTS_KEPT})`);
  await db.execute(sql`
    DELETE FROM forecast_predictions p
    WHERE p.org_id = ${orgId} AND NOT EXISTS (
      SELECT 1 FROM forecast_snapshots s WHERE s.org_id = ${orgId} AND s.predictions_id = p.id)`);
}

/**
 * The daily recompute: every organisation with a successful import whose latest BASE snapshot
 * was made on an earlier local day than `now` (or that has none) is recomputed, so week 1 always
 * holds today (and, from a local Monday on, starts on that Monday); then its backtest is run and
 * stored when the stored one is from an earlier day (an import that recomputed the forecast
 * first does not skip it). `orgIds` limits it to those
 * organisations (the scheduler passes one at a time). Failures are reported per organisation,
 * never thrown, so one organisation's failure does not stop the others.
 */
export async function recomputeStaleForecasts(
  db: Db,
  input: { now: Date; orgIds?: readonly string[] },
): Promise<{ orgId: string; ok: boolean; error?: string; backtestError?: string }[]> {
  if (input.orgIds && input.orgIds.length === 0) return [];
  const only = input.orgIds
    ? sql`AND o.id IN (${sql.join(
        input.orgIds.map((id) => sql`${id}`),
        sql`, `,
      )})`
    : sql``;
  const rows = (
    (await db.execute(sql`
      SELECT o.id, o.timezone,
             (SELECT max(s.as_of_date)::text FROM forecast_snapshots s
               JOIN forecast_scenarios sc ON sc.id = s.scenario_id AND sc.kind = 'BASE'
               WHERE s.org_id = o.id) AS "asOf",
             (SELECT b.as_of_date::text FROM forecast_backtests b WHERE b.org_id = o.id) AS "backtestAsOf"
      FROM organisations o
      JOIN ledger_connections c ON c.org_id = o.id AND c.last_successful_sync_at IS NOT NULL
      WHERE true ${only}
      ORDER BY o.id`)) as unknown as {
      rows: { id: string; timezone: string; asOf: string | null; backtestAsOf: string | null }[];
    }
  ).rows;
  const out: { orgId: string; ok: boolean; error?: string; backtestError?: string }[] = [];
  for (const r of rows) {
    const today = localDate(input.now, r.timezone);
    const forecastStale = r.asOf === null || r.asOf < today;
    if (!forecastStale && r.backtestAsOf !== null && r.backtestAsOf >= today) continue;
    if (forecastStale) {
      try {
        await recomputeForecasts(db, { orgId: r.id, now: input.now });
      } catch (e) {
        out.push({ orgId: r.id, ok: false, error: e instanceof Error ? e.message : String(e) });
        continue;
      }
    }
    // The day's backtest (its failure leaves the forecast served and the previous result kept).
    try {
      await backtestOrganisation(db, { orgId: r.id, now: input.now, origins: DEFAULT_ORIGINS });
      out.push({ orgId: r.id, ok: true });
    } catch (e) {
      out.push({
        orgId: r.id,
        ok: true,
        backtestError: e instanceof Error ? e.message : String(e),
      });
    }
  }
  return out;
}
