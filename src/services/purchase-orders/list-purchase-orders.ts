import type { z } from "@hono/zod-openapi";
import type { PurchaseOrderSchema } from "../../contracts/agent/purchase-orders.ts";
import {
  type PurchaseOrderRow,
  type PurchaseOrderStatus,
  purchaseOrderQueries,
} from "../../db/queries/purchase-orders.ts";
import { PURCHASE_ORDER_STATUSES } from "../../db/schema/index.ts";
import { dateTimeOrNull, decimalText } from "../../domain/pagination/format.ts";
import { requireScope, type ServiceContext } from "../context.ts";
import {
  type DocumentListInput,
  type IssuedDocumentList,
  type IssuedDocumentsPage,
  listIssuedDocuments,
} from "../lists/document-lists.ts";
import type { ListPaging } from "../lists/paging.ts";

/**
 * The query of GET /api/agent/purchase-orders (raw purchase-order statuses: DRAFT, SUBMITTED,
 * AUTHORISED, BILLED, DELETED; dates on the issue date), validated by the route.
 */
export type ListPurchaseOrdersInput = DocumentListInput;

/**
 * A purchase order (spec: PurchaseOrder). Every field is present; those the ledger left empty
 * are null.
 */
export type PurchaseOrder = z.infer<typeof PurchaseOrderSchema>;

export type PurchaseOrdersPage = IssuedDocumentsPage<"purchaseOrders", PurchaseOrder>;

/** The API row, keys in the spec's order. */
export function toPurchaseOrder(row: PurchaseOrderRow): PurchaseOrder {
  return {
    id: row.id,
    externalId: row.externalId,
    purchaseOrderNumber: row.purchaseOrderNumber,
    reference: row.reference,
    contactId: row.contactExternalId,
    contactName: row.contactName,
    status: row.status,
    issueDate: dateTimeOrNull(row.issueDate),
    deliveryDate: dateTimeOrNull(row.deliveryDate),
    expectedArrivalDate: dateTimeOrNull(row.expectedArrivalDate),
    total: decimalText(row.total),
    currency: row.currency,
    suppressedReason: row.suppressedReason,
  };
}

/** Purchase orders as a list by issue date (binding `purchase-orders`, as ever). */
const PURCHASE_ORDERS: IssuedDocumentList<
  "purchaseOrders",
  PurchaseOrderStatus,
  PurchaseOrderRow,
  PurchaseOrder
> = {
  name: "purchaseOrders",
  resource: "purchase-orders",
  statuses: PURCHASE_ORDER_STATUSES,
  page: purchaseOrderQueries.page,
  count: purchaseOrderQueries.count,
  sum: purchaseOrderQueries.sum,
  toRow: toPurchaseOrder,
};

/**
 * One page (or with autoPaginate the whole set up to 5,000) of the organisation's purchase
 * orders, in the order issueDate DESC, id DESC (undated first); `status` matches the ledger's
 * own purchase-order statuses. Without READ_SENSITIVE, orders of sensitive contacts are withheld
 * and counted in `redactedItemCount`; `totalCount` and `totals` (over `total`) count every
 * matched row.
 *
 * @throws ServiceError `invalid_cursor`, `invalid_parameter` (dateFrom after dateTo).
 */
export async function listPurchaseOrders({
  ctx,
  input,
  paging,
}: {
  ctx: ServiceContext;
  input: ListPurchaseOrdersInput;
  /** The deployment's cursor key and list sizes (routes make it once: `listPaging`). */
  paging: ListPaging;
}): Promise<PurchaseOrdersPage> {
  requireScope(ctx, "READ_PURCHASE_ORDERS");
  return listIssuedDocuments(ctx, input, paging, PURCHASE_ORDERS);
}
