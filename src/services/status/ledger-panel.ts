import { and, desc, eq } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.ts";
import { ledgerConnections, syncRuns } from "../../db/schema/index.ts";
import { type LedgerConnectionState, ledgerAlertFor } from "../../domain/metering/alerts.ts";
import { shownRun } from "../ledger/abandoned-runs.ts";
import { localSyncProgress, type SyncProgress } from "../ledger/progress.ts";
import { withRetryTime } from "../ledger/retry-state.ts";

/** A sync run as the connection panel shows it. */
export interface SyncRunView {
  source: string;
  startedAt: Date;
  finishedAt: Date | null;
  outcome: "running" | "succeeded" | "failed";
  /** Rows read and written per collection. */
  counts: Record<string, { read?: number; written?: number }> | null;
  error: string | null;
  /**
   * While a live sync runs: what it has read so far, committed by whichever instance runs it
   * (sync_runs.progress), or this process's own when it runs here on the embedded database.
   */
  progress: SyncProgress | null;
}

/** The organisation's ledger connection in the words of its `ledgerAlert`, and its last runs. */
export interface LedgerPanel {
  provider: string | null;
  /** Tenant id or folder path. */
  sourceRef: string | null;
  status: LedgerConnectionState["status"] | null;
  /** The `ledgerAlert` the agent API attaches now (null: none, the connection is fine). */
  alert: ReturnType<typeof ledgerAlertFor>;
  lastSuccessfulSync: Date | null;
  lastRun: SyncRunView | null;
  running: boolean;
}

/**
 * What the ledger connection panel shows: the connection (provider, source, state), the state in
 * the same words as the API's `ledgerAlert`, the last successful sync and the latest run with its
 * counts and error. Works for imported folders today and a live connection once it exists.
 */
export async function getLedgerPanel(
  db: DbOrTx,
  orgId: string,
  now: Date = new Date(),
): Promise<LedgerPanel> {
  const [connection] = await db
    .select()
    .from(ledgerConnections)
    .where(eq(ledgerConnections.orgId, orgId))
    .limit(1);
  const runs = await db
    .select()
    .from(syncRuns)
    .where(eq(syncRuns.orgId, orgId))
    .orderBy(desc(syncRuns.startedAt), desc(syncRuns.id))
    .limit(1);
  const [success] = await db
    .select({ at: syncRuns.finishedAt })
    .from(syncRuns)
    .where(and(eq(syncRuns.orgId, orgId), eq(syncRuns.outcome, "succeeded")))
    .orderBy(desc(syncRuns.startedAt), desc(syncRuns.id))
    .limit(1);
  // A run left `running` by a dead process reads as failed (interrupted), not "Syncing now…".
  const last = runs[0] ? shownRun(runs[0], now) : undefined;
  const lastSuccessfulSync = connection?.lastSuccessfulSyncAt ?? success?.at ?? null;
  const status = connection ? connection.status : null;
  return {
    provider: connection?.provider ?? last?.source ?? null,
    sourceRef: connection?.sourceRef ?? null,
    status,
    alert: ledgerAlertFor(
      await withRetryTime(db, orgId, status ? { status } : last ? { status: "active" } : null),
      lastSuccessfulSync,
    ),
    lastSuccessfulSync,
    lastRun: last
      ? {
          source: last.source,
          startedAt: last.startedAt,
          finishedAt: last.finishedAt,
          outcome: last.outcome,
          counts: (last.counts ?? null) as SyncRunView["counts"],
          error: last.error,
          progress:
            last.outcome === "running"
              ? ((last.progress as SyncProgress | null) ?? localSyncProgress(orgId) ?? null)
              : null,
        }
      : null,
    running: last?.outcome === "running",
  };
}
