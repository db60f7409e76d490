import { and, asc, eq, gte, inArray, lte, type SQL, sql } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import type { DbOrTx } from "../client.ts";
import {
  type CashItemStatus,
  cashItemLines,
  cashItems,
  type LedgerStatus,
  ledgerAccounts,
} from "../schema/index.ts";

/*
 * Reads behind GET /api/agent/invoices and /bills: pages in a stable keyset order, the matched
 * count, the totals aggregate, and the lines of a page. Every query is filtered by org_id.
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

export type DocumentSource = "LEDGER_INVOICE" | "LEDGER_BILL";

/** The filters of an invoice or bill list. */
export interface CashDocumentFilter {
  orgId: string;
  source: DocumentSource;
  /** null = every status; an empty list matches nothing. */
  statuses: readonly LedgerStatus[] | null;
  contactId?: string | undefined;
  /** Inclusive bounds on the document date (issue date, else due date). */
  dateFrom?: string | undefined;
  dateTo?: string | undefined;
}

/**
 * The list's WHERE. Ledger documents always carry a ledger status (the import sets it from the
 * ledger's required Status), so no `ledger_status is not null` test is needed; leaving it out
 * keeps the count an index-only scan.
 */
function documentWhere(f: CashDocumentFilter): SQL | undefined {
  return and(
    eq(cashItems.orgId, f.orgId),
    eq(cashItems.source, f.source),
    f.statuses === null
      ? undefined
      : f.statuses.length === 0
        ? sql`false`
        : inArray(cashItems.ledgerStatus, [...f.statuses]),
    f.contactId === undefined ? undefined : eq(cashItems.contactExternalId, f.contactId),
    f.dateFrom === undefined ? undefined : gte(cashItems.documentDate, f.dateFrom),
    f.dateTo === undefined ? undefined : lte(cashItems.documentDate, f.dateTo),
  );
}

/** An invoice or bill row of a page, before redaction. */
export interface CashDocumentRow {
  id: string;
  externalId: string | null;
  invoiceNumber: string | null;
  reference: string | null;
  amount: string;
  currency: string;
  expectedDate: string;
  actualDate: string | null;
  issueDate: string | null;
  status: CashItemStatus;
  ledgerStatus: LedgerStatus | null;
  contactExternalId: string | null;
  contactName: string | null;
  category: string | null;
  /** The sort value (issue date, else due date). */
  documentDate: string | null;
}

/** The rows of a raw `db.execute()`: the same `{ rows }` shape on both drivers. */
function rowsOf<T>(result: unknown): T[] {
  return (result as { rows: T[] }).rows;
}

/**
 * A page of invoices or bills in the order `documentDate DESC, id DESC` (NULL dates first),
 * strictly after `after`, at most `limit` rows.
 *
 * Run as plain SQL whose column aliases are the row's field names: both drivers already return
 * NUMERIC and DATE as text, so the rows need no mapping (the query builder's per-field mapping
 * cost a third of a 5,000-row page).
 */
export async function listCashDocumentPage(
  db: DbOrTx,
  filter: CashDocumentFilter,
  opts: { after: KeysetAfter | undefined; limit: number },
): Promise<CashDocumentRow[]> {
  const where = and(
    documentWhere(filter),
    descendingAfter(cashItems.documentDate, cashItems.id, opts.after, "date"),
  );
  return rowsOf<CashDocumentRow>(
    await db.execute(sql`
      select id, external_id as "externalId", invoice_number as "invoiceNumber", reference,
             amount, currency, expected_date as "expectedDate", actual_date as "actualDate",
             issue_date as "issueDate", status, ledger_status as "ledgerStatus",
             contact_external_id as "contactExternalId", contact_name as "contactName",
             category, document_date as "documentDate"
        from ${cashItems}
       where ${where}
       order by document_date desc, id desc
       limit ${opts.limit}`),
  );
}

/** Rows matching the filters (before any redaction). */
export async function countCashDocuments(db: DbOrTx, filter: CashDocumentFilter): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(cashItems)
    .where(documentWhere(filter));
  return Number(row?.n ?? 0);
}

/** One group of the totals aggregate. */
export interface StatusCurrencySum {
  status: string;
  currency: string;
  count: number;
  amount: string;
}

/**
 * The totals aggregate, in SQL: matched rows grouped by (status, currency), each group's count
 * and summed `amount`. One pass over the matched set (PostgreSQL may split it over parallel
 * workers); never summed in JavaScript.
 */
export async function sumCashDocuments(
  db: DbOrTx,
  filter: CashDocumentFilter,
): Promise<StatusCurrencySum[]> {
  const rows = await db
    .select({
      status: sql<string>`${cashItems.ledgerStatus}`,
      currency: cashItems.currency,
      count: sql<number>`count(*)::int`,
      amount: sql<string>`sum(${cashItems.amount})::text`,
    })
    .from(cashItems)
    .where(documentWhere(filter))
    .groupBy(cashItems.ledgerStatus, cashItems.currency);
  return rows.map((r) => ({ ...r, count: Number(r.count) }));
}

/** A line of an invoice or bill. Decimals as PostgreSQL prints them. */
export interface CashDocumentLineRow {
  id: string;
  cashItemId: string;
  lineNumber: number;
  description: string | null;
  quantity: string | null;
  unitAmount: string | null;
  accountCode: string | null;
  accountExternalId: string | null;
  taxType: string | null;
  taxAmount: string;
  lineAmount: string;
  discountRate: string | null;
  discountAmount: string | null;
  /** quantity × unitAmount, exact (NUMERIC); null when either is null. */
  lineSubtotal: string | null;
}

/** The lines of the given invoices or bills, in one query, by document then line number. */
export async function listCashDocumentLines(
  db: DbOrTx,
  orgId: string,
  cashItemIds: readonly string[],
): Promise<CashDocumentLineRow[]> {
  if (cashItemIds.length === 0) return [];
  // Plain SQL for the same reason as the page; one array parameter whatever the page size.
  return rowsOf<CashDocumentLineRow>(
    await db.execute(sql`
      select id, cash_item_id as "cashItemId", line_number as "lineNumber", description,
             quantity, unit_amount as "unitAmount", account_code as "accountCode",
             account_external_id as "accountExternalId", tax_type as "taxType",
             tax_amount as "taxAmount", line_amount as "lineAmount",
             discount_rate as "discountRate", discount_amount as "discountAmount",
             (quantity * unit_amount)::text as "lineSubtotal"
        from ${cashItemLines}
       where org_id = ${orgId}
         and cash_item_id = any(${sql.param([...cashItemIds])}::text[])
       order by cash_item_id, line_number`),
  );
}

/** A chart-of-accounts entry as lists need it: to name lines and to know what is sensitive. */
export interface AccountLabelRow {
  code: string | null;
  externalId: string;
  name: string;
  status: string;
  isSensitive: boolean;
}

/** What gates a document list's rows: the accounts it needs and the sensitive contacts. */
export interface GatingRows {
  accounts: AccountLabelRow[];
  /** Ledger ids of the contacts flagged sensitive. */
  sensitiveContacts: string[];
}

/**
 * The chart of accounts (`accounts: "all"`, to name lines) or only its sensitive accounts
 * (`"sensitive"`, to mask codes), and optionally the sensitive contacts, in ONE round trip (a
 * UNION ALL with a discriminator): every list request needs both, and under load each extra
 * statement costs a pooled connection.
 */
export async function listGatingRows(
  db: DbOrTx,
  orgId: string,
  opts: { accounts: "all" | "sensitive" | "none"; contacts: boolean },
): Promise<GatingRows> {
  if (opts.accounts === "none" && !opts.contacts) return { accounts: [], sensitiveContacts: [] };
  const parts: SQL[] = [];
  if (opts.accounts !== "none") {
    parts.push(sql`select 'a' as kind, code, external_id as "externalId", name, status,
        is_sensitive as "isSensitive", id
      from ${ledgerAccounts} where org_id = ${orgId}
      ${opts.accounts === "sensitive" ? sql`and is_sensitive` : sql``}`);
  }
  if (opts.contacts) {
    // The partial index contacts_org_sensitive_idx holds exactly these rows.
    parts.push(sql`select 'c' as kind, null, external_id, null, null, true, id
      from contacts where org_id = ${orgId} and is_sensitive`);
  }
  const rows = rowsOf<AccountLabelRow & { kind: "a" | "c"; id: string }>(
    await db.execute(sql`${sql.join(parts, sql` union all `)} order by 1, 7`),
  );
  const accounts: AccountLabelRow[] = [];
  const sensitiveContacts: string[] = [];
  for (const r of rows) {
    if (r.kind === "c") sensitiveContacts.push(r.externalId);
    else {
      accounts.push({
        code: r.code,
        externalId: r.externalId,
        name: r.name,
        status: r.status,
        isSensitive: r.isSensitive,
      });
    }
  }
  return { accounts, sensitiveContacts };
}

/** The organisation's chart of accounts (small: tens to hundreds of rows). */
export async function listAccountLabels(db: DbOrTx, orgId: string): Promise<AccountLabelRow[]> {
  return db
    .select({
      code: ledgerAccounts.code,
      externalId: ledgerAccounts.externalId,
      name: ledgerAccounts.name,
      status: ledgerAccounts.status,
      isSensitive: ledgerAccounts.isSensitive,
    })
    .from(ledgerAccounts)
    .where(eq(ledgerAccounts.orgId, orgId))
    .orderBy(asc(ledgerAccounts.id));
}
