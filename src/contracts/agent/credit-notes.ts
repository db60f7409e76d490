import { z } from "@hono/zod-openapi";
import { LEDGER_STATUSES } from "../../db/schema/index.ts";
import { withAlerts } from "./alerts.ts";
import { dateTime, decimal, listResponseFields, totalsSchema } from "./invoices.ts";
import { issueDateListQuery, statusParam } from "./list-params.ts";

export const CreditNoteSchema = z
  .object({
    id: z.string().openapi({ description: "Service id.", example: "cn_5kq2m8x3c9d1v7b4n6ht" }),
    externalId: z.string().openapi({
      description: "The ledger's CreditNoteID.",
      example: "30000000-0000-4000-8000-000000000001",
    }),
    creditNoteNumber: z.string().optional().openapi({ example: "CN-0001" }),
    contactId: z.string().optional().openapi({
      description: "The ledger contact id (`id` in /contacts).",
      example: "c0000000-0000-4000-8000-000000000001",
    }),
    contactName: z.string().optional().openapi({ example: "Acme Corp" }),
    issueDate: dateTime(
      "The credit note's date; absent only if the ledger sent none.",
      "2024-02-05T00:00:00.000Z",
    ).optional(),
    status: z.enum(["FORECAST", "ACTUAL", "CANCELLED"]).openapi({
      description: "Cash-flow label: PAID → ACTUAL; VOIDED, DELETED → CANCELLED; else FORECAST.",
    }),
    ledgerStatus: z.enum(LEDGER_STATUSES).openapi({ description: "The ledger's raw status." }),
    total: decimal("Gross total.", "110"),
    remainingCredit: decimal("Part not yet allocated or refunded.", "40"),
    allocatedAmount: decimal("total − remainingCredit.", "70"),
    currency: z.string().openapi({ example: "AUD" }),
  })
  .openapi("CreditNote", { description: "A receivable credit note." });

export const CreditNoteAllocationSchema = z
  .object({
    invoiceNumber: z.string().optional().openapi({ example: "INV-0009" }),
    invoiceExternalId: z.string().optional().openapi({
      description: "The ledger's InvoiceID of the invoice credited (`externalId` in /invoices).",
    }),
    amount: decimal("Amount applied.", "50").optional(),
    date: dateTime("When it was applied.").optional(),
  })
  .openapi("CreditNoteAllocation", { description: "An invoice the credit was applied to." });

/** The six optional fields of credit-note and purchase-order lines. */
function documentLineSchema(name: string) {
  return z
    .object({
      description: z.string().optional(),
      quantity: decimal("Quantity.", "1").optional(),
      unitAmount: decimal("Unit price as the ledger gives it.", "100").optional(),
      lineAmount: decimal("Line amount as the ledger gives it.", "100").optional(),
      itemCode: z.string().optional().openapi({ example: "WIDGET" }),
      accountCode: z
        .string()
        .optional()
        .openapi({
          description:
            "The line's account code. Without READ_SENSITIVE it is absent on lines of accounts " +
            "flagged sensitive (the line keeps its place; counted in redactedItemCount).",
          example: "200",
        }),
    })
    .openapi(name, { description: "A line; every field absent when the ledger gave none." });
}

export const CreditNoteLineSchema = documentLineSchema("CreditNoteLine");
export const PurchaseOrderLineSchema = documentLineSchema("PurchaseOrderLine");

export const CreditNoteDrillSchema = CreditNoteSchema.extend({
  reference: z.string().optional().openapi({ example: "Returned widgets" }),
  allocations: z.array(CreditNoteAllocationSchema).openapi({
    description: "Live allocations (deleted ones left out), by date.",
  }),
  lineItems: z.array(CreditNoteLineSchema).openapi({ description: "Lines, by line number." }),
}).openapi("CreditNoteDrill", {
  description: "The list row plus its reference, allocations and lines.",
});

export const CreditNoteTotalsSchema = totalsSchema("CreditNoteTotals", LEDGER_STATUSES, "total");

export const CreditNotesResponseSchema = withAlerts(
  z.object({
    creditNotes: z.array(CreditNoteSchema),
    ...listResponseFields("Credit notes", CreditNoteTotalsSchema),
  }),
).openapi("CreditNotesResponse");

/** `redactedItemCount` of the credit-note and purchase-order drills. */
export const blankedLinesCount = z
  .number()
  .int()
  .openapi({
    description:
      "Lines whose account code was blanked because the account is flagged sensitive; 0 " +
      "with READ_SENSITIVE.",
  });

export const CreditNoteDrillResponseSchema = withAlerts(
  z.object({ creditNote: CreditNoteDrillSchema, redactedItemCount: blankedLinesCount }),
).openapi("CreditNoteDrillResponse");

export type CreditNotesResponse = z.infer<typeof CreditNotesResponseSchema>;
export type CreditNoteDrillResponse = z.infer<typeof CreditNoteDrillResponseSchema>;

export const ListCreditNotesQuerySchema = issueDateListQuery(
  statusParam(LEDGER_STATUSES, "raw ledger credit-note statuses"),
);

/** `{id}` of the drills: our id, the ledger's id or the document number. */
export function documentIdParam(what: string, example: string) {
  return z.object({
    id: z.string().openapi({
      param: { name: "id", in: "path" },
      description: `The ${what}: our id, the ledger's id, or its number.`,
      example,
    }),
  });
}
