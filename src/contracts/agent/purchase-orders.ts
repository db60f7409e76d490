import { z } from "@hono/zod-openapi";
import { PURCHASE_ORDER_STATUSES } from "../../db/schema/index.ts";
import { withAlerts } from "./alerts.ts";
import { blankedLinesCount, documentIdParam, PurchaseOrderLineSchema } from "./credit-notes.ts";
import { decimal, listResponseFields, totalsSchema } from "./invoices.ts";
import { issueDateListQuery, statusParam } from "./list-params.ts";

const nullableDateTime = (description: string, example: string | null) =>
  z
    .string()
    .nullable()
    .openapi({
      description:
        `${description} Midnight UTC of the ledger's calendar date (\`YYYY-MM-DDT00:00:00.000Z\`); ` +
        "null when the ledger has none.",
      example,
    });

export const PurchaseOrderSchema = z
  .object({
    id: z.string().openapi({ description: "Service id.", example: "po_5kq2m8x3c9d1v7b4n6ht" }),
    externalId: z.string().openapi({
      description: "The ledger's PurchaseOrderID.",
      example: "40000000-0000-4000-8000-000000000001",
    }),
    purchaseOrderNumber: z.string().nullable().openapi({ example: "PO-0001" }),
    reference: z.string().nullable().openapi({ example: "April parts" }),
    contactId: z.string().nullable().openapi({
      description: "The supplier's ledger contact id (`id` in /contacts).",
    }),
    contactName: z.string().nullable().openapi({ example: "Parts Supplier Pty" }),
    status: z.enum(PURCHASE_ORDER_STATUSES).openapi({
      description: "The ledger's own purchase-order status, no cash-flow collapse.",
      example: "AUTHORISED",
    }),
    issueDate: nullableDateTime("The order's date.", "2024-04-01T00:00:00.000Z"),
    deliveryDate: nullableDateTime("Delivery date.", "2024-04-08T00:00:00.000Z"),
    expectedArrivalDate: nullableDateTime("Expected arrival date.", null),
    total: decimal("Gross, tax-inclusive total.", "275"),
    currency: z.string().openapi({ example: "AUD" }),
    suppressedReason: z
      .enum(["REFERENCE", "CONTACT_AMOUNT"])
      .nullable()
      .openapi({
        description:
          "Set at each sync when a supplier bill already covers the order, which the forecast " +
          "then leaves out (no double counting): `REFERENCE` when a bill of the same supplier " +
          "carries the order's number or reference as its number; otherwise `CONTACT_AMOUNT` " +
          "when a bill of the same supplier has the same total and currency and is dated from 7 " +
          "days before to 60 days after the order. A bill covers at most one order; voided and " +
          "deleted bills and deleted orders never match. null otherwise.",
        example: "REFERENCE",
      }),
  })
  .openapi("PurchaseOrder", {
    description: "A purchase order; every field present, possibly null.",
  });

export const PurchaseOrderDrillSchema = PurchaseOrderSchema.extend({
  lineItems: z.array(PurchaseOrderLineSchema).openapi({ description: "Lines, by line number." }),
}).openapi("PurchaseOrderDrill", { description: "The list row plus its lines." });

export const PurchaseOrderTotalsSchema = totalsSchema(
  "PurchaseOrderTotals",
  PURCHASE_ORDER_STATUSES,
  "total",
);

export const PurchaseOrdersResponseSchema = withAlerts(
  z.object({
    purchaseOrders: z.array(PurchaseOrderSchema),
    ...listResponseFields("Purchase orders", PurchaseOrderTotalsSchema),
  }),
).openapi("PurchaseOrdersResponse");

export const PurchaseOrderDrillResponseSchema = withAlerts(
  z.object({ purchaseOrder: PurchaseOrderDrillSchema, redactedItemCount: blankedLinesCount }),
).openapi("PurchaseOrderDrillResponse");

export type PurchaseOrdersResponse = z.infer<typeof PurchaseOrdersResponseSchema>;
export type PurchaseOrderDrillResponse = z.infer<typeof PurchaseOrderDrillResponseSchema>;

export const ListPurchaseOrdersQuerySchema = issueDateListQuery(
  statusParam(
    PURCHASE_ORDER_STATUSES,
    "purchase-order statuses (matched verbatim, no cash-flow mapping)",
  ),
);

export const PurchaseOrderIdParamSchema = documentIdParam("purchase order", "PO-0001");
