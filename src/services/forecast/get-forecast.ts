import type { z } from "@hono/zod-openapi";
import { sql } from "drizzle-orm";
import { boundedCache } from "../../cache.ts";
import type { alertFields } from "../../contracts/agent/alerts.ts";
import type { ForecastResponseSchema, ForecastWeekSchema } from "../../contracts/agent/forecast.ts";
import { redactWeeks } from "../../domain/forecasting/redact.ts";
import { canSeeSensitive, requireScope, type ServiceContext } from "../context.ts";
import { NotFoundError } from "../errors.ts";
import { keepJson } from "../json-reuse.ts";
import type { ForecastPayload } from "./recompute-forecasts.ts";

/** A week as served: the spec's ForecastWeek (split fields absent on engineVersion 1). */
export type ServedForecastWeek = z.infer<typeof ForecastWeekSchema>;

type ForecastBody = Omit<
  z.infer<typeof ForecastResponseSchema>,
  keyof typeof alertFields | "variance" | "notesForAgent"
>;

/**
 * The spec's ForecastResponse without alerts (the pipeline adds them), notes and variance (the
 * route adds those); the service always names the scenario, which the schema leaves optional.
 */
export type ForecastResponse = ForecastBody &
  Required<Pick<ForecastBody, "scenarioName" | "scenarioKind">>;

/**
 * The inflow split of a stored week, as readers must take it: engineVersion 1 snapshots were
 * written before the split, so their forecastInflow is 0 and all inflow is guaranteed (spec).
 */
export function inflowSplit(
  week: Pick<ServedForecastWeek, "inflow" | "guaranteedInflow" | "forecastInflow">,
  engineVersion: number,
): { guaranteedInflow: string; forecastInflow: string } {
  if (engineVersion < 2 || week.guaranteedInflow === undefined) {
    return { guaranteedInflow: week.inflow, forecastInflow: week.forecastInflow ?? "0" };
  }
  return { guaranteedInflow: week.guaranteedInflow, forecastInflow: week.forecastInflow ?? "0" };
}

/**
 * Parsed payloads by snapshot id, and the weeks as served by snapshot and by what the reader may
 * see (every name, or the names with these sensitive accounts renamed). A snapshot never
 * changes once written, so only the small lookup of the latest snapshot id runs per request;
 * bounds and invalidation: src/cache.ts (`forecastPayloads`, `forecastWeeks`).
 */
const payloadCache = boundedCache<string, ForecastPayload>("forecastPayloads");
const servedCache = boundedCache<
  string,
  { weeks: ServedForecastWeek[]; redactedItemCount: number }
>("forecastWeeks");

interface LatestRow {
  scenarioId: string;
  name: string;
  kind: ForecastResponse["scenarioKind"];
  snapshotId: string | null;
  computedAt: Date | string | null;
  engineVersion: number | null;
  sensitive: string | null;
}

/**
 * `GET /api/agent/forecast`: the latest stored snapshot of a scenario (default: the
 * organisation's BASE). 404 `not_found` when the scenario is not the organisation's (or does not
 * exist) or has no snapshot yet. A composite endpoint: without READ_SENSITIVE, the names in
 * `weeks[].categories.accounts` of sensitive accounts become "Sensitive account" (one count per
 * (week, account) pair in redactedItemCount); amounts, ids and the trajectory are never masked.
 * The `weeks` returned are shared between requests and frozen: read them, never change them.
 */
export async function getForecast({
  ctx,
  scenarioId,
}: {
  ctx: ServiceContext;
  scenarioId?: string | undefined;
}): Promise<ForecastResponse> {
  requireScope(ctx, "READ_FORECAST");
  const orgId = ctx.org.id;
  const wanted = scenarioId ?? null;
  // No scenario id holds a NUL, and PostgreSQL text cannot carry one to compare.
  if (wanted?.includes("\u0000")) throw new NotFoundError("scenario");
  const result = await ctx.db.execute(sql`
    SELECT sc.id AS "scenarioId", sc.name, sc.kind,
           s.id AS "snapshotId", s.computed_at AS "computedAt", s.engine_version AS "engineVersion",
           (SELECT string_agg(la.id, ',' ORDER BY la.id) FROM ledger_accounts la
             WHERE la.org_id = ${orgId} AND la.is_sensitive) AS sensitive
    FROM forecast_scenarios sc
    LEFT JOIN LATERAL (
      SELECT id, computed_at, engine_version FROM forecast_snapshots
      WHERE org_id = ${orgId} AND scenario_id = sc.id
      ORDER BY computed_at DESC, id DESC LIMIT 1
    ) s ON true
    WHERE sc.org_id = ${orgId}
      AND (CASE WHEN ${wanted}::text IS NULL THEN sc.kind = 'BASE' ELSE sc.id = ${wanted}::text END)
    LIMIT 1`);
  const row = (result as unknown as { rows: LatestRow[] }).rows[0];
  if (!row) throw new NotFoundError("scenario");
  if (!row.snapshotId || row.computedAt === null) throw new NotFoundError("forecast snapshot");
  let payload = payloadCache.get(row.snapshotId);
  if (!payload) {
    const read = await ctx.db.execute(sql`
      SELECT payload FROM forecast_snapshots WHERE org_id = ${orgId} AND id = ${row.snapshotId}`);
    const stored = (read as unknown as { rows: { payload: ForecastPayload | string }[] }).rows[0];
    if (!stored) throw new NotFoundError("forecast snapshot");
    payload =
      typeof stored.payload === "string"
        ? (JSON.parse(stored.payload) as ForecastPayload)
        : stored.payload;
    payloadCache.set(row.snapshotId, payload);
  }
  const seesAll = canSeeSensitive(ctx);
  // The sensitive accounts are read with the snapshot: a change of flags is a new redaction.
  const servedKey = `${row.snapshotId}\u0000${seesAll ? "*" : (row.sensitive ?? "")}`;
  let served = servedCache.get(servedKey);
  if (!served) {
    const sensitive = new Set(row.sensitive ? row.sensitive.split(",") : []);
    const redacted = seesAll
      ? { weeks: [...(payload.weeks as ServedForecastWeek[])], redactedItemCount: 0 }
      : redactWeeks(payload.weeks as ServedForecastWeek[], sensitive);
    served = { weeks: keepJson(redacted.weeks), redactedItemCount: redacted.redactedItemCount };
    servedCache.set(servedKey, served);
  }
  const { weeks, redactedItemCount } = served;
  const computedAt = row.computedAt instanceof Date ? row.computedAt : new Date(row.computedAt);
  return {
    scenarioId: row.scenarioId,
    scenarioName: row.name,
    scenarioKind: row.kind,
    computedAt: computedAt.toISOString(),
    weeks,
    startingCash: payload.startingCash,
    endingCash: payload.endingCash,
    ...(payload.minClosingCash !== undefined ? { minClosingCash: payload.minClosingCash } : {}),
    ...(payload.minClosingCashWeekIndex !== undefined
      ? { minClosingCashWeekIndex: payload.minClosingCashWeekIndex }
      : {}),
    ...(payload.totalInflow !== undefined ? { totalInflow: payload.totalInflow } : {}),
    ...(payload.totalOutflow !== undefined ? { totalOutflow: payload.totalOutflow } : {}),
    ...(payload.closingInterval !== undefined ? { closingInterval: payload.closingInterval } : {}),
    redactedItemCount,
  };
}
