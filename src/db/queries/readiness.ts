import { readFileSync } from "node:fs";
import { join } from "node:path";
import { count, sql } from "drizzle-orm";
import { type DbOrTx, MIGRATIONS_FOLDER } from "../client.ts";
import { syncRuns } from "../schema/index.ts";

/** Answers when the database does: one round trip. */
export async function pingDatabase(db: DbOrTx): Promise<void> {
  await db.execute(sql`SELECT 1`);
}

/**
 * The migrations this build ships (drizzle/meta/_journal.json) against those the database has
 * applied. drizzle's migrator applies every migration newer than the last one recorded, so the
 * database is current when its last applied migration is the newest shipped.
 */
export async function migrationState(db: DbOrTx): Promise<{ current: boolean; newest: string }> {
  const journal = JSON.parse(
    readFileSync(join(MIGRATIONS_FOLDER, "meta", "_journal.json"), "utf8"),
  ) as { entries: { tag: string; when: number }[] };
  const newest = journal.entries.at(-1);
  if (!newest) return { current: true, newest: "" };
  const result = await db.execute(
    sql`SELECT max(created_at)::text AS last FROM drizzle.__drizzle_migrations`,
  );
  const [row] = (result as unknown as { rows: { last: string | null }[] }).rows;
  return { current: Number(row?.last ?? 0) >= newest.when, newest: newest.tag };
}

/** Ledger sync runs recorded, by outcome (a metric read at scrape time). */
export async function syncRunsByOutcome(db: DbOrTx): Promise<{ outcome: string; n: number }[]> {
  return db
    .select({ outcome: syncRuns.outcome, n: count() })
    .from(syncRuns)
    .groupBy(syncRuns.outcome);
}
