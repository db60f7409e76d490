import { type Cents, centsToDecimal, toCents } from "./cents.ts";
import { addDays } from "./dates.ts";
import type {
  AccountInfo,
  CustomerInfo,
  ForecastInput,
  OpenItem,
  OpenPurchaseOrder,
  PaidInParts,
  PurchaseOrderPayment,
  RecurringHistoryEntry,
  SalesHistoryEntry,
} from "./types.ts";

/**
 * The books as they stood on a date. One model feeds both the live forecast (the books as of
 * today) and the backtest (the books as of each past origin), so the backtest scores exactly the
 * forecast `/forecast` serves: the same documents, purchase orders, manual items, history and
 * engine, only the cutoff differs. docs/forecast.md, "The books as of a date", states the rules.
 */

/** Days of history read for cadences (two years and a bit: a yearly charge shows twice). */
export const HISTORY_DAYS = 800;

/** An invoice or bill with what is known of its life. */
export interface BookDocument {
  /** The service id (what forecast lines point at). */
  id: string;
  type: "ACCREC" | "ACCPAY";
  /** The ledger status now. */
  status: string;
  contactId: string | null;
  contactName: string | null;
  accountId: string | null;
  issueDate: string | null;
  dueDate: string | null;
  /** The ledger's expected (sales) or planned (bills) payment date, else due, else issue date. */
  expectedDate: string;
  /** Gross total, document currency. */
  total: string;
  /** AmountDue now; null when the ledger gave none. */
  amountDue: string | null;
  currency: string;
  currencyRate: string | null;
  /** FullyPaidOnDate (or the last payment date) now. */
  paidDate: string | null;
  /**
   * Local date of the ledger's last change to the document. On or before a cutoff (or unknown),
   * the document stood then as it stands now; after it, its state then is rebuilt from payments.
   */
  updatedOn: string | null;
  /**
   * Payments (document currency, not deleted): needed when rebuilt, and for how a customer pays
   * in parts (partial-payments.ts): every document with payments on two or more days, and every
   * document open now, has them; others may have none (one payment says nothing of parts).
   */
  payments: readonly { date: string; amount: string }[];
  /** Credit-note allocations (document currency); needed only when rebuilt. */
  credits: readonly { date: string; amount: string }[];
}

/** A purchase order with what is known of its life. */
export interface BookPurchaseOrder {
  id: string;
  /** The ledger status now. */
  status: string;
  total: string;
  currency: string;
  currencyRate: string | null;
  issueDate: string | null;
  deliveryDate: string | null;
  expectedArrivalDate: string | null;
  contactId: string | null;
  accountId: string | null;
  /** The local date of the order's last change. */
  updatedOn: string | null;
  /**
   * The day the supplier's bill for it became known (the matched bill's issue date, or its last
   * change if earlier); null while no bill covers it. From then on the bill is forecast instead.
   */
  billedOn: string | null;
  /** The service id of the bill that covers it, when found (its payment teaches the lag). */
  billId: string | null;
}

/** An operator's manual or pipeline item, known from the day it was entered. */
export interface BookManualItem extends OpenItem {
  enteredOn: string;
}

/** A customer; `active` now, and when its status last changed. */
export interface BookCustomer {
  contactId: string;
  name: string;
  active: boolean;
  updatedOn: string | null;
}

/** Everything the forecast reads, across time. */
export interface Books {
  timezone: string;
  baseCurrency: string;
  /**
   * Accounts the owner took out of burn (Settings → Account categories): their history makes
   * no recurring stream or run rate; open documents, which are owed, still count.
   */
  excludedFromBurn?: ReadonlySet<string>;
  documents: readonly BookDocument[];
  purchaseOrders: readonly BookPurchaseOrder[];
  manualItems: readonly BookManualItem[];
  /** Spend and receive money lines of the included bank accounts (dated when money moved). */
  bankLines: readonly RecurringHistoryEntry[];
  customers: readonly BookCustomer[];
  accounts: readonly AccountInfo[];
}

const LIVE_NOW = new Set(["AUTHORISED", "SUBMITTED", "PAID"]);
const OPEN = new Set(["AUTHORISED", "SUBMITTED"]);

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Documents in an order the ledger itself defines: issue date, due date, type, contact name,
 * total, paid date, expected date, then the service id (only between documents alike in all of
 * these, which forecast alike). The collection
 * model keeps each customer's (and supplier's) most recent documents by issue date; among
 * documents of one day it keeps the later in this order, so the order must not follow ids.
 */
function byLedger(a: BookDocument, b: BookDocument): number {
  return (
    byText(a.issueDate ?? "", b.issueDate ?? "") ||
    byText(a.dueDate ?? "", b.dueDate ?? "") ||
    byText(a.type, b.type) ||
    byText(a.contactName ?? "", b.contactName ?? "") ||
    toCents(a.total) - toCents(b.total) ||
    byText(a.paidDate ?? "", b.paidDate ?? "") ||
    byText(a.expectedDate, b.expectedDate) ||
    byText(a.id, b.id)
  );
}

function sumUpTo(list: readonly { date: string; amount: string }[], cutoff: string): Cents {
  let s = 0;
  for (const x of list) if (x.date <= cutoff) s += toCents(x.amount);
  return s;
}

/**
 * Is this document's state on `cutoff` its state now? Yes when it has not changed since; a
 * document without a change date (the ledger always gives one) is taken as it stands.
 */
const standsAsNow = (updatedOn: string | null, cutoff: string) =>
  updatedOn === null || updatedOn <= cutoff;

/**
 * A document's payments made by the end of `cutoff`, one part per day (payments of one day are
 * one part), in date order, with their cents.
 */
export function paymentPartsAsOf(
  payments: readonly { date: string; amount: string }[],
  cutoff: string,
): { date: string; cents: Cents }[] {
  const byDay = new Map<string, Cents>();
  for (const p of payments) {
    if (p.date > cutoff) continue;
    byDay.set(p.date, (byDay.get(p.date) ?? 0) + toCents(p.amount));
  }
  return [...byDay].sort((a, b) => byText(a[0], b[0])).map(([date, cents]) => ({ date, cents }));
}

/**
 * The parts of an invoice, as `SalesHistoryEntry.parts` has them: of a paid invoice when paid on
 * two or more days (`least` 2), of an open one when part-paid (`least` 1).
 */
function paidInParts(
  parts: readonly { date: string; cents: Cents }[],
  least: number,
): PaidInParts | undefined {
  const first = parts[0];
  const last = parts[parts.length - 1];
  if (parts.length < least || !first || !last) return undefined;
  let paid = 0;
  for (const p of parts) paid += p.cents;
  return {
    count: parts.length,
    firstDate: first.date,
    firstAmount: centsToDecimal(first.cents),
    lastDate: last.date,
    paid: centsToDecimal(paid),
  };
}

/** The document as it stood at the end of `cutoff`; null when it did not exist then. */
export function documentAsOf(
  d: BookDocument,
  cutoff: string,
): {
  status: string;
  amountDue: Cents;
  expectedDate: string;
  dueDate: string | null;
  paidDate: string | null;
} | null {
  const known = d.issueDate ?? d.dueDate ?? d.updatedOn;
  if (known !== null && known > cutoff) return null;
  if (standsAsNow(d.updatedOn, cutoff)) {
    return {
      status: d.status,
      amountDue: d.amountDue === null ? 0 : toCents(d.amountDue),
      expectedDate: d.expectedDate,
      dueDate: d.dueDate,
      paidDate: d.status === "PAID" ? d.paidDate : null,
    };
  }
  // Changed since: voided later means live then; drafts and deleted documents never counted.
  if (!(LIVE_NOW.has(d.status) || d.status === "VOIDED")) return null;
  const due = toCents(d.total) - sumUpTo(d.payments, cutoff) - sumUpTo(d.credits, cutoff);
  let lastPaid: string | null = null;
  for (const p of d.payments)
    if (p.date <= cutoff && (lastPaid === null || p.date > lastPaid)) lastPaid = p.date;
  // A later edit of the expected date cannot have been known: the due date it is.
  const dueDate = d.dueDate ?? d.issueDate ?? d.expectedDate;
  return {
    status: due <= 0 ? "PAID" : d.status === "SUBMITTED" ? "SUBMITTED" : "AUTHORISED",
    amountDue: Math.max(due, 0),
    expectedDate: dueDate,
    dueDate: d.dueDate,
    paidDate: due <= 0 ? lastPaid : null,
  };
}

/** The purchase order as it stood at the end of `cutoff`, when it was open then. */
export function purchaseOrderAsOf(po: BookPurchaseOrder, cutoff: string): OpenPurchaseOrder | null {
  const known = po.issueDate ?? po.updatedOn;
  if (known !== null && known > cutoff) return null;
  if (po.billedOn !== null && po.billedOn <= cutoff) return null;
  let status: string;
  if (standsAsNow(po.updatedOn, cutoff)) status = po.status;
  else if (po.status === "BILLED") status = "AUTHORISED";
  else status = po.status;
  if (!OPEN.has(status)) return null;
  return {
    id: po.id,
    status,
    total: po.total,
    currency: po.currency,
    currencyRate: po.currencyRate,
    issueDate: po.issueDate,
    deliveryDate: po.deliveryDate,
    expectedArrivalDate: po.expectedArrivalDate,
    contactId: po.contactId,
    accountId: po.accountId,
    suppressedReason: null,
  };
}

/**
 * The sales history by contact id, each contact's invoices in the order given: `sales` comes in
 * the ledger's order (byLedger), issue date first, so this is the order a stable sort by
 * (contact id, issue date) gives, without comparing 100,000 entries' strings (that sort was most
 * of booksAsOf: docs/benchmarks.md, stop 15).
 */
function byContact(sales: readonly SalesHistoryEntry[]): SalesHistoryEntry[] {
  const groups = new Map<string, SalesHistoryEntry[]>();
  for (const e of sales) {
    const group = groups.get(e.contactId);
    if (group) group.push(e);
    else groups.set(e.contactId, [e]);
  }
  const out: SalesHistoryEntry[] = [];
  for (const id of [...groups.keys()].sort(byText))
    for (const e of groups.get(id) ?? []) out.push(e);
  return out;
}

/**
 * The engine's input from the books as they stood at the end of `cutoff` (a local date), with
 * `startingCash` the cash then. Pure; the output's order depends on the books' content only
 * (documents in the ledger's terms, byLedger), never on the order they were loaded in nor on the
 * ids an import assigned.
 */
export function booksAsOf(
  books: Books,
  cutoff: string,
  startingCash: string,
  now: Date,
): Omit<ForecastInput, "scenario"> {
  const since = addDays(cutoff, -HISTORY_DAYS);
  const inWindow = (date: string | null) => date !== null && date >= since && date <= cutoff;
  const openItems: OpenItem[] = [];
  const sales: SalesHistoryEntry[] = [];
  const bills: RecurringHistoryEntry[] = [];
  // In the ledger's terms (dates, amounts, names), the service id only last: ids are assigned at
  // import, so an order or tie-break by id would make the same books forecast differently.
  const documents = [...books.documents].sort(byLedger);
  for (const d of documents) {
    const then = documentAsOf(d, cutoff);
    if (then === null) continue;
    // Payments known by the cutoff (none later: no look-ahead), for sales invoices only: how a
    // customer pays in parts (partial-payments.ts). Bills are not (docs/forecast.md says why).
    const parts =
      d.type === "ACCREC" && d.payments.length > 0 ? paymentPartsAsOf(d.payments, cutoff) : [];
    if (OPEN.has(then.status) && then.amountDue > 0) {
      const firstPaid = parts[0]?.date;
      openItems.push({
        id: d.id,
        source: d.type === "ACCREC" ? "LEDGER_INVOICE" : "LEDGER_BILL",
        ledgerStatus: then.status,
        amount: centsToDecimal(then.amountDue),
        currency: d.currency,
        currencyRate: d.currencyRate,
        expectedDate: then.expectedDate,
        dueDate: then.dueDate,
        issueDate: d.issueDate,
        contactId: d.contactId,
        accountId: d.accountId,
        probability: null,
        ...(firstPaid !== undefined ? { firstPaidDate: firstPaid } : {}),
      });
    }
    if (!LIVE_NOW.has(then.status) || !inWindow(d.issueDate) || d.issueDate === null) continue;
    if (d.type === "ACCREC") {
      if (d.contactId === null) continue;
      // A paid invoice in one part has no parts (its payment may not be read); an open one's
      // payments always are (books.ts `payments`).
      const inParts = paidInParts(parts, then.paidDate !== null ? 2 : 1);
      sales.push({
        contactId: d.contactId,
        issueDate: d.issueDate,
        total: d.total,
        currency: d.currency,
        currencyRate: d.currencyRate,
        dueDate: d.dueDate,
        paidDate: then.paidDate,
        accountId: d.accountId,
        ...(inParts ? { parts: inParts } : {}),
      });
    } else {
      bills.push({
        kind: "bill",
        contactId: d.contactId,
        contactName: d.contactName,
        accountId: d.accountId,
        date: d.issueDate,
        dueDate: then.expectedDate,
        paidDate: then.paidDate,
        amount: d.total,
        currency: d.currency,
        currencyRate: d.currencyRate,
      });
    }
  }
  for (const m of books.manualItems) {
    if (m.enteredOn > cutoff) continue;
    const { enteredOn: _, ...item } = m;
    openItems.push(item);
  }
  openItems.sort((a, b) => byText(a.id, b.id));
  const salesHistory = byContact(sales);

  const purchaseOrders: OpenPurchaseOrder[] = [];
  const purchaseOrderHistory: PurchaseOrderPayment[] = [];
  // Only the bills orders name (a map of every document cost more than the rest of this loop).
  const billIds = new Set(books.purchaseOrders.map((po) => po.billId));
  const docById = new Map(books.documents.filter((d) => billIds.has(d.id)).map((d) => [d.id, d]));
  for (const po of books.purchaseOrders) {
    const open = purchaseOrderAsOf(po, cutoff);
    if (open) purchaseOrders.push(open);
    // Billed and the bill paid by then: how long after delivery this supplier was paid.
    const delivered = po.deliveryDate ?? po.expectedArrivalDate;
    const bill = po.billId === null ? undefined : docById.get(po.billId);
    if (!bill || !po.contactId || !inWindow(delivered) || delivered === null) continue;
    if (po.billedOn === null || po.billedOn > cutoff) continue;
    const paidDate = documentAsOf(bill, cutoff)?.paidDate ?? null;
    if (paidDate !== null && paidDate <= cutoff)
      purchaseOrderHistory.push({ contactId: po.contactId, deliveryDate: delivered, paidDate });
  }
  purchaseOrders.sort((a, b) => byText(a.id, b.id));
  purchaseOrderHistory.sort(
    (a, b) =>
      byText(a.contactId, b.contactId) ||
      byText(a.deliveryDate, b.deliveryDate) ||
      byText(a.paidDate, b.paidDate),
  );

  const bankLines = books.bankLines
    .filter((b) => inWindow(b.date))
    .sort(
      (a, b) =>
        byText(a.date, b.date) ||
        byText(a.kind, b.kind) ||
        byText(a.contactId ?? "", b.contactId ?? "") ||
        byText(a.accountId ?? "", b.accountId ?? "") ||
        toCents(a.amount) - toCents(b.amount),
    );
  const excluded = books.excludedFromBurn;
  const recurringHistory = [...bills, ...bankLines].filter(
    (h) => !excluded || h.accountId === null || !excluded.has(h.accountId),
  );
  const customers: CustomerInfo[] = books.customers
    .map((c) => ({
      contactId: c.contactId,
      name: c.name,
      // Archived after the cutoff: still active then.
      active: c.active || (c.updatedOn !== null && c.updatedOn > cutoff),
    }))
    .sort((a, b) => byText(a.contactId, b.contactId));

  return {
    now,
    timezone: books.timezone,
    baseCurrency: books.baseCurrency,
    startingCash,
    openItems,
    purchaseOrders,
    purchaseOrderHistory,
    salesHistory,
    recurringHistory,
    customers,
    accounts: books.accounts,
  };
}
