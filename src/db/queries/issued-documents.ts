import { and, asc, desc, eq, gte, inArray, lte, or, type SQL, sql } from "drizzle-orm";
import type { AnyPgColumn, PgTable, SelectedFields } from "drizzle-orm/pg-core";
import type { DbOrTx } from "../client.ts";
import { descendingAfter, type KeysetAfter, type StatusCurrencySum } from "./cash-items.ts";

/*
 * The reads behind the lists and drills of documents listed by issue date (credit notes,
 * purchase orders): one set of queries, made for each document table from its description.
 * Every query is filtered by org_id.
 */

/** The filters of a list by issue date. */
export interface IssuedDocumentFilter<S extends string> {
  orgId: string;
  /** null = every status; an empty list matches nothing. */
  statuses: readonly S[] | null;
  contactId?: string | undefined;
  /** Inclusive bounds on the issue date. */
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

/** A document table listed by issue date: its key columns, row and line table. */
export interface IssuedDocumentTable {
  table: PgTable;
  id: AnyPgColumn;
  orgId: AnyPgColumn;
  externalId: AnyPgColumn;
  /** The ledger's document number (a drill's reference may name it). */
  number: AnyPgColumn;
  issueDate: AnyPgColumn;
  contactExternalId: AnyPgColumn;
  /** The column `status` filters on and totals are bucketed by. */
  status: AnyPgColumn;
  currency: AnyPgColumn;
  /** The amount totals sum. */
  total: AnyPgColumn;
  /** The condition on rows the API shows (credit notes: the receivable ones); default all. */
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
  /** A page in the order issueDate DESC, id DESC (undated first), strictly after `after`. */
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
      f.dateFrom === undefined ? undefined : gte(t.issueDate, f.dateFrom),
      f.dateTo === undefined ? undefined : lte(t.issueDate, f.dateTo),
    );
  const l = t.lines;
  return {
    async page(db, filter, opts) {
      const rows = await db
        .select(t.columns)
        .from(t.table)
        .where(and(where(filter), descendingAfter(t.issueDate, t.id, opts.after, "date")))
        .orderBy(desc(t.issueDate), desc(t.id))
        .limit(opts.limit);
      return rows as Row[];
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
