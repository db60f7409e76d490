import { sql } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.ts";
import type { ForecastLine } from "../../domain/forecasting/types.ts";
import type { ForecastDetail } from "./recompute-forecasts.ts";

/**
 * How a snapshot's `detail` is stored (ADR 0006). Format 1 (snapshots before it): the
 * `ForecastDetail` itself. Format 2: `format: 2`, each line as an array of its fields in
 * `LINE_FIELDS` order (absent optional fields as null), and the predictions either inline or,
 * when every scenario of the recompute has the same ones, once per recompute in
 * `forecast_predictions` (the snapshot's `predictions_id`). The bench organisation's details
 * went from about 26 MB of JSON per recompute to less than half (docs/benchmarks.md, stop 13).
 */
export interface StoredDetailV2 extends Omit<ForecastDetail, "lines" | "predictions"> {
  format: 2;
  lines: (string | number | boolean | null)[][];
  /** Absent when the snapshot's `predictions_id` names the recompute's shared predictions. */
  predictions?: ForecastDetail["predictions"];
}

/**
 * A line's fields in the order PostgreSQL's jsonb keeps an object's keys (shorter keys first,
 * then bytewise), so a decoded line is the same object, key for key and in the same order, as a
 * format-1 line read back from jsonb. `optional`: absent from the line when null.
 */
const LINE_FIELDS: readonly { key: keyof ForecastLine; optional: boolean }[] = [
  { key: "date", optional: false },
  { key: "note", optional: true },
  { key: "amount", optional: false },
  { key: "itemId", optional: false },
  { key: "source", optional: false },
  { key: "weight", optional: true },
  { key: "overdue", optional: true },
  { key: "accountId", optional: false },
  { key: "contactId", optional: false },
  { key: "direction", optional: false },
  { key: "weekIndex", optional: false },
  { key: "fullAmount", optional: false },
];

/** The stored form of a detail; `shared`: its predictions are stored once per recompute. */
export function encodeDetail(detail: ForecastDetail, shared: boolean): StoredDetailV2 {
  const { lines, predictions, ...rest } = detail;
  return {
    format: 2,
    ...rest,
    lines: lines.map((l) => LINE_FIELDS.map((f) => l[f.key] ?? null)),
    ...(shared ? {} : { predictions }),
  };
}

/**
 * A stored detail as `ForecastDetail` (either format); `shared`: the recompute's predictions
 * when the snapshot names them.
 */
export function decodeDetail(
  stored: unknown,
  shared: ForecastDetail["predictions"] | null,
): ForecastDetail | null {
  if (stored === null || stored === undefined) return null;
  const value = (typeof stored === "string" ? JSON.parse(stored) : stored) as
    | ForecastDetail
    | StoredDetailV2;
  if (!("format" in value) || value.format !== 2) return value as ForecastDetail;
  const { format: _format, lines, predictions, ...rest } = value;
  return {
    ...rest,
    lines: lines.map((tuple) => {
      const line: Record<string, unknown> = {};
      LINE_FIELDS.forEach((f, i) => {
        const v = tuple[i] ?? null;
        if (!(f.optional && v === null)) line[f.key] = v;
      });
      return line as unknown as ForecastLine;
    }),
    predictions: predictions ?? shared ?? [],
  };
}

/** Snapshots' payloads and details as `ForecastDetail`, by snapshot id (the bench's digest). */
export async function readSnapshots(
  db: DbOrTx,
  ids: readonly string[],
): Promise<Map<string, { payload: unknown; detail: ForecastDetail | null }>> {
  const out = new Map<string, { payload: unknown; detail: ForecastDetail | null }>();
  if (ids.length === 0) return out;
  const result = (await db.execute(sql`
    SELECT s.id, s.payload, s.detail, p.predictions
    FROM forecast_snapshots s
    LEFT JOIN forecast_predictions p ON p.id = s.predictions_id
    WHERE s.id IN (${sql.join(
      ids.map((id) => sql`${id}`),
      sql`, `,
    )})`)) as unknown as {
    rows: { id: string; payload: unknown; detail: unknown; predictions: unknown }[];
  };
  for (const r of result.rows) {
    out.set(r.id, {
      payload: r.payload,
      detail: decodeDetail(r.detail, r.predictions as ForecastDetail["predictions"] | null),
    });
  }
  return out;
}
