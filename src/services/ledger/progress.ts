import { and, eq } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { syncRuns } from "../../db/schema/index.ts";

/** What a running live sync has done so far (sync_runs.progress, the settings page). */
export interface SyncProgress {
  /** The resource read last. */
  resource: string;
  /** Records read per resource. */
  records: Record<string, number>;
  ledgerCalls: number;
}

/** Progress of the syncs running in this process, by organisation (the embedded database). */
const local = new Map<string, SyncProgress>();

/** The progress of a sync of `orgId` running in this process, if any. */
export function localSyncProgress(orgId: string): SyncProgress | undefined {
  return local.get(orgId);
}

/** Progress is committed at most this often. */
const WRITE_EVERY_MS = 1_000;

/**
 * Keeps a running sync's progress where every instance can read it: in `sync_runs.progress`,
 * committed as the sync goes (at most once a second, one write in flight, never awaited by the
 * sync), and in this process's memory. The write is skipped once the run's row is no longer
 * `running`: the import's own final update (under its transaction's row lock) always wins.
 * `shared` is false on the embedded database, whose one session the sync's transaction holds:
 * there the process's memory is the whole truth (one process serves it).
 */
export class ProgressReporter {
  private runId: string | undefined;
  private latest: SyncProgress | undefined;
  private writing: Promise<void> | undefined;
  private lastWrite = 0;

  constructor(
    private readonly db: Db,
    private readonly orgId: string,
    private readonly shared: boolean,
  ) {}

  started(syncRunId: string): void {
    this.runId = syncRunId;
  }

  update(progress: SyncProgress): void {
    this.latest = progress;
    local.set(this.orgId, progress);
    if (!this.shared || !this.runId || this.writing) return;
    const now = Date.now();
    if (now - this.lastWrite < WRITE_EVERY_MS) return;
    this.lastWrite = now;
    const runId = this.runId;
    this.writing = this.db
      .update(syncRuns)
      // `at` is the heartbeat: a running row without one for a lease is abandoned (abandoned-runs.ts).
      .set({ progress: { ...this.latest, at: new Date(now).toISOString() } })
      .where(
        and(
          eq(syncRuns.orgId, this.orgId),
          eq(syncRuns.id, runId),
          eq(syncRuns.outcome, "running"),
        ),
      )
      .then(
        () => undefined,
        () => undefined, // progress is a courtesy: a failed write is not the sync's failure
      )
      .finally(() => {
        this.writing = undefined;
      });
  }

  /** The sync ended: waits for a write in flight and forgets the local progress. */
  async finished(): Promise<void> {
    local.delete(this.orgId);
    await this.writing;
  }
}
