import { sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { NotFoundError } from "../errors.ts";
import type { ForecastDetail, ForecastPayload } from "./recompute-forecasts.ts";

/** One week of a stored snapshot with every line behind it. */
export interface WeekExplanation {
  scenarioId: string;
  scenarioName: string;
  computedAt: string;
  week: ForecastPayload["weeks"][number];
  lines: ForecastDetail["lines"];
  /** Customers and suppliers behind the week's predicted lines, largest first. */
  predicted: {
    contactId: string;
    direction: "in" | "out";
    amount: string;
    expectedOrders: string;
  }[];
  /** Run rates behind the week's predicted lines. */
  runRates: { kind: string; direction: "in" | "out"; amount: string }[];
  /** Timing learned from the organisation's history, with its evidence. */
  learned: NonNullable<ForecastDetail["learned"]>;
}

/**
 * The lines behind week `week` (1 to 13) of the latest snapshot of a scenario (default BASE):
 * the operator's view of "every number in a week is explainable from its itemIds".
 */
export async function explainForecastWeek(
  db: Db,
  input: { orgId: string; scenarioId?: string; week: number },
): Promise<WeekExplanation> {
  const wanted = input.scenarioId ?? null;
  const result = await db.execute(sql`
    SELECT sc.id AS "scenarioId", sc.name, s.computed_at AS "computedAt", s.payload, s.detail
    FROM forecast_scenarios sc
    JOIN LATERAL (
      SELECT computed_at, payload, detail FROM forecast_snapshots
      WHERE org_id = ${input.orgId} AND scenario_id = sc.id ORDER BY computed_at DESC, id DESC LIMIT 1
    ) s ON true
    WHERE sc.org_id = ${input.orgId}
      AND (CASE WHEN ${wanted}::text IS NULL THEN sc.kind = 'BASE' ELSE sc.id = ${wanted}::text END)`);
  const row = (
    result as unknown as {
      rows: {
        scenarioId: string;
        name: string;
        computedAt: Date | string;
        payload: ForecastPayload;
        detail: ForecastDetail | null;
      }[];
    }
  ).rows[0];
  if (!row) throw new NotFoundError("forecast snapshot");
  const index = input.week - 1;
  const week = row.payload.weeks[index];
  if (!week) throw new NotFoundError("week");
  const detail = row.detail;
  const predicted = (detail?.predictions ?? [])
    .map((p) => ({
      contactId: p.contactId,
      direction: p.direction,
      amount: p.amounts[index] ?? "0",
      expectedOrders: p.expectedOrders[index] ?? "0",
    }))
    .filter((p) => p.amount !== "0")
    .sort((a, b) => Number(b.amount) - Number(a.amount) || (a.contactId < b.contactId ? -1 : 1));
  return {
    scenarioId: row.scenarioId,
    scenarioName: row.name,
    computedAt: new Date(row.computedAt).toISOString(),
    week,
    lines: (detail?.lines ?? []).filter((l) => l.weekIndex === index),
    predicted,
    runRates: (detail?.runRates ?? [])
      .map((r) => ({ kind: r.kind, direction: r.direction, amount: r.amounts[index] ?? "0" }))
      .filter((r) => r.amount !== "0"),
    learned: detail?.learned ?? { purchaseOrderLags: [] },
  };
}
