import { sql } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.ts";
import { type AgentRequestAudit, recordAgentRequest } from "../../db/queries/audit.ts";
import { isoInstant } from "../../domain/iso-instant.ts";
import type { Logger } from "../../logger.ts";

/** Where the pipeline sends one audit row per authenticated agent request. */
export interface AuditWriter {
  /**
   * Accepts one row: resolves once it is kept (committed, or buffered by the batched writer),
   * rejects if it cannot be.
   */
  write(row: AgentRequestAudit): Promise<void>;
  /** Commits everything accepted so far. */
  flush(): Promise<void>;
  /** Flushes and stops the timer; used on graceful shutdown. */
  close(): Promise<void>;
}

/** Commits each row before the response goes (tests, and anywhere latency does not matter). */
export function immediateAuditWriter(db: DbOrTx): AuditWriter {
  return {
    write: (row) => recordAgentRequest(db, row),
    flush: async () => {},
    close: async () => {},
  };
}

const ROWS_PER_STATEMENT = 500;

/**
 * Appends rows and stamps each key's last-used times once per batch. The rows travel as eight
 * array parameters (one per column) unnested in SQL, so the statement's text and size do not
 * grow with the batch and no SQL is built per row. Each key's latest instants are taken here,
 * from the rows in hand, so PostgreSQL neither returns the inserted rows nor groups them (a
 * measurable share of the statement: docs/benchmarks.md, "Optimisations in the code").
 *
 * A batch of up to 500 rows is one statement; a larger one is one transaction (its chunks'
 * inserts, then the stamps), so a failure leaves nothing written and the retry writes each row
 * once. Keys are stamped in id order, so two instances stamping the same keys lock them in the
 * same order and never deadlock.
 */
export async function recordAgentRequests(
  db: DbOrTx,
  rows: readonly AgentRequestAudit[],
): Promise<void> {
  if (rows.length === 0) return;
  const stamps = stampKeys(latestStamps(rows));
  if (rows.length <= ROWS_PER_STATEMENT) {
    await db.execute(sql`with audit as (${insertRows(rows)}) ${stamps}`);
    return;
  }
  await db.transaction(async (tx) => {
    for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
      await tx.execute(insertRows(rows.slice(i, i + ROWS_PER_STATEMENT)));
    }
    await tx.execute(stamps);
  });
}

function insertRows(rows: readonly AgentRequestAudit[]) {
  const n = rows.length;
  const keys = new Array<string>(n);
  const orgs = new Array<string | null>(n);
  const methods = new Array<string>(n);
  const routes = new Array<string>(n);
  const statuses = new Array<number>(n);
  const sensitive = new Array<boolean>(n);
  const reasons = new Array<string | null>(n);
  const requests = new Array<string>(n);
  const ats = new Array<string>(n);
  for (let i = 0; i < n; i++) {
    const r = rows[i] as AgentRequestAudit;
    keys[i] = r.keyId;
    orgs[i] = r.orgId;
    methods[i] = r.method;
    routes[i] = r.route;
    statuses[i] = r.status;
    sensitive[i] = r.sensitive;
    reasons[i] = r.reason ?? null;
    requests[i] = r.requestId;
    ats[i] = isoInstant(r.at.getTime());
  }
  // One parameter per column: an array the driver binds.
  return sql`
    insert into audit_events (key_id, org_id, method, route, status, sensitive, reason,
                              request_id, at)
    select * from unnest(
      ${sql.param(keys)}::text[], ${sql.param(orgs)}::text[], ${sql.param(methods)}::text[],
      ${sql.param(routes)}::text[], ${sql.param(statuses)}::int[], ${sql.param(sensitive)}::boolean[],
      ${sql.param(reasons)}::text[], ${sql.param(requests)}::text[], ${sql.param(ats)}::timestamptz[])`;
}

/** `greatest()` keeps the stamps monotonic whatever order batches commit in. */
function stampKeys(stamps: ReturnType<typeof latestStamps>) {
  return sql`
    update api_keys k
       set last_used_at = greatest(k.last_used_at, latest.at),
           last_sensitive_access_at = greatest(k.last_sensitive_access_at, latest.sensitive_at)
      from unnest(${sql.param(stamps.keys)}::text[], ${sql.param(stamps.ats)}::timestamptz[],
                  ${sql.param(stamps.sensitiveAts)}::timestamptz[])
           as latest(key_id, at, sensitive_at)
     where k.id = latest.key_id`;
}

/**
 * Per key of a batch, in key id order: its latest request, and its latest while holding
 * READ_SENSITIVE.
 */
export function latestStamps(rows: readonly AgentRequestAudit[]): {
  keys: string[];
  ats: string[];
  sensitiveAts: (string | null)[];
} {
  const latest = new Map<string, { at: Date; sensitiveAt: Date | null }>();
  for (const r of rows) {
    const seen = latest.get(r.keyId);
    if (!seen) {
      latest.set(r.keyId, { at: r.at, sensitiveAt: r.sensitive ? r.at : null });
      continue;
    }
    if (r.at > seen.at) seen.at = r.at;
    if (r.sensitive && (seen.sensitiveAt === null || r.at > seen.sensitiveAt))
      seen.sensitiveAt = r.at;
  }
  const keys = [...latest.keys()].sort();
  const ats: string[] = [];
  const sensitiveAts: (string | null)[] = [];
  for (const key of keys) {
    const s = latest.get(key) as { at: Date; sensitiveAt: Date | null };
    ats.push(isoInstant(s.at.getTime()));
    sensitiveAts.push(s.sensitiveAt ? isoInstant(s.sensitiveAt.getTime()) : null);
  }
  return { keys, ats, sensitiveAts };
}

/**
 * Buffers audit rows and commits them in batches, every `intervalMs` or every `batchSize` rows.
 *
 * Why: committing one row per request costs a WAL flush and, worse, serialises every request of
 * a key on the row lock of its `last_used_at` stamp. Batching writes the same rows and stamps
 * once per key per batch.
 *
 * Every 100 ms by default: a statement has a fixed cost much larger than its cost per row, so a
 * shorter interval spends most of it on the fixed part (figures for both choices:
 * docs/benchmarks.md, "Optimisations in the code").
 *
 * The trade-off: a row is committed up to `intervalMs` after its response, so a crash (not a
 * graceful shutdown, which flushes) can lose that window's rows. A failing database keeps rows in
 * memory and retries with backoff; once `maxBuffered` rows wait, `write` commits synchronously
 * and rejects if that fails, so the request answers 500 instead of being served unaudited.
 */
export class BatchedAuditWriter implements AuditWriter {
  private buffer: AgentRequestAudit[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private failures = 0;
  private closed = false;

  constructor(
    private readonly db: DbOrTx,
    private readonly opts: {
      intervalMs?: number;
      batchSize?: number;
      maxBuffered?: number;
      logger?: Logger;
    } = {},
  ) {}

  private get intervalMs() {
    return this.opts.intervalMs ?? 100;
  }

  /** Rows written and not yet committed (the `cashrunway_audit_rows_pending` metric). */
  get pending(): number {
    return this.buffer.length;
  }

  async write(row: AgentRequestAudit): Promise<void> {
    this.buffer.push(row);
    if (this.closed || this.buffer.length >= (this.opts.maxBuffered ?? 20_000)) {
      await this.flushWith(row);
      return;
    }
    if (this.buffer.length >= (this.opts.batchSize ?? 1000)) void this.flushQuietly();
    else this.schedule(this.intervalMs);
  }

  /** Commits the buffer, `row` included, before `row`'s request answers. */
  private async flushWith(row: AgentRequestAudit): Promise<void> {
    try {
      await this.flush();
    } catch (err) {
      // This request will answer 500: drop its row, which would claim the original status.
      this.buffer = this.buffer.filter((r) => r !== row);
      throw err;
    }
  }

  private schedule(delayMs: number) {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flushQuietly();
    }, delayMs);
    this.timer.unref();
  }

  /** A timer-driven flush: failures are logged and retried with backoff, never thrown. */
  private async flushQuietly(): Promise<void> {
    try {
      await this.flush();
      this.failures = 0;
    } catch (err) {
      this.failures += 1;
      this.opts.logger?.error(
        { err, waiting: this.buffer.length },
        "audit batch write failed; retrying",
      );
      this.schedule(Math.min(5_000, this.intervalMs * 2 ** this.failures));
    }
  }

  async flush(): Promise<void> {
    // One flush at a time; a flush asked for during another waits for it, then writes the rest.
    while (this.flushing) await this.flushing.catch(() => {});
    if (this.buffer.length === 0) return;
    const batch = this.buffer;
    this.buffer = [];
    this.flushing = recordAgentRequests(this.db, batch).catch((err) => {
      this.buffer = [...batch, ...this.buffer]; // keep them, in order, for the retry
      throw err;
    });
    try {
      await this.flushing;
    } finally {
      this.flushing = undefined;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush();
  }
}
