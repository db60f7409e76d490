import { getTableColumns, getTableName, type SQL, sql } from "drizzle-orm";
import type { PgColumn, PgTable } from "drizzle-orm/pg-core";
import type { DbOrTx } from "../../db/client.ts";

/*
 * Batched SQL for the ledger projection. Every statement carries many rows (one round trip per
 * batch, never per row), parameters stay under PostgreSQL's 65,535 bind-parameter limit, and
 * upserts only touch rows whose values differ, so that re-importing the same data writes nothing
 * and keeps ids and sync stamps.
 */

/** Bind parameters per statement: well under the 65,535 limit, and large enough to amortise. */
const PARAMS_PER_STATEMENT = 30_000;
/** Rows per statement at most, whatever the width. */
const MAX_ROWS_PER_STATEMENT = 1000;
/** Ids per `IN (…)` list. */
const IDS_PER_STATEMENT = 5000;

type InsertRow<T extends PgTable> = T["$inferInsert"];
/** A table's column, by its TypeScript key. */
export type ColumnKey<T extends PgTable> = keyof InsertRow<T> & string;

/** The rows of a raw query, whichever driver ran it (both answer `{ rows }`). */
export function rowsOf<R>(result: unknown): R[] {
  return (result as { rows: R[] }).rows;
}

/**
 * Runs SQL text with positional parameters on the session behind `db` (a transaction's, inside
 * one). Bulk statements bypass drizzle's `sql` builder: assembling tens of thousands of parameter
 * chunks through it cost more than the database work (docs/benchmarks.md, "Optimisations in the
 * code").
 */
async function run<R>(db: DbOrTx, text: string, params: unknown[]): Promise<R[]> {
  const result = await db._.session
    .prepareQuery({ sql: text, params }, undefined, undefined, false)
    .execute();
  return rowsOf<R>(result);
}

/** Values as both drivers take them: instants as ISO strings, absent as NULL. */
function driverValue(value: unknown): unknown {
  if (value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  return value;
}

const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;

function columnsOf<T extends PgTable>(table: T): Record<string, PgColumn> {
  return getTableColumns(table) as unknown as Record<string, PgColumn>;
}

function columnName(table: PgTable, key: string): string {
  const c = columnsOf(table)[key];
  if (!c) throw new Error(`${getTableName(table)} has no column ${key}`);
  return ident(c.name);
}

function rowsPerStatement(width: number): number {
  return Math.max(1, Math.min(MAX_ROWS_PER_STATEMENT, Math.floor(PARAMS_PER_STATEMENT / width)));
}

function* chunks<T>(items: readonly T[], size: number): Generator<T[]> {
  for (let i = 0; i < items.length; i += size) yield items.slice(i, i + size);
}

/** `($1, $2), ($3, $4)` for the batch, pushing the values onto `params`. */
function valuesList(rows: readonly object[], keys: readonly string[], params: unknown[]): string {
  const tuples: string[] = [];
  for (const row of rows) {
    const record = row as Record<string, unknown>;
    const slots: string[] = [];
    for (const k of keys) {
      params.push(driverValue(record[k]));
      slots.push(`$${params.length}`);
    }
    tuples.push(`(${slots.join(", ")})`);
  }
  return tuples.join(", ");
}

export interface UpsertSpec<T extends PgTable> {
  table: T;
  /** Columns inserted; every row must carry them (null where empty). */
  insert: readonly ColumnKey<T>[];
  /** The unique index the rows conflict on. */
  conflict: readonly ColumnKey<T>[];
  /** Columns compared: a conflicting row is updated only when one of them differs. */
  compare: readonly ColumnKey<T>[];
  /** Columns set on update: the compared ones plus e.g. `lastSyncedAt`. */
  update: readonly ColumnKey<T>[];
}

/**
 * INSERT … ON CONFLICT DO UPDATE … WHERE (compared columns) IS DISTINCT FROM (new values), in
 * batches. Existing rows keep their id and every column not in `update` (service-owned flags).
 * Returns the id and external id of the rows inserted or changed; unchanged rows are not
 * returned and not written.
 */
export async function upsertChanged<T extends PgTable>(
  db: DbOrTx,
  spec: UpsertSpec<T>,
  rows: readonly InsertRow<T>[],
): Promise<{ id: string; externalId: string }[]> {
  if (rows.length === 0) return [];
  const table = ident(getTableName(spec.table));
  const name = (k: string) => columnName(spec.table, k);
  const columns = spec.insert.map(name).join(", ");
  const target = spec.conflict.map(name).join(", ");
  const set = spec.update.map((k) => `${name(k)} = excluded.${name(k)}`).join(", ");
  const current = spec.compare.map((k) => `${table}.${name(k)}`).join(", ");
  const incoming = spec.compare.map((k) => `excluded.${name(k)}`).join(", ");
  const out: { id: string; externalId: string }[] = [];
  for (const batch of chunks(rows, rowsPerStatement(spec.insert.length))) {
    const params: unknown[] = [];
    const values = valuesList(batch, spec.insert, params);
    const text = `INSERT INTO ${table} (${columns}) VALUES ${values}
      ON CONFLICT (${target}) DO UPDATE SET ${set}
      WHERE ROW(${current}) IS DISTINCT FROM ROW(${incoming})
      RETURNING "id" AS "id", "external_id" AS "externalId"`;
    out.push(...(await run<{ id: string; externalId: string }>(db, text, params)));
  }
  return out;
}

/** Plain multi-row INSERT in batches (child lines of documents). */
export async function insertRows<T extends PgTable>(
  db: DbOrTx,
  table: T,
  keys: readonly ColumnKey<T>[],
  rows: readonly InsertRow<T>[],
): Promise<void> {
  if (rows.length === 0) return;
  const columns = keys.map((k) => columnName(table, k)).join(", ");
  for (const batch of chunks(rows, rowsPerStatement(keys.length))) {
    const params: unknown[] = [];
    const values = valuesList(batch, keys, params);
    await run(
      db,
      `INSERT INTO ${ident(getTableName(table))} (${columns}) VALUES ${values}`,
      params,
    );
  }
}

/** DELETE FROM table WHERE org_id = orgId AND <column> IN (values), in batches. */
export async function deleteWhereIn(
  db: DbOrTx,
  table: PgTable,
  orgId: string,
  key: string,
  values: readonly string[],
): Promise<void> {
  const column = columnName(table, key);
  for (const batch of chunks(values, IDS_PER_STATEMENT)) {
    const params: unknown[] = [orgId, ...batch];
    const list = batch.map((_, i) => `$${i + 2}`).join(", ");
    await run(
      db,
      `DELETE FROM ${ident(getTableName(table))} WHERE "org_id" = $1 AND ${column} IN (${list})`,
      params,
    );
  }
}

/**
 * Every row of an organisation's table as `externalId → { id, hash }`, optionally narrowed by a
 * condition; `hash` is the sync digest where the table has one.
 */
export async function existingRows(
  db: DbOrTx,
  table: PgTable,
  orgId: string,
  opts: { withHash?: boolean; where?: SQL } = {},
): Promise<Map<string, { id: string; hash: string | null }>> {
  const hash = opts.withHash ? sql`"sync_hash"` : sql`NULL::text`;
  const result = await db.execute(sql`
    SELECT "id" AS id, "external_id" AS "externalId", ${hash} AS hash
    FROM ${sql.identifier(getTableName(table))}
    WHERE "org_id" = ${orgId}${opts.where ? sql` AND ${opts.where}` : sql``}`);
  const out = new Map<string, { id: string; hash: string | null }>();
  for (const r of rowsOf<{ id: string; externalId: string; hash: string | null }>(result)) {
    out.set(r.externalId, { id: r.id, hash: r.hash });
  }
  return out;
}
