import { listAccountLabels } from "../../db/queries/cash-items.ts";
import {
  findCreditNote,
  listCreditNoteAllocations,
  listCreditNoteLines,
} from "../../db/queries/credit-notes.ts";
import { indexAccountLabels } from "../../domain/pagination/account-labels.ts";
import { dateTimeOf, decimalText } from "../../domain/pagination/format.ts";
import { canSeeSensitive, requireScope, type ServiceContext } from "../context.ts";
import { NotFoundError } from "../errors.ts";
import { hiddenContacts, isHidden } from "../lists/paging.ts";
import { type DocumentLine, toDocumentLines } from "./document-lines.ts";
import { type CreditNote, toCreditNote } from "./list-credit-notes.ts";

/** An invoice the credit was applied to (spec: CreditNoteAllocation). */
export interface CreditNoteAllocation {
  invoiceNumber?: string;
  invoiceExternalId?: string;
  amount?: string;
  date?: string;
}

/** The list row plus its reference, allocations and lines. */
export interface CreditNoteDrill extends CreditNote {
  reference?: string;
  allocations: CreditNoteAllocation[];
  lineItems: DocumentLine[];
}

export interface CreditNoteDrillResponse {
  creditNote: CreditNoteDrill;
  /** Lines whose sensitive account code was blanked; 0 with READ_SENSITIVE. */
  redactedItemCount: number;
}

/**
 * One receivable credit note by our id, the ledger's CreditNoteID or its number, with its live
 * allocations (by date) and its lines (by line number). Without READ_SENSITIVE, a credit note of
 * a sensitive contact is answered exactly as an unknown one (404), and lines on sensitive
 * accounts lose their accountCode (counted in redactedItemCount).
 *
 * @throws NotFoundError
 */
export async function getCreditNote({
  ctx,
  id,
}: {
  ctx: ServiceContext;
  id: string;
}): Promise<CreditNoteDrillResponse> {
  requireScope(ctx, "READ_INVOICES");
  const seeSensitive = canSeeSensitive(ctx);
  // An id PostgreSQL text cannot hold (NUL) or no ledger would issue names nothing.
  if (id.includes("\u0000") || id.length > 255) throw new NotFoundError("credit note");
  const [row, hidden] = await Promise.all([
    findCreditNote(ctx.db, ctx.org.id, id),
    hiddenContacts(ctx),
  ]);
  if (!row || isHidden(hidden, row.contactExternalId)) throw new NotFoundError("credit note");
  const [lineRows, allocationRows, accountRows] = await Promise.all([
    listCreditNoteLines(ctx.db, ctx.org.id, row.id),
    listCreditNoteAllocations(ctx.db, ctx.org.id, row.id),
    seeSensitive ? Promise.resolve([]) : listAccountLabels(ctx.db, ctx.org.id),
  ]);
  const { lines, redacted } = toDocumentLines(
    lineRows,
    seeSensitive ? undefined : indexAccountLabels(accountRows),
  );
  const allocations = allocationRows.map((a) => {
    const out: CreditNoteAllocation = {};
    if (a.invoiceNumber !== null) out.invoiceNumber = a.invoiceNumber;
    if (a.invoiceExternalId !== null) out.invoiceExternalId = a.invoiceExternalId;
    out.amount = decimalText(a.amount);
    if (a.date !== null) out.date = dateTimeOf(a.date);
    return out;
  });
  return {
    creditNote: {
      ...toCreditNote(row),
      ...(row.reference !== null ? { reference: row.reference } : {}),
      allocations,
      lineItems: lines,
    },
    redactedItemCount: redacted,
  };
}
