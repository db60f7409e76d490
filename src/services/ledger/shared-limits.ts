import { sql } from "drizzle-orm";
import type { SharedCallLimiter, SharedTake } from "../../connector/xero/policy.ts";
import type { Db } from "../../db/client.ts";
import { randomToken } from "../../domain/ids.ts";
import { rowsOf } from "../summaries/summary-cache.ts";

/** An in-flight row older than this belongs to a dead instance (a call's timeout is 30 s). */
const STALE_IN_FLIGHT_MS = 2 * 60_000;

/**
 * The ledger's per-tenant limits held across instances on one PostgreSQL database: every call
 * takes a row in `ledger_call_slots` before it is sent and marks it finished on its answer. The
 * take runs in its own short transaction under an advisory lock per tenant, so the count it
 * reads includes every call another instance took before it (each statement after the lock
 * reads a fresh snapshot). A call holds its place in the minute window until a window after its
 * answer, as in the process's own gate (policy.ts).
 */
export function postgresCallLimiter(db: Db): SharedCallLimiter {
  return {
    async take(input): Promise<SharedTake> {
      const now = new Date(input.now);
      const dayStart = new Date(
        Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()),
      );
      const windowStart = new Date(input.now - input.windowMs);
      const staleBefore = new Date(input.now - STALE_IN_FLIGHT_MS);
      // Rows that can count: today's (budget), and those that may still hold a window's place.
      const from = new Date(Math.min(dayStart.getTime(), staleBefore.getTime() - input.windowMs));
      return await db.transaction(async (tx) => {
        await tx.execute(
          sql`SELECT pg_advisory_xact_lock(hashtext(${`ledger-calls:${input.tenantId}`}))`,
        );
        const [row] = rowsOf<{
          today: number;
          in_window: number;
          in_flight: number;
          oldest_ms: number | null;
        }>(
          await tx.execute(sql`
            SELECT count(*) FILTER (WHERE started_at >= ${dayStart.toISOString()})::int AS today,
                   count(*) FILTER (WHERE finished_at > ${windowStart.toISOString()}
                     OR (finished_at IS NULL AND started_at > ${staleBefore.toISOString()}))::int AS in_window,
                   count(*) FILTER (WHERE finished_at IS NULL
                     AND started_at > ${staleBefore.toISOString()})::int AS in_flight,
                   (extract(epoch FROM min(finished_at) FILTER (
                     WHERE finished_at > ${windowStart.toISOString()})) * 1000)::float8 AS oldest_ms
            FROM ledger_call_slots
            WHERE tenant_id = ${input.tenantId} AND started_at >= ${from.toISOString()}`),
        );
        const today = Number(row?.today ?? 0);
        if (today >= input.dailyBudget) return { budgetSpent: true };
        const inWindow = Number(row?.in_window ?? 0);
        const inFlight = Number(row?.in_flight ?? 0);
        if (inFlight >= input.maxConcurrent) return { waitMs: 50 };
        if (inWindow >= input.perWindow) {
          const oldest =
            row?.oldest_ms === null || row?.oldest_ms === undefined ? null : Number(row.oldest_ms);
          // Every counted call may still be in flight: look again shortly.
          return {
            waitMs: oldest === null ? 50 : Math.max(10, oldest + input.windowMs - input.now),
          };
        }
        const ticket = `lcs_${randomToken()}`;
        await tx.execute(sql`
          INSERT INTO ledger_call_slots (id, tenant_id, started_at)
          VALUES (${ticket}, ${input.tenantId}, ${now.toISOString()})`);
        return { ticket };
      });
    },
    async done(ticket, at) {
      await db.execute(sql`
        UPDATE ledger_call_slots SET finished_at = ${new Date(at).toISOString()} WHERE id = ${ticket}`);
    },
  };
}

/** Deletes call rows older than two days (the daily budget reads today's only). */
export async function pruneLedgerCallSlots(db: Db, now: Date): Promise<number> {
  const result = await db.execute(sql`
    DELETE FROM ledger_call_slots WHERE started_at < ${new Date(now.getTime() - 2 * 86_400_000).toISOString()}`);
  return (result as { rowCount?: number | null }).rowCount ?? rowsOf(result).length;
}

/**
 * The shared limiter when the database can take it: a PostgreSQL pool of more than one
 * connection. On the embedded database (one session, one process) the process's own gate is
 * the whole truth, and a take while a sync's transaction holds the one session would wait for
 * that very transaction: there every take answers at once. Decided at the first call (building
 * the app must not touch the database).
 */
export function sharedLimiterFor(db: Db): SharedCallLimiter {
  let chosen: SharedCallLimiter | null | undefined;
  const pick = () => {
    if (chosen === undefined) chosen = hasSeveralConnections(db) ? postgresCallLimiter(db) : null;
    return chosen;
  };
  return {
    take: async (input) => (await pick()?.take(input)) ?? { ticket: "" },
    done: async (ticket, at) => {
      if (ticket) await pick()?.done(ticket, at);
    },
  };
}

/**
 * Whether `db` is a PostgreSQL pool of more than one connection: statements outside a sync's
 * transaction then run beside it. Not on the embedded database (one session) nor through its
 * socket (a pool of one).
 */
export function hasSeveralConnections(db: Db): boolean {
  const client = (db as unknown as { $client?: { options?: { max?: number } } }).$client;
  const max = client?.options?.max;
  return typeof max === "number" && max > 1;
}
