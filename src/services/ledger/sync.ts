import { and, eq, sql } from "drizzle-orm";
import { XeroClient } from "../../connector/xero/client.ts";
import {
  DEFAULT_LEDGER_POLICY,
  LedgerPolicy,
  type LedgerPolicyOptions,
  LedgerReconnectRequiredError,
  LedgerRetryLaterError,
} from "../../connector/xero/policy.ts";
import {
  createXeroSource,
  LEDGER_RESOURCES,
  type LedgerResource,
} from "../../connector/xero/xero-source.ts";
import {
  ledgerConnections,
  ledgerCredentials,
  ledgerWatermarks,
  syncRuns,
} from "../../db/schema/index.ts";
import { NotFoundError } from "../errors.ts";
import {
  failureText,
  importLedger,
  LedgerImportError,
  type SyncCounts,
} from "../sync/import-ledger.ts";
import { finishAbandonedRuns } from "./abandoned-runs.ts";
import type { LedgerDeps } from "./deps.ts";
import { ProgressReporter } from "./progress.ts";
import { hasSeveralConnections } from "./shared-limits.ts";
import { ConnectionTokens, markReconnectRequired } from "./tokens.ts";

/*
 * One sync of an organisation's live ledger into its projection, through the same importer and
 * mapping as an export folder (services/sync): atomic, recorded in sync_runs, followed by the
 * recomputation of forecasts, baselines and insights. The first sync (and the periodic full
 * sweep) reads everything; the others read only what changed since each resource's watermark
 * (If-Modified-Since, with an overlap; upserts are idempotent, so re-reading is harmless).
 */

/** Re-read this much before each watermark: clocks and commit order are not exact. */
export const WATERMARK_OVERLAP_MS = 5 * 60_000;

export type LedgerSyncMode = "full" | "incremental";

export type LedgerSyncResult =
  | {
      outcome: "succeeded";
      mode: LedgerSyncMode;
      syncRunId: string;
      counts: SyncCounts;
      ledgerCalls: number;
    }
  | {
      outcome: "failed";
      mode: LedgerSyncMode;
      syncRunId: string | null;
      counts: SyncCounts;
      ledgerCalls: number;
      error: string;
      /** The connection's state after the failure. */
      state: "retrying" | "reconnect_required";
      /** When the scheduler will try again (retrying only). */
      nextAttemptAt: string | null;
    };

/** One policy (breaker, retries) per connection in this process, kept across syncs. */
const policies = new Map<string, LedgerPolicy>();

function policyFor(
  deps: LedgerDeps,
  connectionId: string,
): {
  policy: LedgerPolicy;
  options: LedgerPolicyOptions;
} {
  const options: LedgerPolicyOptions = {
    ...DEFAULT_LEDGER_POLICY,
    dailyBudget: deps.settings.LEDGER_DAILY_BUDGET,
    ...deps.policy,
  };
  const registry = deps.processState?.policies ?? policies;
  let policy = registry.get(connectionId);
  if (!policy) {
    policy = new LedgerPolicy(options);
    registry.set(connectionId, policy);
  }
  return { policy, options };
}

/** Backoff of a connection whose syncs keep failing: 1, 2, 4 … minutes, at most 6 hours. */
function failureBackoffMs(failures: number): number {
  return Math.min(6 * 3_600_000, 60_000 * 2 ** Math.max(0, failures - 1));
}

/**
 * Syncs the organisation's live ledger now. `full` forces a full read; otherwise the sync is
 * full when there is no watermark yet or the last full sweep is older than
 * LEDGER_FULL_SYNC_HOURS. Never throws for a ledger failure: the result says what happened and
 * the connection's state (ledgerAlert) follows it.
 *
 * @throws NotFoundError when the organisation has no live connection.
 */
export async function syncLedger(
  deps: LedgerDeps,
  input: { orgId: string; full?: boolean },
): Promise<LedgerSyncResult> {
  const { db } = deps;
  const now = deps.now();
  const [live] = await db
    .select({
      connectionId: ledgerCredentials.connectionId,
      tenantId: ledgerCredentials.tenantId,
      lastFullSyncAt: ledgerCredentials.lastFullSyncAt,
      consecutiveFailures: ledgerCredentials.consecutiveFailures,
      status: ledgerConnections.status,
    })
    .from(ledgerCredentials)
    .innerJoin(ledgerConnections, eq(ledgerConnections.id, ledgerCredentials.connectionId))
    .where(eq(ledgerCredentials.orgId, input.orgId));
  if (!live) throw new NotFoundError("ledger connection");
  // A run left `running` by a dead process is finished as interrupted before this one starts.
  await finishAbandonedRuns(db, input.orgId, now);

  const marks = await db
    .select({ resource: ledgerWatermarks.resource, watermark: ledgerWatermarks.watermark })
    .from(ledgerWatermarks)
    .where(eq(ledgerWatermarks.orgId, input.orgId));
  const sweepDue =
    !live.lastFullSyncAt ||
    now.getTime() - live.lastFullSyncAt.getTime() >=
      deps.settings.LEDGER_FULL_SYNC_HOURS * 3_600_000;
  const mode: LedgerSyncMode =
    input.full || sweepDue || marks.length === 0 ? "full" : "incremental";
  const since: Partial<Record<LedgerResource, Date>> = {};
  if (mode === "incremental") {
    for (const m of marks) {
      // Accounts are always read whole: one call, and bank accounts follow the whole chart.
      if (m.resource === "accounts") continue;
      since[m.resource as LedgerResource] = new Date(m.watermark.getTime() - WATERMARK_OVERLAP_MS);
    }
  }

  const tokens = new ConnectionTokens(deps, input.orgId, live.connectionId);
  const { policy, options } = policyFor(deps, live.connectionId);
  const client = new XeroClient({
    apiUrl: deps.settings.LEDGER_API_URL,
    tenantId: live.tenantId,
    tokens,
    policy,
    policyOptions: options,
    shared: deps.shared,
    gates: deps.processState?.gates,
    fetch: deps.fetch,
  });
  const callsBefore = policy.calls;
  const calls = () => policy.calls - callsBefore;
  const progress = new ProgressReporter(db, input.orgId, hasSeveralConnections(db));
  const source = createXeroSource(client, {
    since,
    asOf: now.toISOString().slice(0, 10),
    onRecords: (resource, stats) =>
      progress.update({
        resource,
        records: { ...stats.records } as Record<string, number>,
        ledgerCalls: calls(),
      }),
  });

  try {
    // A valid token before the import's transaction opens: a refresh takes the credentials row
    // in a transaction of its own, which on the embedded database (one connection) would wait
    // behind the import's. A token refreshed now lasts 30 minutes, past most syncs.
    await tokens.accessToken();
    // The first ledger call too (the source keeps its answer): a revoked consent or a dead
    // ledger shows here, before the transaction, where a token refresh can still run.
    await source.organisation();
    const result = await importLedger(db, {
      orgId: input.orgId,
      source,
      sourceLabel: `xero:${live.tenantId}:${mode}`,
      now,
      partial: mode === "incremental",
      onRunStarted: (id) => progress.started(id),
      afterProjection: async (tx) => {
        for (const resource of LEDGER_RESOURCES) {
          const seen = source.stats.latestUpdate[resource];
          if (!seen) continue;
          // Watermarks only move forward: an overlap read must not pull one back.
          await tx
            .insert(ledgerWatermarks)
            .values({ orgId: input.orgId, resource, watermark: seen })
            .onConflictDoUpdate({
              target: [ledgerWatermarks.orgId, ledgerWatermarks.resource],
              set: { watermark: sql`greatest(${ledgerWatermarks.watermark}, excluded.watermark)` },
            });
        }
        await tx
          .update(ledgerCredentials)
          .set({
            nextAttemptAt: null,
            retryReason: null,
            consecutiveFailures: 0,
            ...(mode === "full" ? { lastFullSyncAt: now } : {}),
          })
          .where(eq(ledgerCredentials.connectionId, live.connectionId));
      },
    });
    await recordCalls(deps, input.orgId, result.syncRunId, calls());
    return {
      outcome: "succeeded",
      mode,
      syncRunId: result.syncRunId,
      counts: result.counts,
      ledgerCalls: calls(),
    };
  } catch (e) {
    const cause = e instanceof LedgerImportError ? e.cause : e;
    const syncRunId = e instanceof LedgerImportError ? e.result.syncRunId : null;
    const counts = e instanceof LedgerImportError ? e.result.counts : {};
    const error = failureText(cause);
    if (syncRunId) await recordCalls(deps, input.orgId, syncRunId, calls());
    if (cause instanceof LedgerReconnectRequiredError) {
      await markReconnectRequired(db, input.orgId, live.connectionId);
      return {
        outcome: "failed",
        mode,
        syncRunId,
        counts,
        ledgerCalls: calls(),
        error,
        state: "reconnect_required",
        nextAttemptAt: null,
      };
    }
    const failures = live.consecutiveFailures + 1;
    const retryAt =
      cause instanceof LedgerRetryLaterError
        ? cause.retryAt
        : new Date(now.getTime() + failureBackoffMs(failures));
    await db.transaction(async (tx) => {
      await tx
        .update(ledgerCredentials)
        .set({
          nextAttemptAt: retryAt,
          retryReason: cause instanceof LedgerRetryLaterError ? cause.reason : "error",
          consecutiveFailures: failures,
        })
        .where(eq(ledgerCredentials.connectionId, live.connectionId));
      await tx
        .update(ledgerConnections)
        .set({ status: "service_issue", lastError: error })
        .where(
          and(
            eq(ledgerConnections.orgId, input.orgId),
            eq(ledgerConnections.id, live.connectionId),
          ),
        );
    });
    return {
      outcome: "failed",
      mode,
      syncRunId,
      counts,
      ledgerCalls: calls(),
      error,
      state: "retrying",
      nextAttemptAt: retryAt.toISOString(),
    };
  } finally {
    await progress.finished();
  }
}

async function recordCalls(
  deps: LedgerDeps,
  orgId: string,
  syncRunId: string,
  ledgerCalls: number,
): Promise<void> {
  await deps.db
    .update(syncRuns)
    .set({ ledgerCalls })
    .where(and(eq(syncRuns.orgId, orgId), eq(syncRuns.id, syncRunId)));
}
