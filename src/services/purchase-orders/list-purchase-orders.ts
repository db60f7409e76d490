import {
  countPurchaseOrders,
  listPurchaseOrderPage,
  type PurchaseOrderFilter,
  type PurchaseOrderRow,
  type PurchaseOrderStatus,
  type SuppressedReason,
  sumPurchaseOrders,
} from "../../db/queries/purchase-orders.ts";
import { PURCHASE_ORDER_STATUSES } from "../../db/schema/index.ts";
import { dateTimeOrNull, decimalText } from "../../domain/pagination/format.ts";
import { parseStatusFilter } from "../../domain/pagination/params.ts";
import type { StatusTotals } from "../../domain/pagination/totals.ts";
import { requireScope, type ServiceContext } from "../context.ts";
import { InvalidParameterError } from "../errors.ts";
import {
  bindCursor,
  countWithStatusTotals,
  hiddenContacts,
  isHidden,
  type ListFields,
  type ListPaging,
  listBody,
  loadListPage,
  planListPage,
} from "../invoices/paging.ts";

/** The query of GET /api/agent/purchase-orders, validated by the route. */
export interface ListPurchaseOrdersInput {
  /** Comma-separated raw purchase-order statuses (DRAFT, SUBMITTED, AUTHORISED, BILLED, DELETED). */
  status?: string | string[] | undefined;
  contactId?: string | undefined;
  /** `YYYY-MM-DD`, inclusive, on the issue date. */
  dateFrom?: string | undefined;
  dateTo?: string | undefined;
  cursor?: string | undefined;
  limit: number;
  autoPaginate: boolean;
  totals: boolean;
}

/**
 * A purchase order (spec: PurchaseOrder). Every field is present; those the ledger left empty
 * are null.
 */
export interface PurchaseOrder {
  id: string;
  externalId: string;
  purchaseOrderNumber: string | null;
  reference: string | null;
  contactId: string | null;
  contactName: string | null;
  status: PurchaseOrderStatus;
  issueDate: string | null;
  deliveryDate: string | null;
  expectedArrivalDate: string | null;
  total: string;
  currency: string;
  suppressedReason: SuppressedReason | null;
}

export type PurchaseOrdersPage = { purchaseOrders: PurchaseOrder[] } & ListFields<StatusTotals>;

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
  if (input.dateFrom && input.dateTo && input.dateFrom > input.dateTo) {
    throw new InvalidParameterError("dateFrom", "dateFrom must not be after dateTo.");
  }
  const statuses = parseStatusFilter(input.status, PURCHASE_ORDER_STATUSES);
  const filter: PurchaseOrderFilter = {
    orgId: ctx.org.id,
    statuses,
    contactId: input.contactId,
    dateFrom: input.dateFrom,
    dateTo: input.dateTo,
  };
  const binding = bindCursor("purchase-orders", ctx.org.id, {
    status: statuses,
    contactId: input.contactId ?? null,
    dateFrom: input.dateFrom ?? null,
    dateTo: input.dateTo ?? null,
  });
  const plan = planListPage(input, binding, paging.cursorKey);
  const [{ page, counted }, hidden] = await Promise.all([
    loadListPage(input, plan, binding, paging, {
      page: (after, limit) => listPurchaseOrderPage(ctx.db, filter, { after, limit }),
      position: (r) => ({ key: r.issueDate, id: r.id }),
      count: () => countPurchaseOrders(ctx.db, filter),
      countWithTotals: () =>
        countWithStatusTotals(PURCHASE_ORDER_STATUSES, () => sumPurchaseOrders(ctx.db, filter)),
    }),
    hiddenContacts(ctx),
  ]);
  let redactedItemCount = 0;
  const purchaseOrders: PurchaseOrder[] = [];
  for (const row of page.rows) {
    if (isHidden(hidden, row.contactExternalId)) redactedItemCount += 1;
    else purchaseOrders.push(toPurchaseOrder(row));
  }
  return listBody("purchaseOrders", purchaseOrders, page, await counted, redactedItemCount);
}
