import { sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { randomToken } from "../../domain/ids.ts";
import { rowsOf } from "../summaries/summary-cache.ts";
import { SYNC_RUN_LEASE_MS } from "./abandoned-runs.ts";

/*
 * Webhook-requested syncs, queued durably in job_runs as (`ledger-webhook`, `<orgId>`): one row
 * per organisation, `queued` until an instance claims it (the process that received the webhook
 * at once, or any scheduler tick later, e.g. after a restart). The claim is one conditional
 * update, so exactly one instance runs it.
 */

const JOB = "ledger-webhook";

/** Queues an incremental sync of `orgId` (committed before the webhook is answered). */
export async function queueLedgerSync(db: Db, orgId: string, now: Date): Promise<void> {
  // A row already queued stays; a finished or running one is queued again (events that arrive
  // during a sync get a sync after it: the running instance's finish no longer matches).
  await db.execute(sql`
    INSERT INTO job_runs (id, job, run_key, org_id, status, claimed_by, attempts, started_at)
    VALUES (${`job_${randomToken()}`}, ${JOB}, ${orgId}, ${orgId}, 'queued', '', 0, ${now.toISOString()})
    ON CONFLICT (job, run_key) DO UPDATE
      SET status = 'queued', claimed_by = '', started_at = EXCLUDED.started_at,
          finished_at = NULL, error = NULL
      WHERE job_runs.status <> 'queued'`);
}

export interface QueuedSyncClaim {
  id: string;
  orgId: string;
}

/**
 * Claims the queued syncs (of `orgIds` only, when given) for `instance`, and running ones whose
 * instance died (older than the lease). Each row goes to exactly one instance.
 */
export async function claimQueuedSyncs(
  db: Db,
  opts: { instance: string; now: Date; orgIds?: readonly string[] },
): Promise<QueuedSyncClaim[]> {
  const staleBefore = new Date(opts.now.getTime() - SYNC_RUN_LEASE_MS).toISOString();
  const only = opts.orgIds
    ? sql`AND org_id IN (${sql.join(
        opts.orgIds.map((id) => sql`${id}`),
        sql`, `,
      )})`
    : sql``;
  if (opts.orgIds && opts.orgIds.length === 0) return [];
  return rowsOf<{ id: string; org_id: string }>(
    await db.execute(sql`
      UPDATE job_runs
      SET status = 'running', claimed_by = ${opts.instance}, attempts = attempts + 1,
          started_at = ${opts.now.toISOString()}
      WHERE job = ${JOB} ${only}
        AND (status = 'queued' OR (status = 'running' AND started_at < ${staleBefore}::timestamptz))
      RETURNING id, org_id`),
  ).map((r) => ({ id: r.id, orgId: r.org_id }));
}

/** Records the end of a claimed queued sync (only if `instance` still holds it). */
export async function finishQueuedSync(
  db: Db,
  opts: { claim: QueuedSyncClaim; instance: string; now: Date; error?: string },
): Promise<void> {
  await db.execute(sql`
    UPDATE job_runs
    SET status = ${opts.error ? "failed" : "succeeded"}, finished_at = ${opts.now.toISOString()},
        error = ${opts.error ?? null}
    WHERE id = ${opts.claim.id} AND claimed_by = ${opts.instance} AND status = 'running'`);
}

/**
 * Runs the queued syncs this instance can claim (of `orgIds` only, when given), one after the
 * other, through `run` (the caller's sync: the webhook's in-process one, or the scheduler's).
 */
export async function runQueuedSyncs<R extends { outcome: string }>(
  db: Db,
  opts: {
    instance: string;
    now: () => Date;
    orgIds?: readonly string[];
    run: (
      orgId: string,
    ) => Promise<R & ({ outcome: "succeeded" } | { outcome: "failed"; error: string })>;
  },
): Promise<{ orgId: string; result?: R; error?: string }[]> {
  const claims = await claimQueuedSyncs(db, {
    instance: opts.instance,
    now: opts.now(),
    orgIds: opts.orgIds,
  });
  const done: { orgId: string; result?: R; error?: string }[] = [];
  for (const claim of claims) {
    try {
      const result = await opts.run(claim.orgId);
      const error = result.outcome === "failed" ? (result as { error: string }).error : undefined;
      await finishQueuedSync(db, { claim, instance: opts.instance, now: opts.now(), error });
      done.push({ orgId: claim.orgId, result });
    } catch (e) {
      const error = e instanceof Error ? e.message : String(e);
      await finishQueuedSync(db, { claim, instance: opts.instance, now: opts.now(), error });
      done.push({ orgId: claim.orgId, error });
    }
  }
  return done;
}
