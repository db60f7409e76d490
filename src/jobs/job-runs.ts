import { sql } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import { randomToken } from "../domain/ids.ts";
import type { Logger } from "../logger.ts";
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

/** One piece of work the scheduler claims: (name, runKey) in job_runs, and its failure log message. */
export interface ClaimedJob {
  name: string;
  runKey: string;
  /** null for service-wide work (the daily prune). */
  orgId: string | null;
  now: Date;
  /** The log message of a failure. */
  failed: string;
}

export type ClaimedOutcome<R> = { ok: true; result: R } | { ok: false; error: string };

/** Runs one claimed piece of work (see `runClaimed`); the scheduler binds it to its instance. */
export type ClaimedRunner = <R>(
  job: ClaimedJob,
  work: () => Promise<R>,
  details: (result: R) => unknown,
) => Promise<ClaimedOutcome<R> | undefined>;

/**
 * The scheduler's one failure handling for every job: claims (job, runKey), runs `work`, and
 * records the outcome in job_runs (`details` of the result on success, the message on failure).
 * A failure is logged (message `job.failed`) and concerns this job (and organisation) only: the
 * tick goes on. Returns undefined when another instance holds the claim (or it is not due again yet).
 */
export function claimedRunner(deps: {
  db: Db;
  instance: string;
  clock: { now(): Date };
  logger: Pick<Logger, "error">;
}): ClaimedRunner {
  return async (job, work, details) => {
    const claim = await claimRun(deps.db, {
      job: job.name,
      runKey: job.runKey,
      orgId: job.orgId,
      instance: deps.instance,
      now: job.now,
    });
    if (!claim) return undefined;
    let outcome: ClaimedOutcome<Awaited<ReturnType<typeof work>>>;
    try {
      outcome = { ok: true, result: await work() };
    } catch (e) {
      outcome = { ok: false, error: e instanceof Error ? e.message : String(e) };
    }
    await finishRun(deps.db, {
      claim,
      instance: deps.instance,
      now: deps.clock.now(),
      ...(outcome.ok
        ? { outcome: "succeeded", details: details(outcome.result) }
        : { outcome: "failed", error: outcome.error }),
    });
    if (!outcome.ok) deps.logger.error({ orgId: job.orgId, err: outcome.error }, job.failed);
    return outcome;
  };
}
