import { and, asc, desc, eq, gte, inArray, lte, or, type SQL, sql } from "drizzle-orm";
import type { DbOrTx } from "../client.ts";
import { purchaseOrderLines, purchaseOrders } from "../schema/index.ts";
import { descendingAfter, type KeysetAfter, type StatusCurrencySum } from "./cash-items.ts";

/*
 * Reads behind GET /api/agent/purchase-orders and /purchase-orders/{id}. Every query is filtered
 * by org_id.
 */

export type PurchaseOrderStatus = (typeof purchaseOrders.status.enumValues)[number];
export type SuppressedReason = NonNullable<
  (typeof purchaseOrders.$inferSelect)["suppressedReason"]
>;

export interface PurchaseOrderFilter {
  orgId: string;
  /** null = every status; an empty list matches nothing. */
  statuses: readonly PurchaseOrderStatus[] | null;
  contactId?: string | undefined;
  /** Inclusive bounds on the issue date. */
  dateFrom?: string | undefined;
  dateTo?: string | undefined;
}

function orderWhere(f: PurchaseOrderFilter): SQL | undefined {
  return and(
    eq(purchaseOrders.orgId, f.orgId),
    f.statuses === null
      ? undefined
      : f.statuses.length === 0
        ? sql`false`
        : inArray(purchaseOrders.status, [...f.statuses]),
    f.contactId === undefined ? undefined : eq(purchaseOrders.contactExternalId, f.contactId),
    f.dateFrom === undefined ? undefined : gte(purchaseOrders.issueDate, f.dateFrom),
    f.dateTo === undefined ? undefined : lte(purchaseOrders.issueDate, f.dateTo),
  );
}

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

const columns = () => ({
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
});

/** A page in the order issueDate DESC, id DESC (undated first), strictly after `after`. */
export async function listPurchaseOrderPage(
  db: DbOrTx,
  filter: PurchaseOrderFilter,
  opts: { after: KeysetAfter | undefined; limit: number },
): Promise<PurchaseOrderRow[]> {
  return db
    .select(columns())
    .from(purchaseOrders)
    .where(
      and(
        orderWhere(filter),
        descendingAfter(purchaseOrders.issueDate, purchaseOrders.id, opts.after, "date"),
      ),
    )
    .orderBy(desc(purchaseOrders.issueDate), desc(purchaseOrders.id))
    .limit(opts.limit);
}

export async function countPurchaseOrders(
  db: DbOrTx,
  filter: PurchaseOrderFilter,
): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(purchaseOrders)
    .where(orderWhere(filter));
  return Number(row?.n ?? 0);
}

/**
 * The totals aggregate, in SQL: matched rows grouped by (status, currency), each group's count
 * and summed `total`. One pass over the matched set (PostgreSQL may split it over parallel
 * workers); never summed in JavaScript.
 */
export async function sumPurchaseOrders(
  db: DbOrTx,
  filter: PurchaseOrderFilter,
): Promise<StatusCurrencySum[]> {
  const rows = await db
    .select({
      status: sql<string>`${purchaseOrders.status}`,
      currency: purchaseOrders.currency,
      count: sql<number>`count(*)::int`,
      amount: sql<string>`sum(${purchaseOrders.total})::text`,
    })
    .from(purchaseOrders)
    .where(orderWhere(filter))
    .groupBy(purchaseOrders.status, purchaseOrders.currency);
  return rows.map((r) => ({ ...r, count: Number(r.count) }));
}

/**
 * The purchase order named by `ref`: our id, the ledger's PurchaseOrderID, or its number.
 * Several matches resolve to our id first, then the ledger id, then the most recent.
 */
export async function findPurchaseOrder(
  db: DbOrTx,
  orgId: string,
  ref: string,
): Promise<PurchaseOrderRow | undefined> {
  const [row] = await db
    .select(columns())
    .from(purchaseOrders)
    .where(
      and(
        eq(purchaseOrders.orgId, orgId),
        or(
          eq(purchaseOrders.id, ref),
          eq(purchaseOrders.externalId, ref),
          eq(purchaseOrders.purchaseOrderNumber, ref),
        ),
      ),
    )
    .orderBy(
      desc(sql`${purchaseOrders.id} = ${ref}`),
      desc(sql`${purchaseOrders.externalId} = ${ref}`),
      desc(purchaseOrders.issueDate),
      desc(purchaseOrders.id),
    )
    .limit(1);
  return row;
}

/** Lines of one purchase order, by line number. */
export async function listPurchaseOrderLines(db: DbOrTx, orgId: string, orderId: string) {
  return db
    .select({
      lineNumber: purchaseOrderLines.lineNumber,
      description: purchaseOrderLines.description,
      quantity: purchaseOrderLines.quantity,
      unitAmount: purchaseOrderLines.unitAmount,
      lineAmount: purchaseOrderLines.lineAmount,
      itemCode: purchaseOrderLines.itemCode,
      accountCode: purchaseOrderLines.accountCode,
    })
    .from(purchaseOrderLines)
    .where(
      and(eq(purchaseOrderLines.orgId, orgId), eq(purchaseOrderLines.purchaseOrderId, orderId)),
    )
    .orderBy(asc(purchaseOrderLines.lineNumber), asc(purchaseOrderLines.id));
}
