import { sql } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import { randomToken } from "../domain/ids.ts";
import { rowsOf } from "../services/summaries/summary-cache.ts";

/** A `running` claim older than this belongs to a dead instance and may be taken over. */
export const STALE_CLAIM_MS = 15 * 60 * 1000;
/** A failed run is retried on later ticks, at most this many attempts in all. */
export const MAX_ATTEMPTS = 3;

export interface Claim {
  id: string;
  attempts: number;
}

/**
 * Claims (job, runKey) for `instance`: exactly one of several instances asking at once gets
 * it, because the claim is the row of a unique key. A new key is inserted; a failed run past its
 * backoff, or a `running` one older than STALE_CLAIM_MS, is taken over by a conditional update
 * (one statement, so two instances cannot both take it). Succeeded runs are never re-claimed.
 */
export async function claimRun(
  db: Db,
  opts: { job: string; runKey: string; orgId: string | null; instance: string; now: Date },
): Promise<Claim | null> {
  const id = `job_${randomToken()}`;
  const now = opts.now.toISOString();
  const inserted = rowsOf<Claim>(
    await db.execute(sql`
      INSERT INTO job_runs (id, job, run_key, org_id, status, claimed_by, attempts, started_at)
      VALUES (${id}, ${opts.job}, ${opts.runKey}, ${opts.orgId}, 'running', ${opts.instance}, 1, ${now})
      ON CONFLICT (job, run_key) DO NOTHING
      RETURNING id, attempts`),
  )[0];
  if (inserted) return inserted;
  const staleBefore = new Date(opts.now.getTime() - STALE_CLAIM_MS).toISOString();
  const taken = rowsOf<Claim>(
    await db.execute(sql`
      UPDATE job_runs
      SET status = 'running', claimed_by = ${opts.instance}, attempts = attempts + 1,
          started_at = ${now}, finished_at = NULL, error = NULL
      WHERE job = ${opts.job} AND run_key = ${opts.runKey}
        AND attempts < ${MAX_ATTEMPTS}
        AND ((status = 'running' AND started_at < ${staleBefore})
          OR (status = 'failed'
              AND finished_at < ${now}::timestamptz - (power(2, attempts) * interval '1 minute')))
      RETURNING id, attempts`),
  )[0];
  return taken ?? null;
}

/** Records the end of a claimed run (only if this instance still holds the claim). */
export async function finishRun(
  db: Db,
  opts: {
    claim: Claim;
    instance: string;
    now: Date;
    outcome: "succeeded" | "failed";
    error?: string;
    details?: unknown;
  },
): Promise<void> {
  await db.execute(sql`
    UPDATE job_runs
    SET status = ${opts.outcome}, finished_at = ${opts.now.toISOString()},
        error = ${opts.error ?? null},
        details = ${opts.details === undefined ? null : JSON.stringify(opts.details)}::jsonb
    WHERE id = ${opts.claim.id} AND claimed_by = ${opts.instance}`);
}
