import {
  discountText,
  gstExclusive,
  gstInclusive,
  lineAmountCents,
  money2,
  qtyText,
  rateText,
  unit4Text,
} from "./amounts.ts";
import { msDate, msInstant } from "./calendar.ts";
import { str } from "./json-writer.ts";

/**
 * Document models and their ledger JSON. Totals are computed here once, in integer cents, and
 * written as decimal literals, so every document is exactly consistent:
 * Exclusive/NoTax: SubTotal = Σ LineAmount, Total = SubTotal + TotalTax;
 * Inclusive: Total = Σ LineAmount, SubTotal = Total − TotalTax; TotalTax = Σ TaxAmount.
 */

export type LineAmountTypes = "Exclusive" | "Inclusive" | "NoTax";

/** Tax types that carry 10% GST; every other type is zero-rated here. */
const GST_TYPES = new Set(["OUTPUT", "INPUT"]);

/** A line before pricing: quantity (hundredths), unit price (ten-thousandths), coding. */
export interface LineInput {
  description: string;
  qtyH: number;
  unit4: number;
  account: string;
  taxType: string;
  itemCode?: string | undefined;
  /** Hundredths of a percent; sales lines only. */
  discH?: number | undefined;
}

/** A priced line, amounts in cents. */
export interface Line extends LineInput {
  id: string;
  lineCents: number;
  taxCents: number;
  /** Quantity × UnitAmount before discount, to the cent (for TotalDiscount). */
  grossCents: number;
}

/** A document's totals in cents. */
export interface Totals {
  subTotal: number;
  totalTax: number;
  total: number;
  totalDiscount: number;
}

/** Prices one line under the document's LineAmountTypes. */
export function priceLine(id: string, input: LineInput, lat: LineAmountTypes): Line {
  const discH = input.discH ?? 0;
  const lineCents = lineAmountCents(input.qtyH, input.unit4, discH);
  const grossCents = discH > 0 ? lineAmountCents(input.qtyH, input.unit4, 0) : lineCents;
  let taxCents = 0;
  if (lat !== "NoTax" && GST_TYPES.has(input.taxType)) {
    taxCents = lat === "Inclusive" ? gstInclusive(lineCents) : gstExclusive(lineCents);
  }
  return { ...input, id, lineCents, taxCents, grossCents };
}

/** The document totals of priced lines under `lat` (see the module comment). */
export function totalsOf(lines: readonly Line[], lat: LineAmountTypes): Totals {
  let sum = 0;
  let tax = 0;
  let discount = 0;
  for (const l of lines) {
    sum += l.lineCents;
    tax += l.taxCents;
    discount += l.grossCents - l.lineCents;
  }
  if (lat === "Inclusive")
    return { subTotal: sum - tax, totalTax: tax, total: sum, totalDiscount: discount };
  return { subTotal: sum, totalTax: tax, total: sum + tax, totalDiscount: discount };
}

/** A contact as documents embed it. */
export interface ContactRef {
  id: string;
  name: string;
}

function contactJson(c: ContactRef): string {
  return `{"ContactID":"${c.id}","Name":${str(c.name)}}`;
}

function lineJson(l: Line, withDiscount: boolean): string {
  let s = `{"LineItemID":"${l.id}","Description":${str(l.description)},"Quantity":${qtyText(l.qtyH)},"UnitAmount":${unit4Text(l.unit4)}`;
  if (l.itemCode) s += `,"ItemCode":${str(l.itemCode)}`;
  s += `,"AccountCode":"${l.account}","TaxType":"${l.taxType}","TaxAmount":${money2(l.taxCents)},"LineAmount":${money2(l.lineCents)}`;
  if (withDiscount && l.discH) s += `,"DiscountRate":${discountText(l.discH)}`;
  return `${s}}`;
}

function linesJson(lines: readonly Line[], withDiscount: boolean): string {
  return `[${lines.map((l) => lineJson(l, withDiscount)).join(",")}]`;
}

/** The ledger's status of invoices, bills and credit notes. */
export type DocStatus = "DRAFT" | "SUBMITTED" | "AUTHORISED" | "PAID" | "VOIDED" | "DELETED";

/** A sales invoice (ACCREC) or bill (ACCPAY); money in cents, dates as day numbers. */
export interface InvoiceDoc {
  type: "ACCREC" | "ACCPAY";
  id: string;
  number: string;
  reference?: string | undefined;
  contact: ContactRef;
  date: number;
  dueDate: number;
  expectedPaymentDate?: number | undefined;
  plannedPaymentDate?: number | undefined;
  status: DocStatus;
  lat: LineAmountTypes;
  lines: Line[];
  totals: Totals;
  currency: string;
  rate6: number;
  amountPaid: number;
  amountCredited: number;
  fullyPaidOn?: number | undefined;
  updatedMs: number;
}

/**
 * AmountDue as the ledger reports it: what is still owed, and 0 on VOIDED and DELETED documents
 * (the ledger's own list example shows a voided invoice with AmountDue 0.00).
 */
export function amountDueOf(
  d: Pick<InvoiceDoc, "status" | "totals" | "amountPaid" | "amountCredited">,
): number {
  if (d.status === "VOIDED" || d.status === "DELETED") return 0;
  return d.totals.total - d.amountPaid - d.amountCredited;
}

/** The ledger JSON of an invoice or bill. */
export function invoiceJson(d: InvoiceDoc): string {
  const t = d.totals;
  let s = `{"Type":"${d.type}","InvoiceID":"${d.id}","InvoiceNumber":${str(d.number)}`;
  if (d.reference !== undefined) s += `,"Reference":${str(d.reference)}`;
  s += `,"Contact":${contactJson(d.contact)},"Date":"${msDate(d.date)}","DueDate":"${msDate(d.dueDate)}"`;
  if (d.expectedPaymentDate !== undefined)
    s += `,"ExpectedPaymentDate":"${msDate(d.expectedPaymentDate)}"`;
  if (d.plannedPaymentDate !== undefined)
    s += `,"PlannedPaymentDate":"${msDate(d.plannedPaymentDate)}"`;
  s += `,"Status":"${d.status}","LineAmountTypes":"${d.lat}","LineItems":${linesJson(d.lines, d.type === "ACCREC")}`;
  s += `,"SubTotal":${money2(t.subTotal)},"TotalTax":${money2(t.totalTax)},"Total":${money2(t.total)}`;
  if (t.totalDiscount > 0) s += `,"TotalDiscount":${money2(t.totalDiscount)}`;
  s += `,"CurrencyCode":"${d.currency}","CurrencyRate":${rateText(d.rate6)}`;
  s += `,"AmountDue":${money2(amountDueOf(d))},"AmountPaid":${money2(d.amountPaid)},"AmountCredited":${money2(d.amountCredited)}`;
  if (d.fullyPaidOn !== undefined) s += `,"FullyPaidOnDate":"${msDate(d.fullyPaidOn)}"`;
  if (t.totalDiscount > 0) s += `,"IsDiscounted":true`;
  s += `,"HasAttachments":false,"UpdatedDateUTC":"${msInstant(d.updatedMs)}"}`;
  return s;
}

/** A credit-note allocation to an invoice. */
export interface AllocationDoc {
  id: string;
  amount: number;
  date: number;
  invoiceId: string;
  invoiceNumber: string;
}

/** A receivable credit note (ACCRECCREDIT). */
export interface CreditNoteDoc {
  id: string;
  number: string;
  reference?: string | undefined;
  contact: ContactRef;
  date: number;
  status: DocStatus;
  lat: LineAmountTypes;
  lines: Line[];
  totals: Totals;
  currency: string;
  rate6: number;
  allocations: AllocationDoc[];
  /** Cash refunded (sum of its ARCREDITPAYMENT payments). */
  refunded: number;
  fullyPaidOn?: number | undefined;
  updatedMs: number;
}

/** RemainingCredit: Total − allocations − cash refunds (0 once voided or deleted). */
export function remainingCreditOf(c: CreditNoteDoc): number {
  if (c.status === "VOIDED" || c.status === "DELETED") return 0;
  let allocated = 0;
  for (const a of c.allocations) allocated += a.amount;
  return c.totals.total - allocated - c.refunded;
}

/** The ledger JSON of a credit note, with its allocations. */
export function creditNoteJson(c: CreditNoteDoc): string {
  const t = c.totals;
  let s = `{"Type":"ACCRECCREDIT","CreditNoteID":"${c.id}","CreditNoteNumber":${str(c.number)}`;
  if (c.reference !== undefined) s += `,"Reference":${str(c.reference)}`;
  s += `,"Contact":${contactJson(c.contact)},"Date":"${msDate(c.date)}","Status":"${c.status}","LineAmountTypes":"${c.lat}"`;
  s += `,"LineItems":${linesJson(c.lines, false)}`;
  s += `,"SubTotal":${money2(t.subTotal)},"TotalTax":${money2(t.totalTax)},"Total":${money2(t.total)}`;
  s += `,"CurrencyCode":"${c.currency}","CurrencyRate":${rateText(c.rate6)},"RemainingCredit":${money2(remainingCreditOf(c))}`;
  s += `,"Allocations":[${c.allocations
    .map(
      (a) =>
        `{"AllocationID":"${a.id}","Amount":${money2(a.amount)},"Date":"${msDate(a.date)}","Invoice":{"InvoiceID":"${a.invoiceId}","InvoiceNumber":${str(a.invoiceNumber)}}}`,
    )
    .join(",")}]`;
  if (c.fullyPaidOn !== undefined) s += `,"FullyPaidOnDate":"${msDate(c.fullyPaidOn)}"`;
  s += `,"HasAttachments":false,"UpdatedDateUTC":"${msInstant(c.updatedMs)}"}`;
  return s;
}

/** A purchase order. */
export interface PurchaseOrderDoc {
  id: string;
  number: string;
  reference?: string | undefined;
  contact: ContactRef;
  date: number;
  deliveryDate?: number | undefined;
  expectedArrivalDate?: number | undefined;
  status: "DRAFT" | "SUBMITTED" | "AUTHORISED" | "BILLED" | "DELETED";
  lat: LineAmountTypes;
  lines: Line[];
  totals: Totals;
  currency: string;
  rate6: number;
  updatedMs: number;
}

/** The ledger JSON of a purchase order. */
export function purchaseOrderJson(p: PurchaseOrderDoc): string {
  const t = p.totals;
  let s = `{"PurchaseOrderID":"${p.id}","PurchaseOrderNumber":${str(p.number)}`;
  if (p.reference !== undefined) s += `,"Reference":${str(p.reference)}`;
  s += `,"Contact":${contactJson(p.contact)},"Date":"${msDate(p.date)}"`;
  if (p.deliveryDate !== undefined) s += `,"DeliveryDate":"${msDate(p.deliveryDate)}"`;
  if (p.expectedArrivalDate !== undefined)
    s += `,"ExpectedArrivalDate":"${msDate(p.expectedArrivalDate)}"`;
  s += `,"Status":"${p.status}","LineAmountTypes":"${p.lat}","LineItems":${linesJson(p.lines, false)}`;
  s += `,"SubTotal":${money2(t.subTotal)},"TotalTax":${money2(t.totalTax)},"Total":${money2(t.total)}`;
  s += `,"CurrencyCode":"${p.currency}","CurrencyRate":${rateText(p.rate6)}`;
  s += `,"DeliveryAddress":"12 Roastery Lane, Marrickville NSW 2204","AttentionTo":"Receiving dock"`;
  s += `,"HasAttachments":false,"UpdatedDateUTC":"${msInstant(p.updatedMs)}"}`;
  return s;
}

/** A bank account as payments and bank transactions embed it. */
export interface BankRef {
  id: string;
  code: string;
  name: string;
}

/** A payment of an invoice or bill, or a credit note's cash refund. */
export interface PaymentDoc {
  id: string;
  type: "ACCRECPAYMENT" | "ACCPAYPAYMENT" | "ARCREDITPAYMENT";
  date: number;
  /** In the document's currency. */
  amount: number;
  /** In the bank account's currency (base). */
  bankAmount: number;
  rate6: number;
  reference: string;
  reconciled: boolean;
  bank: BankRef;
  doc: {
    kind: "Invoice" | "CreditNote";
    id: string;
    number: string;
    type: string;
    currency: string;
    contact: ContactRef;
  };
  updatedMs: number;
}

/** The ledger JSON of a payment. */
export function paymentJson(p: PaymentDoc): string {
  const d = p.doc;
  const numberKey = d.kind === "Invoice" ? "InvoiceNumber" : "CreditNoteNumber";
  const idKey = d.kind === "Invoice" ? "InvoiceID" : "CreditNoteID";
  return (
    `{"PaymentID":"${p.id}","Date":"${msDate(p.date)}","Amount":${money2(p.amount)},"BankAmount":${money2(p.bankAmount)}` +
    `,"CurrencyRate":${rateText(p.rate6)},"Reference":${str(p.reference)},"IsReconciled":${p.reconciled}` +
    `,"Status":"AUTHORISED","PaymentType":"${p.type}","Account":{"AccountID":"${p.bank.id}","Code":"${p.bank.code}"}` +
    `,"${d.kind}":{"${idKey}":"${d.id}","${numberKey}":${str(d.number)},"Type":"${d.type}","CurrencyCode":"${d.currency}","Contact":${contactJson(d.contact)}}` +
    `,"UpdatedDateUTC":"${msInstant(p.updatedMs)}"}`
  );
}

/** The bank-transaction types the demo uses. */
export type BankTransactionType = "RECEIVE" | "SPEND" | "RECEIVE-TRANSFER" | "SPEND-TRANSFER";

/** A spend-money, receive-money or transfer line of a bank account. */
export interface BankTransactionDoc {
  id: string;
  type: BankTransactionType;
  contact?: ContactRef | undefined;
  bank: BankRef;
  date: number;
  reference: string;
  status: "AUTHORISED" | "VOIDED" | "DELETED";
  reconciled: boolean;
  lat: LineAmountTypes;
  lines: Line[];
  totals: Totals;
  updatedMs: number;
}

/** The ledger JSON of a bank transaction. */
export function bankTransactionJson(b: BankTransactionDoc): string {
  const t = b.totals;
  let s = `{"BankTransactionID":"${b.id}","Type":"${b.type}"`;
  if (b.contact) s += `,"Contact":${contactJson(b.contact)}`;
  s += `,"BankAccount":{"AccountID":"${b.bank.id}","Code":"${b.bank.code}","Name":${str(b.bank.name)}}`;
  s += `,"IsReconciled":${b.reconciled},"Date":"${msDate(b.date)}","Reference":${str(b.reference)}`;
  s += `,"CurrencyCode":"AUD","Status":"${b.status}","LineAmountTypes":"${b.lat}","LineItems":${linesJson(b.lines, false)}`;
  s += `,"SubTotal":${money2(t.subTotal)},"TotalTax":${money2(t.totalTax)},"Total":${money2(t.total)}`;
  s += `,"HasAttachments":false,"UpdatedDateUTC":"${msInstant(b.updatedMs)}"}`;
  return s;
}
