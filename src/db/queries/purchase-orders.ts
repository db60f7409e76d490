import { purchaseOrderLines, purchaseOrders } from "../schema/index.ts";
import { issuedDocumentQueries } from "./issued-documents.ts";

/*
 * Reads behind GET /api/agent/purchase-orders and /purchase-orders/{id}. Every query is filtered
 * by org_id.
 */

export type PurchaseOrderStatus = (typeof purchaseOrders.status.enumValues)[number];
export type SuppressedReason = NonNullable<
  (typeof purchaseOrders.$inferSelect)["suppressedReason"]
>;

/** A purchase order row, before redaction. */
export interface PurchaseOrderRow {
  id: string;
  externalId: string;
  purchaseOrderNumber: string | null;
  reference: string | null;
  contactExternalId: string | null;
  contactName: string | null;
  status: PurchaseOrderStatus;
  issueDate: string | null;
  deliveryDate: string | null;
  expectedArrivalDate: string | null;
  total: string;
  currency: string;
  suppressedReason: SuppressedReason | null;
}

const columns = {
  id: purchaseOrders.id,
  externalId: purchaseOrders.externalId,
  purchaseOrderNumber: purchaseOrders.purchaseOrderNumber,
  reference: purchaseOrders.reference,
  contactExternalId: purchaseOrders.contactExternalId,
  contactName: purchaseOrders.contactName,
  status: purchaseOrders.status,
  issueDate: purchaseOrders.issueDate,
  deliveryDate: purchaseOrders.deliveryDate,
  expectedArrivalDate: purchaseOrders.expectedArrivalDate,
  total: purchaseOrders.total,
  currency: purchaseOrders.currency,
  suppressedReason: purchaseOrders.suppressedReason,
};

/** The queries of GET /api/agent/purchase-orders and /purchase-orders/{id}. */
export const purchaseOrderQueries = issuedDocumentQueries<PurchaseOrderRow, PurchaseOrderStatus>({
  table: purchaseOrders,
  id: purchaseOrders.id,
  orgId: purchaseOrders.orgId,
  externalId: purchaseOrders.externalId,
  number: purchaseOrders.purchaseOrderNumber,
  issueDate: purchaseOrders.issueDate,
  contactExternalId: purchaseOrders.contactExternalId,
  status: purchaseOrders.status,
  currency: purchaseOrders.currency,
  total: purchaseOrders.total,
  columns,
  lines: {
    table: purchaseOrderLines,
    orgId: purchaseOrderLines.orgId,
    documentId: purchaseOrderLines.purchaseOrderId,
    id: purchaseOrderLines.id,
    lineNumber: purchaseOrderLines.lineNumber,
    description: purchaseOrderLines.description,
    quantity: purchaseOrderLines.quantity,
    unitAmount: purchaseOrderLines.unitAmount,
    lineAmount: purchaseOrderLines.lineAmount,
    itemCode: purchaseOrderLines.itemCode,
    accountCode: purchaseOrderLines.accountCode,
  },
});
