import { and, asc, eq, sql } from "drizzle-orm";
import type { DbOrTx } from "../client.ts";
import {
  type CashItemStatus,
  creditNoteAllocations,
  creditNoteLines,
  creditNotes,
  type LedgerStatus,
} from "../schema/index.ts";
import { issuedDocumentQueries } from "./issued-documents.ts";

/*
 * Reads behind GET /api/agent/credit-notes and /credit-notes/{id}: receivable credit notes
 * (ACCRECCREDIT) only. Every query is filtered by org_id.
 */

/** The ledger's receivable credit-note type: the only one the API lists. */
export const RECEIVABLE_CREDIT = "ACCRECCREDIT";

/** A credit note row, before redaction. Decimals as PostgreSQL prints them. */
export interface CreditNoteRow {
  id: string;
  externalId: string;
  creditNoteNumber: string | null;
  reference: string | null;
  contactExternalId: string | null;
  contactName: string | null;
  issueDate: string | null;
  status: CashItemStatus;
  ledgerStatus: LedgerStatus;
  total: string;
  remainingCredit: string;
  /** total − remainingCredit, exact. */
  allocatedAmount: string;
  currency: string;
}

const columns = {
  id: creditNotes.id,
  externalId: creditNotes.externalId,
  creditNoteNumber: creditNotes.creditNoteNumber,
  reference: creditNotes.reference,
  contactExternalId: creditNotes.contactExternalId,
  contactName: creditNotes.contactName,
  issueDate: creditNotes.issueDate,
  status: creditNotes.status,
  ledgerStatus: creditNotes.ledgerStatus,
  total: creditNotes.total,
  remainingCredit: creditNotes.remainingCredit,
  allocatedAmount: sql<string>`(${creditNotes.total} - ${creditNotes.remainingCredit})::text`,
  currency: creditNotes.currency,
};

/** The queries of GET /api/agent/credit-notes and /credit-notes/{id}. */
export const creditNoteQueries = issuedDocumentQueries<CreditNoteRow, LedgerStatus>({
  table: creditNotes,
  id: creditNotes.id,
  orgId: creditNotes.orgId,
  externalId: creditNotes.externalId,
  number: creditNotes.creditNoteNumber,
  issueDate: creditNotes.issueDate,
  contactExternalId: creditNotes.contactExternalId,
  status: creditNotes.ledgerStatus,
  currency: creditNotes.currency,
  total: creditNotes.total,
  only: eq(creditNotes.type, RECEIVABLE_CREDIT),
  columns,
  lines: {
    table: creditNoteLines,
    orgId: creditNoteLines.orgId,
    documentId: creditNoteLines.creditNoteId,
    id: creditNoteLines.id,
    lineNumber: creditNoteLines.lineNumber,
    description: creditNoteLines.description,
    quantity: creditNoteLines.quantity,
    unitAmount: creditNoteLines.unitAmount,
    lineAmount: creditNoteLines.lineAmount,
    itemCode: creditNoteLines.itemCode,
    accountCode: creditNoteLines.accountCode,
  },
});

/** Live allocations of one credit note, by date (undated last) then id. */
export async function listCreditNoteAllocations(db: DbOrTx, orgId: string, creditNoteId: string) {
  return db
    .select({
      invoiceNumber: creditNoteAllocations.invoiceNumber,
      invoiceExternalId: creditNoteAllocations.invoiceExternalId,
      amount: creditNoteAllocations.amount,
      date: creditNoteAllocations.date,
    })
    .from(creditNoteAllocations)
    .where(
      and(
        eq(creditNoteAllocations.orgId, orgId),
        eq(creditNoteAllocations.creditNoteId, creditNoteId),
      ),
    )
    .orderBy(sql`${creditNoteAllocations.date} asc nulls last`, asc(creditNoteAllocations.id));
}
