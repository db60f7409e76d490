import { sql } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.ts";
import { rowsOf } from "../summaries/summary-cache.ts";
import { localSyncProgress } from "./progress.ts";

/**
 * A `running` sync_runs row whose last sign of life (the progress heartbeat `progress.at`, else
 * `started_at`) is older than this belongs to a process that died: the same lease as a job_runs
 * claim (jobs/job-runs.ts STALE_CLAIM_MS), after which the scheduler takes the claim over.
 */
export const SYNC_RUN_LEASE_MS = 15 * 60 * 1000;

/** The error an interrupted run is reported and finished with. */
export const INTERRUPTED_ERROR = "interrupted: the process running this sync stopped";

/** The last sign of life of a running row. */
function lastBeat(run: { startedAt: Date; progress: unknown }): Date {
  const at = (run.progress as { at?: unknown } | null)?.at;
  const beat = typeof at === "string" ? new Date(at) : undefined;
  return beat && !Number.isNaN(beat.getTime()) && beat > run.startedAt ? beat : run.startedAt;
}

/**
 * Whether a `running` row was left by a dead process: no heartbeat for longer than the lease,
 * and not a sync this process is running (the embedded database has no shared heartbeat).
 */
export function isAbandoned(
  run: { orgId: string; outcome: string; startedAt: Date; progress: unknown },
  now: Date,
): boolean {
  if (run.outcome !== "running") return false;
  if (localSyncProgress(run.orgId)) return false;
  return now.getTime() - lastBeat(run).getTime() > SYNC_RUN_LEASE_MS;
}

/** A run as shown: an abandoned `running` row reads as failed with INTERRUPTED_ERROR. */
export function shownRun<
  R extends {
    orgId: string;
    outcome: "running" | "succeeded" | "failed";
    startedAt: Date;
    progress: unknown;
    error: string | null;
  },
>(run: R, now: Date): R {
  return isAbandoned(run, now) ? { ...run, outcome: "failed", error: INTERRUPTED_ERROR } : run;
}

/**
 * Finishes the organisation's abandoned `running` rows as failed (INTERRUPTED_ERROR), before a
 * new sync starts. One conditional statement: a live run's own final update (under its row lock)
 * wins, and a row with a fresh heartbeat is left alone. Returns how many were finished.
 */
export async function finishAbandonedRuns(db: DbOrTx, orgId: string, now: Date): Promise<number> {
  if (localSyncProgress(orgId)) return 0;
  const before = new Date(now.getTime() - SYNC_RUN_LEASE_MS).toISOString();
  const result = await db.execute(sql`
    UPDATE sync_runs
    SET outcome = 'failed', finished_at = ${now.toISOString()}, error = ${INTERRUPTED_ERROR}
    WHERE org_id = ${orgId} AND outcome = 'running'
      AND started_at < ${before}::timestamptz
      AND coalesce((progress->>'at')::timestamptz, started_at) < ${before}::timestamptz
    RETURNING id`);
  return rowsOf(result).length;
}
