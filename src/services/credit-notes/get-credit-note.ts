import type { z } from "@hono/zod-openapi";
import type { alertFields } from "../../contracts/agent/alerts.ts";
import type {
  CreditNoteAllocationSchema,
  CreditNoteDrillResponseSchema,
} from "../../contracts/agent/credit-notes.ts";
import { creditNoteQueries, listCreditNoteAllocations } from "../../db/queries/credit-notes.ts";
import { dateTimeOf, decimalText } from "../../domain/pagination/format.ts";
import { requireScope, type ServiceContext } from "../context.ts";
import { drillIssuedDocument } from "../lists/document-drill.ts";
import { toCreditNote } from "./list-credit-notes.ts";
/** An invoice the credit was applied to (spec: CreditNoteAllocation). */
export type CreditNoteAllocation = z.infer<typeof CreditNoteAllocationSchema>;

/** The drill without the alerts the transport adds. */
export type CreditNoteDrillResponse = Omit<
  z.infer<typeof CreditNoteDrillResponseSchema>,
  keyof typeof alertFields
>;

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
  const { row, lines, redacted } = await drillIssuedDocument(
    ctx,
    creditNoteQueries,
    id,
    "credit note",
  );
  const allocationRows = await listCreditNoteAllocations(ctx.db, ctx.org.id, row.id);
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
