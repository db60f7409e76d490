import { sql } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.ts";

/** Rows of a raw query, the same `{ rows }` shape on both drivers. */
export function rowsOf<T>(result: unknown): T[] {
  return (result as { rows: T[] }).rows;
}

/**
 * The organisation's data version, as SQL: what a cached summary was computed from. It changes
 * with every successful import (the latest succeeded sync run, whose id is unique even when two
 * imports share an instant) and every baseline run (its time, in microseconds). NULL when the
 * organisation has never imported: its rows were written some other way (tests, tooling), so
 * nothing proves a cached answer still holds and summaries are computed live.
 */
function versionSql(orgId: string) {
  return sql`(SELECT s.id FROM sync_runs s
               WHERE s.org_id = ${orgId} AND s.outcome = 'succeeded'
               ORDER BY s.started_at DESC, s.id DESC LIMIT 1)
             || '|' || coalesce((SELECT (extract(epoch FROM b.computed_at) * 1000000)::bigint::text
                                 FROM org_baselines b WHERE b.org_id = ${orgId}), 'none')`;
}

/** The organisation's data version (see `versionSql`), or null before any import. */
export async function dataVersion(db: DbOrTx, orgId: string): Promise<string | null> {
  const r = await db.execute(sql`SELECT ${versionSql(orgId)} AS version`);
  return rowsOf<{ version: string | null }>(r)[0]?.version ?? null;
}

/** Cached rows kept per organisation and kind; older ones are dropped on write. */
const KEPT_PER_KIND = 50;

/**
 * Returns the cached payload of (org, kind, key) when it was computed at the organisation's
 * current data version, otherwise computes it, stores it (unless the organisation has no
 * version) and returns it. Two requests missing at once both compute; the later write wins,
 * with the same content.
 */
export async function cached<T>(
  db: DbOrTx,
  opts: { orgId: string; kind: string; key: string; now: Date },
  compute: () => Promise<T>,
): Promise<T> {
  const { orgId, kind, key } = opts;
  // The version and the row of that version, in one round trip.
  const row = rowsOf<{ version: string | null; payload: T | string | null }>(
    await db.execute(sql`
      SELECT v.version, c.payload
      FROM (SELECT ${versionSql(orgId)} AS version) v
      LEFT JOIN summary_cache c
        ON c.org_id = ${orgId} AND c.kind = ${kind} AND c.cache_key = ${key}
       AND c.data_version = v.version`),
  )[0];
  const version = row?.version ?? null;
  if (version !== null && row?.payload != null) {
    return typeof row.payload === "string" ? (JSON.parse(row.payload) as T) : row.payload;
  }
  const value = await compute();
  if (version !== null) {
    await db.execute(sql`
      INSERT INTO summary_cache (org_id, kind, cache_key, data_version, computed_at, payload)
      VALUES (${orgId}, ${kind}, ${key}, ${version}, ${opts.now.toISOString()},
              ${JSON.stringify(value)}::jsonb)
      ON CONFLICT (org_id, kind, cache_key) DO UPDATE
        SET data_version = excluded.data_version, computed_at = excluded.computed_at,
            payload = excluded.payload`);
    // Rows of older versions can never be hit again; keep the table small.
    await db.execute(sql`
      DELETE FROM summary_cache
      WHERE org_id = ${orgId} AND kind = ${kind}
        AND (data_version <> ${version} OR cache_key IN (
          SELECT cache_key FROM summary_cache
          WHERE org_id = ${orgId} AND kind = ${kind}
          ORDER BY computed_at DESC OFFSET ${KEPT_PER_KIND}))`);
  }
  return value;
}
