import { sql } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.ts";
import type { SyncCounts } from "./project-ledger.ts";

/** Rows written by one import above which the planner's statistics are refreshed. */
export const ANALYZE_AFTER_ROWS = 10_000;

/** The projection tables an import writes. */
const PROJECTION_TABLES = [
  "contacts",
  "cash_items",
  "cash_item_lines",
  "payments",
  "bank_transactions",
  "credit_notes",
  "credit_note_allocations",
  "credit_note_lines",
  "purchase_orders",
  "purchase_order_lines",
] as const;

/**
 * Refreshes the planner's statistics after an import that wrote many rows. Without them a first
 * large import (autovacuum may not have run yet, or be off) leaves PostgreSQL planning the
 * derived-data queries that follow (forecast, baselines, summaries) for empty tables: on a fresh
 * 100,000-invoice organisation the baselines query ran for minutes instead of seconds.
 * @returns whether ANALYZE ran.
 */
export async function analyzeAfterLargeImport(db: DbOrTx, counts: SyncCounts): Promise<boolean> {
  const written = Object.values(counts).reduce((sum, c) => sum + c.written, 0);
  if (written < ANALYZE_AFTER_ROWS) return false;
  await db.execute(sql.raw(`ANALYZE ${PROJECTION_TABLES.join(", ")}`));
  return true;
}
