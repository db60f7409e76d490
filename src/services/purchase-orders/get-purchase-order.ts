import type { z } from "@hono/zod-openapi";
import type { alertFields } from "../../contracts/agent/alerts.ts";
import type { PurchaseOrderDrillResponseSchema } from "../../contracts/agent/purchase-orders.ts";
import { purchaseOrderQueries } from "../../db/queries/purchase-orders.ts";
import { requireScope, type ServiceContext } from "../context.ts";
import { drillIssuedDocument } from "../lists/document-drill.ts";
import { toPurchaseOrder } from "./list-purchase-orders.ts";
/** The drill without the alerts the transport adds. */
export type PurchaseOrderDrillResponse = Omit<
  z.infer<typeof PurchaseOrderDrillResponseSchema>,
  keyof typeof alertFields
>;

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
