import { sql } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.ts";
import { cashItems, purchaseOrders } from "../../db/schema/index.ts";
import { money } from "../../domain/money.ts";

/*
 * The bill matcher: marks purchase orders that a supplier bill already covers, so the forecast
 * does not count the order and its bill twice. It runs inside every import, after the documents
 * are written, and recomputes `suppressedReason` for all of the organisation's orders from the
 * snapshot, so a removed or voided bill releases its order again.
 */

/** Days a CONTACT_AMOUNT bill may be dated before its order (an order raised after the fact). */
export const MATCH_DAYS_BEFORE = 7;
/** Days a CONTACT_AMOUNT bill may be dated after its order (delivery and invoicing lead time). */
export const MATCH_DAYS_AFTER = 60;

export type SuppressedReason = "REFERENCE" | "CONTACT_AMOUNT";

/** A purchase order as the matcher sees it. */
export interface OrderToMatch {
  id: string;
  /** The ledger's PurchaseOrderID: the deterministic processing order's tie-break. */
  externalId: string;
  status: string;
  contactId: string | null;
  number: string | null;
  reference: string | null;
  issueDate: string | null;
  total: string;
  currency: string;
}

/** A supplier bill as the matcher sees it. */
export interface BillToMatch {
  id: string;
  externalId: string;
  ledgerStatus: string | null;
  contactId: string | null;
  /** The bill's InvoiceNumber, which the ledger's screens call its reference. */
  number: string | null;
  issueDate: string | null;
  total: string;
  currency: string;
}

/** Case- and space-insensitive text for reference matching; empty means none. */
function norm(text: string | null): string | null {
  const t = text?.trim().toUpperCase() ?? "";
  return t === "" ? null : t;
}

function dayNumber(date: string): number {
  return (
    Date.UTC(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8, 10))) /
    86_400_000
  );
}

/** Orders first by issue date (undated last), then by the ledger id: stable across imports. */
function byOrderDate(a: OrderToMatch, b: OrderToMatch): number {
  if (a.issueDate !== b.issueDate) {
    if (a.issueDate === null) return 1;
    if (b.issueDate === null) return -1;
    return a.issueDate < b.issueDate ? -1 : 1;
  }
  return a.externalId < b.externalId ? -1 : a.externalId > b.externalId ? 1 : 0;
}

/** Closest bill date to the order's first (undated bills last), then the ledger id. */
function closest(order: OrderToMatch): (a: BillToMatch, b: BillToMatch) => number {
  const day = order.issueDate === null ? null : dayNumber(order.issueDate);
  const gap = (b: BillToMatch) =>
    day === null || b.issueDate === null
      ? Number.POSITIVE_INFINITY
      : Math.abs(dayNumber(b.issueDate) - day);
  return (a, b) => {
    const d = gap(a) - gap(b);
    if (d !== 0 && !Number.isNaN(d)) return d;
    if (a.issueDate !== b.issueDate) {
      if (a.issueDate === null) return 1;
      if (b.issueDate === null) return -1;
      return a.issueDate < b.issueDate ? -1 : 1;
    }
    return a.externalId < b.externalId ? -1 : a.externalId > b.externalId ? 1 : 0;
  };
}

/**
 * Matches purchase orders to supplier bills; pure and deterministic (the same documents give the
 * same answer whatever their input order). Rules, in order:
 *
 * 1. Only live documents take part: orders other than DELETED, bills other than VOIDED and
 *    DELETED. Order and bill must have the same supplier contact.
 * 2. `REFERENCE`: the bill's number (its reference) equals the order's number, ignoring case and
 *    surrounding spaces. Then, for orders still unmatched, the same against the order's
 *    reference.
 * 3. `CONTACT_AMOUNT`: for orders still unmatched, a bill with the same total and currency dated
 *    from MATCH_DAYS_BEFORE days before to MATCH_DAYS_AFTER days after the order's date (orders
 *    without a date never match this way).
 * 4. Each bill suppresses at most one order. Within a pass, orders are taken oldest first (then
 *    by ledger id) and each takes the candidate bill dated closest to it (then the earlier, then
 *    by ledger id).
 *
 * @returns the reason of each matched order, by order id; unmatched orders are absent.
 */
export function matchPurchaseOrders(
  orders: readonly OrderToMatch[],
  bills: readonly BillToMatch[],
): Map<string, SuppressedReason> {
  const result = new Map<string, SuppressedReason>();
  const live = orders.filter((o) => o.status !== "DELETED" && o.contactId !== null);
  live.sort(byOrderDate);
  const liveBills = bills.filter(
    (b) => b.ledgerStatus !== "VOIDED" && b.ledgerStatus !== "DELETED" && b.contactId !== null,
  );
  const used = new Set<string>();

  const byContactAndNumber = new Map<string, BillToMatch[]>();
  for (const b of liveBills) {
    const n = norm(b.number);
    if (n === null) continue;
    const k = `${b.contactId}\u0000${n}`;
    const list = byContactAndNumber.get(k);
    if (list) list.push(b);
    else byContactAndNumber.set(k, [b]);
  }
  const referencePass = (text: (o: OrderToMatch) => string | null) => {
    for (const order of live) {
      if (result.has(order.id)) continue;
      const n = norm(text(order));
      if (n === null) continue;
      const candidates = (byContactAndNumber.get(`${order.contactId}\u0000${n}`) ?? []).filter(
        (b) => !used.has(b.id),
      );
      const bill = candidates.sort(closest(order))[0];
      if (!bill) continue;
      used.add(bill.id);
      result.set(order.id, "REFERENCE");
    }
  };
  referencePass((o) => o.number);
  referencePass((o) => o.reference);

  const byContact = new Map<string, BillToMatch[]>();
  for (const b of liveBills) {
    const list = byContact.get(b.contactId ?? "");
    if (list) list.push(b);
    else byContact.set(b.contactId ?? "", [b]);
  }
  for (const order of live) {
    if (result.has(order.id) || order.issueDate === null) continue;
    const day = dayNumber(order.issueDate);
    const total = money(order.total);
    const candidates = (byContact.get(order.contactId ?? "") ?? []).filter((b) => {
      if (used.has(b.id) || b.issueDate === null || b.currency !== order.currency) return false;
      const offset = dayNumber(b.issueDate) - day;
      return offset >= -MATCH_DAYS_BEFORE && offset <= MATCH_DAYS_AFTER && money(b.total).eq(total);
    });
    const bill = candidates.sort(closest(order))[0];
    if (!bill) continue;
    used.add(bill.id);
    result.set(order.id, "CONTACT_AMOUNT");
  }
  return result;
}

/**
 * Recomputes `suppressedReason` of every purchase order of the organisation from its bills and
 * writes the ones that changed (so an unchanged snapshot writes nothing). Call it inside the
 * import's transaction, after the documents are written. Touches nothing but
 * `suppressed_reason`: lastSyncedAt and the sync digest stay as they are.
 *
 * @returns how many orders changed.
 */
export async function suppressPurchaseOrders(
  tx: DbOrTx,
  input: { orgId: string },
): Promise<number> {
  const { orgId } = input;
  const orders: OrderToMatch[] = await tx
    .select({
      id: purchaseOrders.id,
      externalId: purchaseOrders.externalId,
      status: purchaseOrders.status,
      contactId: purchaseOrders.contactExternalId,
      number: purchaseOrders.purchaseOrderNumber,
      reference: purchaseOrders.reference,
      issueDate: purchaseOrders.issueDate,
      total: purchaseOrders.total,
      currency: purchaseOrders.currency,
    })
    .from(purchaseOrders)
    .where(sql`${purchaseOrders.orgId} = ${orgId}`);
  if (orders.length === 0) return 0;
  // Only bills of suppliers that have orders can match.
  const bills = await tx
    .select({
      id: cashItems.id,
      externalId: sql<string>`coalesce(${cashItems.externalId}, ${cashItems.id})`,
      ledgerStatus: cashItems.ledgerStatus,
      contactId: cashItems.contactExternalId,
      number: cashItems.invoiceNumber,
      issueDate: cashItems.issueDate,
      total: cashItems.amount,
      currency: cashItems.currency,
    })
    .from(cashItems)
    .where(
      sql`${cashItems.orgId} = ${orgId} and ${cashItems.source} = 'LEDGER_BILL'
        and ${cashItems.contactExternalId} in (
          select po.contact_external_id from ${purchaseOrders} po where po.org_id = ${orgId})`,
    );
  const matches = matchPurchaseOrders(orders, bills);
  const wanted = orders.map((o) => ({ id: o.id, reason: matches.get(o.id) ?? null }));
  // One statement: the wanted reason of every order as a JSON recordset; only changes written.
  const updated = await tx.execute(sql`
    update ${purchaseOrders} as po
       set suppressed_reason = w.reason
      from jsonb_to_recordset(${JSON.stringify(wanted)}::jsonb) as w(id text, reason text)
     where po.org_id = ${orgId} and po.id = w.id
       and po.suppressed_reason is distinct from w.reason
    returning po.id`);
  return (updated as unknown as { rows: unknown[] }).rows.length;
}
