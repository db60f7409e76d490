import { sql } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import { pruneLedgerCallSlots } from "../services/ledger/shared-limits.ts";
import { rowsOf } from "../services/summaries/summary-cache.ts";
import type { ClaimedOutcome, ClaimedRunner } from "./job-runs.ts";

/**
 * Finished job_runs are kept this long. A claim's key names its day or its sync slot, so a row
 * older than this can never be claimed again: deleting it cannot make work run twice.
 */
export const JOB_RUNS_RETENTION_DAYS = 14;

export interface PruneReport {
  jobRuns: number;
  ledgerCallSlots: number;
}

/** Deletes finished job_runs older than the retention (running claims are never touched). */
export async function pruneJobRuns(db: Db, now: Date): Promise<number> {
  const before = new Date(now.getTime() - JOB_RUNS_RETENTION_DAYS * 86_400_000).toISOString();
  const deleted = rowsOf<{ id: string }>(
    await db.execute(sql`
      DELETE FROM job_runs
      WHERE status IN ('succeeded', 'failed') AND finished_at < ${before}
      RETURNING id`),
  );
  return deleted.length;
}

/**
 * The daily housekeeping of the scheduler, claimed as (`prune`, `<UTC date>`) so one instance
 * runs it a day: job_runs past their retention (48 ledger-sync rows per connected organisation
 * a day at the default schedule, plus the daily jobs) and ledger call rows older than two days.
 * Returns undefined when another instance holds the claim; a failure is recorded and logged by
 * the scheduler's `claimed` runner (job-runs.ts).
 */
export function runDailyPrune(input: {
  db: Db;
  now: Date;
  claimed: ClaimedRunner;
}): Promise<ClaimedOutcome<PruneReport> | undefined> {
  const { db, now } = input;
  return input.claimed(
    {
      name: "prune",
      runKey: now.toISOString().slice(0, 10),
      orgId: null,
      now,
      failed: "prune failed",
    },
    async (): Promise<PruneReport> => ({
      jobRuns: await pruneJobRuns(db, now),
      ledgerCallSlots: await pruneLedgerCallSlots(db, now),
    }),
    (report) => report,
  );
}
