import { and, asc, desc, eq, gte, inArray, lte, or, type SQL, sql } from "drizzle-orm";
import type { AnyPgColumn, PgTable, SelectedFields } from "drizzle-orm/pg-core";
import type { DbOrTx } from "../client.ts";

/*
 * The reads behind the lists and drills of ledger documents (invoices, bills, credit notes,
 * purchase orders): one set of queries, made for each document type from its description.
 * Every query is filtered by org_id.
 */

/** A keyset position: rows strictly after (key, id) in the list's order. */
export interface KeysetAfter {
  key: string | null;
  id: string;
}

/**
 * The keyset predicate for the order `sort DESC, id DESC`, where a DESC sort puts NULL first
 * (PostgreSQL's default, and what a backward scan of an ascending index gives). `cast` is the
 * sort column's type, applied to the cursor's text. A non-null position uses the row comparison
 * `(sort, id) < (key, id)`, which PostgreSQL turns into an index bound; a NULL sort value never
 * satisfies it, which is right since NULLs came before.
 */
export function descendingAfter(
  sortColumn: AnyPgColumn | SQL,
  idColumn: AnyPgColumn | SQL,
  after: KeysetAfter | undefined,
  cast: "date" | "timestamptz" | "numeric",
): SQL | undefined {
  if (!after) return undefined;
  if (after.key === null) {
    return sql`((${sortColumn} is null and ${idColumn} < ${after.id}) or ${sortColumn} is not null)`;
  }
  return sql`(${sortColumn}, ${idColumn}) < (${after.key}::${sql.raw(cast)}, ${after.id})`;
}

/** One group of the totals aggregate. */
export interface StatusCurrencySum {
  status: string;
  currency: string;
  count: number;
  amount: string;
}

/** The rows of a raw `db.execute()`: the same `{ rows }` shape on both drivers. */
export function rowsOf<T>(result: unknown): T[] {
  return (result as { rows: T[] }).rows;
}

/** The filters of a document list. */
export interface IssuedDocumentFilter<S extends string> {
  orgId: string;
  /** null = every status; an empty list matches nothing. */
  statuses: readonly S[] | null;
  contactId?: string | undefined;
  /** Inclusive bounds on the list's date (`listDate`). */
  dateFrom?: string | undefined;
  dateTo?: string | undefined;
}

/** A document line as the drills read it. */
export interface IssuedDocumentLineRow {
  lineNumber: number;
  description: string | null;
  quantity: string | null;
  unitAmount: string | null;
  lineAmount: string | null;
  itemCode: string | null;
  accountCode: string | null;
}

/** A document type: its table's key columns, row and line table. */
export interface IssuedDocumentTable {
  table: PgTable;
  id: AnyPgColumn;
  orgId: AnyPgColumn;
  externalId: AnyPgColumn;
  /** The ledger's document number (a drill's reference may name it). */
  number: AnyPgColumn;
  issueDate: AnyPgColumn;
  /**
   * The date lists filter on and sort by; default `issueDate`. Invoices and bills: the document
   * date (issue date, else due date).
   */
  listDate?: AnyPgColumn;
  contactExternalId: AnyPgColumn;
  /** The column `status` filters on and totals are bucketed by. */
  status: AnyPgColumn;
  currency: AnyPgColumn;
  /** The amount totals sum. */
  total: AnyPgColumn;
  /**
   * The condition on rows the API shows (credit notes: the receivable ones; invoices and bills:
   * their cash-item source); default all.
   */
  only?: SQL;
  /** The row the list and the drill read. */
  columns: SelectedFields;
  lines: {
    table: PgTable;
    orgId: AnyPgColumn;
    /** The line's document id. */
    documentId: AnyPgColumn;
    id: AnyPgColumn;
    lineNumber: AnyPgColumn;
    description: AnyPgColumn;
    quantity: AnyPgColumn;
    unitAmount: AnyPgColumn;
    lineAmount: AnyPgColumn;
    itemCode: AnyPgColumn;
    accountCode: AnyPgColumn;
  };
}

/** The queries of one document table; `Row` is the shape of its `columns`. */
export interface IssuedDocumentQueries<Row, S extends string> {
  /**
   * A page in the order listDate DESC, id DESC (undated first), strictly after `after`.
   *
   * Run as plain SQL whose column aliases are the row's field names: both drivers already return
   * NUMERIC and DATE as text, so the rows need no mapping (the query builder's per-field mapping
   * cost a third of a 5,000-row invoice page).
   */
  page(
    db: DbOrTx,
    filter: IssuedDocumentFilter<S>,
    opts: { after: KeysetAfter | undefined; limit: number },
  ): Promise<Row[]>;
  count(db: DbOrTx, filter: IssuedDocumentFilter<S>): Promise<number>;
  /**
   * The totals aggregate, in SQL: matched rows grouped by (status, currency), each group's count
   * and summed total. One pass over the matched set; never summed in JavaScript.
   */
  sum(db: DbOrTx, filter: IssuedDocumentFilter<S>): Promise<StatusCurrencySum[]>;
  /**
   * The document named by `ref`: our id, the ledger's id, or its number. Several matches (a
   * number reused) resolve to our id first, then the ledger id, then the most recent by issue
   * date and id.
   */
  find(db: DbOrTx, orgId: string, ref: string): Promise<Row | undefined>;
  /** Lines of one document, by line number. */
  lines(db: DbOrTx, orgId: string, documentId: string): Promise<IssuedDocumentLineRow[]>;
}

export function issuedDocumentQueries<Row, S extends string>(
  t: IssuedDocumentTable,
): IssuedDocumentQueries<Row, S> {
  const listDate = t.listDate ?? t.issueDate;
  const where = (f: IssuedDocumentFilter<S>): SQL | undefined =>
    and(
      eq(t.orgId, f.orgId),
      t.only,
      f.statuses === null
        ? undefined
        : f.statuses.length === 0
          ? sql`false`
          : inArray(t.status, [...f.statuses]),
      f.contactId === undefined ? undefined : eq(t.contactExternalId, f.contactId),
      f.dateFrom === undefined ? undefined : gte(listDate, f.dateFrom),
      f.dateTo === undefined ? undefined : lte(listDate, f.dateTo),
    );
  const l = t.lines;
  const selectList = sql.join(
    Object.entries(t.columns).map(([name, c]) => sql`${c} as ${sql.identifier(name)}`),
    sql`, `,
  );
  return {
    async page(db, filter, opts) {
      const after = descendingAfter(listDate, t.id, opts.after, "date");
      return rowsOf<Row>(
        await db.execute(sql`
          select ${selectList}
            from ${t.table}
           where ${and(where(filter), after)}
           order by ${listDate} desc, ${t.id} desc
           limit ${opts.limit}`),
      );
    },
    async count(db, filter) {
      const [row] = await db
        .select({ n: sql<number>`count(*)::int` })
        .from(t.table)
        .where(where(filter));
      return Number(row?.n ?? 0);
    },
    async sum(db, filter) {
      const rows = await db
        .select({
          status: sql<string>`${t.status}`,
          currency: sql<string>`${t.currency}`,
          count: sql<number>`count(*)::int`,
          amount: sql<string>`sum(${t.total})::text`,
        })
        .from(t.table)
        .where(where(filter))
        .groupBy(t.status, t.currency);
      return rows.map((r) => ({ ...r, count: Number(r.count) }));
    },
    async find(db, orgId, ref) {
      const [row] = await db
        .select(t.columns)
        .from(t.table)
        .where(
          and(
            eq(t.orgId, orgId),
            t.only,
            or(eq(t.id, ref), eq(t.externalId, ref), eq(t.number, ref)),
          ),
        )
        .orderBy(
          desc(sql`${t.id} = ${ref}`),
          desc(sql`${t.externalId} = ${ref}`),
          desc(t.issueDate),
          desc(t.id),
        )
        .limit(1);
      return row as Row | undefined;
    },
    async lines(db, orgId, documentId) {
      const rows = await db
        .select({
          lineNumber: l.lineNumber,
          description: l.description,
          quantity: l.quantity,
          unitAmount: l.unitAmount,
          lineAmount: l.lineAmount,
          itemCode: l.itemCode,
          accountCode: l.accountCode,
        })
        .from(l.table)
        .where(and(eq(l.orgId, orgId), eq(l.documentId, documentId)))
        .orderBy(asc(l.lineNumber), asc(l.id));
      return rows as IssuedDocumentLineRow[];
    },
  };
}
