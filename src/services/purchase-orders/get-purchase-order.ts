import { purchaseOrderQueries } from "../../db/queries/purchase-orders.ts";
import { requireScope, type ServiceContext } from "../context.ts";
import { type DocumentLine, drillIssuedDocument } from "../lists/document-drill.ts";
import { type PurchaseOrder, toPurchaseOrder } from "./list-purchase-orders.ts";
/** The list row plus its lines. */
export interface PurchaseOrderDrill extends PurchaseOrder {
  lineItems: DocumentLine[];
}

export interface PurchaseOrderDrillResponse {
  purchaseOrder: PurchaseOrderDrill;
  /** Lines whose sensitive account code was blanked; 0 with READ_SENSITIVE. */
  redactedItemCount: number;
}

/**
 * One purchase order by our id, the ledger's PurchaseOrderID or its number, with its lines.
 * Without READ_SENSITIVE, an order of a sensitive contact answers exactly as an unknown one
 * (404), and lines on sensitive accounts lose their accountCode (counted in redactedItemCount).
 *
 * @throws NotFoundError
 */
export async function getPurchaseOrder({
  ctx,
  id,
}: {
  ctx: ServiceContext;
  id: string;
}): Promise<PurchaseOrderDrillResponse> {
  requireScope(ctx, "READ_PURCHASE_ORDERS");
  const { row, lines, redacted } = await drillIssuedDocument(
    ctx,
    purchaseOrderQueries,
    id,
    "purchase order",
  );
  return {
    purchaseOrder: { ...toPurchaseOrder(row), lineItems: lines },
    redactedItemCount: redacted,
  };
}
