import type { z } from "@hono/zod-openapi";
import type { CreditNoteSchema } from "../../contracts/agent/credit-notes.ts";
import { type CreditNoteRow, creditNoteQueries } from "../../db/queries/credit-notes.ts";
import { LEDGER_STATUSES, type LedgerStatus } from "../../db/schema/index.ts";
import { dateTimeOf, decimalText } from "../../domain/pagination/format.ts";
import { requireScope, type ServiceContext } from "../context.ts";
import {
  type DocumentListInput,
  type IssuedDocumentList,
  type IssuedDocumentsPage,
  listIssuedDocuments,
} from "../lists/document-lists.ts";
import type { ListPaging } from "../lists/paging.ts";

/**
 * The query of GET /api/agent/credit-notes (ledger statuses, matched as they are; dates on the
 * issue date), validated by the route.
 */
export type ListCreditNotesInput = DocumentListInput;

/** A receivable credit note (spec: CreditNote). */
export type CreditNote = z.infer<typeof CreditNoteSchema>;

export type CreditNotesPage = IssuedDocumentsPage<"creditNotes", CreditNote>;

/** The API row, keys in the spec's order. */
export function toCreditNote(row: CreditNoteRow): CreditNote {
  // Filled in order below; every required field is set before the object escapes.
  const out = { id: row.id, externalId: row.externalId } as CreditNote;
  if (row.creditNoteNumber !== null) out.creditNoteNumber = row.creditNoteNumber;
  if (row.contactExternalId !== null) out.contactId = row.contactExternalId;
  if (row.contactName !== null) out.contactName = row.contactName;
  if (row.issueDate !== null) out.issueDate = dateTimeOf(row.issueDate);
  out.status = row.status;
  out.ledgerStatus = row.ledgerStatus;
  out.total = decimalText(row.total);
  out.remainingCredit = decimalText(row.remainingCredit);
  out.allocatedAmount = decimalText(row.allocatedAmount);
  out.currency = row.currency;
  return out;
}

/** Receivable credit notes as a list by issue date (binding `credit-notes`, as ever). */
const CREDIT_NOTES: IssuedDocumentList<"creditNotes", LedgerStatus, CreditNoteRow, CreditNote> = {
  name: "creditNotes",
  resource: "credit-notes",
  statuses: LEDGER_STATUSES,
  page: creditNoteQueries.page,
  count: creditNoteQueries.count,
  sum: creditNoteQueries.sum,
  toRow: toCreditNote,
};

/**
 * One page (or with autoPaginate the whole set up to 5,000) of the organisation's receivable
 * credit notes, every status, in the order issueDate DESC, id DESC (undated first). Without
 * READ_SENSITIVE, credit notes of sensitive contacts are withheld and counted in
 * `redactedItemCount`; `totalCount` and `totals` (over `total`) count every matched row.
 *
 * @throws ServiceError `invalid_cursor`, `invalid_parameter` (dateFrom after dateTo).
 */
export async function listCreditNotes({
  ctx,
  input,
  paging,
}: {
  ctx: ServiceContext;
  input: ListCreditNotesInput;
  /** The deployment's cursor key and list sizes (routes make it once: `listPaging`). */
  paging: ListPaging;
}): Promise<CreditNotesPage> {
  requireScope(ctx, "READ_INVOICES");
  return listIssuedDocuments(ctx, input, paging, CREDIT_NOTES);
}
