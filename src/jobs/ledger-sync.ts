import { and, eq, isNull, lte, notInArray, or } from "drizzle-orm";
import type { Config } from "../config.ts";
import type { Db } from "../db/client.ts";
import { ledgerConnections, ledgerCredentials } from "../db/schema/index.ts";
import { createLedgerDeps } from "../services/ledger/deps.ts";
import { type LedgerSyncResult, syncLedger } from "../services/ledger/sync.ts";
import { runQueuedSyncs } from "../services/ledger/sync-queue.ts";
import type { ClaimedRunner } from "./job-runs.ts";

/** One organisation's scheduled sync, as the tick reports it. */
export interface LedgerSyncReport {
  orgId: string;
  ok: boolean;
  mode?: string;
  ledgerCalls?: number;
  error?: string;
  /** Run for a queued webhook request rather than the schedule. */
  queued?: boolean;
}

/**
 * The organisations whose live ledger is due a scheduled sync: connected (not waiting for a
 * reconnect, not disconnected) and past any retry time a failure set.
 */
async function dueOrganisations(db: Db, now: Date, only?: readonly string[]): Promise<string[]> {
  const rows = await db
    .select({ orgId: ledgerCredentials.orgId })
    .from(ledgerCredentials)
    .innerJoin(ledgerConnections, eq(ledgerConnections.id, ledgerCredentials.connectionId))
    .where(
      and(
        notInArray(ledgerConnections.status, ["reconnect_required", "disconnected"]),
        or(isNull(ledgerCredentials.nextAttemptAt), lte(ledgerCredentials.nextAttemptAt, now)),
      ),
    );
  return rows.map((r) => r.orgId).filter((id) => !only || only.includes(id));
}

/**
 * The schedule of live-ledger syncs, run by the scheduler's tick: each due organisation is
 * synced once per LEDGER_SYNC_MINUTES slot, claimed in job_runs as
 * (`ledger-sync`, `<orgId>:<slot>`), so exactly one instance runs it (docs/adr/0004). A failed
 * claim is retried by later ticks after job_runs' backoff; the connection's own retry time
 * (after 429s, an open breaker or faults) holds it back meanwhile.
 */
export async function runLedgerSyncs(input: {
  db: Db;
  config: Config;
  now: Date;
  clock: { now(): Date };
  orgIds?: readonly string[];
  /** This instance in job_runs.claimed_by (the queued webhook syncs it claims). */
  instance: string;
  /** The scheduler's one failure handling (job-runs.ts `claimedRunner`). */
  claimed: ClaimedRunner;
}): Promise<LedgerSyncReport[]> {
  const { db, config, now } = input;
  const slotMs = config.LEDGER_SYNC_MINUTES * 60_000;
  const slot = Math.floor(now.getTime() / slotMs);
  const deps = createLedgerDeps({
    db,
    settings: config,
    publicBaseUrl: `http://${config.HOST}:${config.PORT}`,
    now: () => input.clock.now(),
  });
  const report: LedgerSyncReport[] = [];
  for (const orgId of await dueOrganisations(db, now, input.orgIds)) {
    const run = await input.claimed(
      { name: "ledger-sync", runKey: `${orgId}:${slot}`, orgId, now, failed: "ledger sync failed" },
      async (): Promise<LedgerSyncResult> => {
        const result = await syncLedger(deps, { orgId });
        // A failed sync fails the claim, so job_runs records it and retries after its backoff.
        if (result.outcome === "failed") throw new Error(`${result.state}: ${result.error}`);
        return result;
      },
      (r) => ({ mode: r.mode, ledgerCalls: r.ledgerCalls, counts: r.counts }),
    );
    if (!run) continue;
    report.push(
      run.ok
        ? { orgId, ok: true, mode: run.result.mode, ledgerCalls: run.result.ledgerCalls }
        : { orgId, ok: false, error: run.error },
    );
  }
  // Webhook syncs queued durably and not yet run (their process stopped, or it is busy).
  const queued = await runQueuedSyncs(db, {
    instance: input.instance,
    now: () => input.clock.now(),
    orgIds: input.orgIds,
    run: (orgId) => syncLedger(deps, { orgId }),
  });
  for (const q of queued) {
    const r = q.result;
    report.push(
      r?.outcome === "succeeded"
        ? { orgId: q.orgId, ok: true, mode: r.mode, ledgerCalls: r.ledgerCalls, queued: true }
        : { orgId: q.orgId, ok: false, error: q.error ?? "ledger sync failed", queued: true },
    );
  }
  return report;
}
