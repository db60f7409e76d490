import { listAccountLabels } from "../../db/queries/cash-items.ts";
import { findPurchaseOrder, listPurchaseOrderLines } from "../../db/queries/purchase-orders.ts";
import { indexAccountLabels } from "../../domain/pagination/account-labels.ts";
import { canSeeSensitive, requireScope, type ServiceContext } from "../context.ts";
import { type DocumentLine, toDocumentLines } from "../credit-notes/document-lines.ts";
import { NotFoundError } from "../errors.ts";
import { hiddenContacts, isHidden } from "../lists/paging.ts";
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
  const seeSensitive = canSeeSensitive(ctx);
  // An id PostgreSQL text cannot hold (NUL) or no ledger would issue names nothing.
  if (id.includes("\u0000") || id.length > 255) throw new NotFoundError("purchase order");
  const [row, hidden] = await Promise.all([
    findPurchaseOrder(ctx.db, ctx.org.id, id),
    hiddenContacts(ctx),
  ]);
  if (!row || isHidden(hidden, row.contactExternalId)) throw new NotFoundError("purchase order");
  const [lineRows, accountRows] = await Promise.all([
    listPurchaseOrderLines(ctx.db, ctx.org.id, row.id),
    seeSensitive ? Promise.resolve([]) : listAccountLabels(ctx.db, ctx.org.id),
  ]);
  const { lines, redacted } = toDocumentLines(
    lineRows,
    seeSensitive ? undefined : indexAccountLabels(accountRows),
  );
  return {
    purchaseOrder: { ...toPurchaseOrder(row), lineItems: lines },
    redactedItemCount: redacted,
  };
}
