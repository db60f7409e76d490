import { asc, eq, type SQL, sql } from "drizzle-orm";
import type { DbOrTx } from "../client.ts";
import {
  type CashItemStatus,
  cashItemLines,
  cashItems,
  type LedgerStatus,
  ledgerAccounts,
} from "../schema/index.ts";
import { issuedDocumentQueries, rowsOf } from "./issued-documents.ts";

/*
 * Reads behind GET /api/agent/invoices and /bills: the two lists are document types of the
 * shared descriptor (issued-documents.ts) over cash_items, each limited to its source and listed
 * by the document date; plus the lines of a page and the gating rows every list needs. Every
 * query is filtered by org_id.
 */

export type DocumentSource = "LEDGER_INVOICE" | "LEDGER_BILL";

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

const columns = {
  id: cashItems.id,
  externalId: cashItems.externalId,
  invoiceNumber: cashItems.invoiceNumber,
  reference: cashItems.reference,
  amount: cashItems.amount,
  currency: cashItems.currency,
  expectedDate: cashItems.expectedDate,
  actualDate: cashItems.actualDate,
  issueDate: cashItems.issueDate,
  status: cashItems.status,
  ledgerStatus: cashItems.ledgerStatus,
  contactExternalId: cashItems.contactExternalId,
  contactName: cashItems.contactName,
  category: cashItems.category,
  documentDate: cashItems.documentDate,
};

/**
 * The queries of one cash-item source. Ledger documents always carry a ledger status (the import
 * sets it from the ledger's required Status), so no `ledger_status is not null` test is needed;
 * leaving it out keeps the count an index-only scan.
 */
function cashDocumentQueries(source: DocumentSource) {
  return issuedDocumentQueries<CashDocumentRow, LedgerStatus>({
    table: cashItems,
    id: cashItems.id,
    orgId: cashItems.orgId,
    externalId: cashItems.externalId,
    number: cashItems.invoiceNumber,
    issueDate: cashItems.issueDate,
    listDate: cashItems.documentDate,
    contactExternalId: cashItems.contactExternalId,
    status: cashItems.ledgerStatus,
    currency: cashItems.currency,
    total: cashItems.amount,
    only: eq(cashItems.source, source),
    columns,
    lines: {
      table: cashItemLines,
      orgId: cashItemLines.orgId,
      documentId: cashItemLines.cashItemId,
      id: cashItemLines.id,
      lineNumber: cashItemLines.lineNumber,
      description: cashItemLines.description,
      quantity: cashItemLines.quantity,
      unitAmount: cashItemLines.unitAmount,
      lineAmount: cashItemLines.lineAmount,
      itemCode: cashItemLines.itemCode,
      accountCode: cashItemLines.accountCode,
    },
  });
}

/** The queries of GET /api/agent/invoices and /bills, by cash-item source. */
export const cashDocumentQueriesBySource = {
  LEDGER_INVOICE: cashDocumentQueries("LEDGER_INVOICE"),
  LEDGER_BILL: cashDocumentQueries("LEDGER_BILL"),
} satisfies Record<DocumentSource, unknown>;

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
