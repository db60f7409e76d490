import { LedgerFormatError, showValue } from "../../connector/errors.ts";
import { LEDGER_DECIMAL_TEXT, parseDecimal } from "../../connector/json-numbers.ts";
import type {
  XeroAccount,
  XeroBankTransaction,
  XeroContact,
  XeroCreditNote,
  XeroDocumentStatus,
  XeroInvoice,
  XeroLineItem,
  XeroOrganisation,
  XeroPayment,
  XeroPurchaseOrder,
  XeroReport,
  XeroReportRow,
} from "../../connector/ledger-source.ts";
import { ianaFromLedgerTimezone } from "../../connector/windows-timezones.ts";
import type {
  bankAccounts,
  bankTransactions,
  CashItemStatus,
  cashItemLines,
  cashItems,
  contacts,
  creditNoteAllocations,
  creditNoteLines,
  creditNotes,
  ledgerAccounts,
  payments,
  purchaseOrderLines,
  purchaseOrders,
} from "../../db/schema/index.ts";
import { canonical, money } from "../../domain/money.ts";

/*
 * Pure mapping from the ledger's documents (LedgerSource types) to projection rows, following
 * /work/shared/ledger/mapping.md §3. No I/O: rows come without the service's ids, organisation id
 * or sync stamps, which the writer adds. Decisions where the mapping leaves a choice are marked
 * "Decision" and repeated in docs/ledger-export.md.
 */

/** Columns the writer owns: ids, organisation, sync stamps, the change digest. */
type Owned = "id" | "orgId" | "lastSyncedAt" | "syncHash";

export type MappedLedgerAccount = Omit<typeof ledgerAccounts.$inferInsert, Owned | "isSensitive">;
export type MappedBankAccount = Omit<typeof bankAccounts.$inferInsert, Owned | "ledgerAccountId">;
export type MappedContact = Omit<typeof contacts.$inferInsert, Owned | "isSensitive">;
export type MappedCashItem = Omit<typeof cashItems.$inferInsert, Owned | "probability">;
export type MappedCashItemLine = Omit<typeof cashItemLines.$inferInsert, Owned | "cashItemId">;
export type MappedCreditNote = Omit<typeof creditNotes.$inferInsert, Owned>;
export type MappedCreditNoteLine = Omit<
  typeof creditNoteLines.$inferInsert,
  Owned | "creditNoteId"
>;
export type MappedAllocation = Omit<
  typeof creditNoteAllocations.$inferInsert,
  Owned | "creditNoteId"
>;
export type MappedPurchaseOrder = Omit<
  typeof purchaseOrders.$inferInsert,
  Owned | "suppressedReason"
>;
export type MappedPurchaseOrderLine = Omit<
  typeof purchaseOrderLines.$inferInsert,
  Owned | "purchaseOrderId"
>;
export type MappedPayment = Omit<typeof payments.$inferInsert, Owned>;
export type MappedBankTransaction = Omit<typeof bankTransactions.$inferInsert, Owned>;

/** What the organisation row takes from the ledger; undefined fields are left as they are. */
export interface OrganisationPatch {
  ledgerOrganisationId: string;
  baseCurrency?: string;
  timezone?: string;
  financialYearEndDay?: number;
  financialYearEndMonth?: number;
}

/** An account as documents refer to it, by code or by AccountID. */
export interface AccountRef {
  externalId: string;
  code: string | null;
  name: string;
  type: string;
}

/** Lookups the document mapping needs from collections read before the documents. */
export interface MappingContext {
  /** Organisation base currency: the currency of documents that name none. */
  baseCurrency: string;
  accountsByCode: ReadonlyMap<string, AccountRef>;
  accountsById: ReadonlyMap<string, AccountRef>;
  /** ContactID → Name, for documents whose contact summary lacks the name. */
  contactNames: ReadonlyMap<string, string>;
  /** InvoiceID → latest date of its non-deleted payments (from the payments collection). */
  lastPaymentDates: ReadonlyMap<string, string>;
}

/** "" and absent both mean "not set" in the ledger's payloads. */
function textOrNull(value: string | undefined | null): string | null {
  return value === undefined || value === null || value === "" ? null : value;
}

function instantOrNull(value: string | undefined): Date | null {
  return value ? new Date(value) : null;
}

/** The later of two YYYY-MM-DD dates (string order is date order). */
function laterDate(a: string | null | undefined, b: string | null | undefined): string | null {
  if (!a) return b ?? null;
  if (!b) return a;
  return a >= b ? a : b;
}

// ─── Organisation ────────────────────────────────────────────────────────────────────────────

/**
 * Decision: the organisation keeps its own name (it is how the operator named it here); the
 * ledger sets base currency, timezone (Windows id → IANA; unknown → Australia/Sydney; absent →
 * unchanged), financial year end and the ledger's OrganisationID.
 */
export function mapOrganisation(org: XeroOrganisation): OrganisationPatch {
  const patch: OrganisationPatch = { ledgerOrganisationId: org.OrganisationID };
  if (org.BaseCurrency && /^[A-Z]{3}$/.test(org.BaseCurrency)) {
    patch.baseCurrency = org.BaseCurrency;
  }
  if (org.Timezone !== undefined) patch.timezone = ianaFromLedgerTimezone(org.Timezone);
  if (org.FinancialYearEndDay !== undefined) patch.financialYearEndDay = org.FinancialYearEndDay;
  if (org.FinancialYearEndMonth !== undefined) {
    patch.financialYearEndMonth = org.FinancialYearEndMonth;
  }
  return patch;
}

// ─── Accounts and bank accounts ──────────────────────────────────────────────────────────────

/** A chart-of-accounts entry. `isSensitive` is the service's and is never written here. */
export function mapLedgerAccount(account: XeroAccount): MappedLedgerAccount {
  return {
    externalId: account.AccountID,
    code: textOrNull(account.Code),
    name: account.Name,
    type: account.Type,
    class: textOrNull(account.Class),
    status: account.Status || "ACTIVE",
    systemAccount: textOrNull(account.SystemAccount),
    reportingCode: textOrNull(account.ReportingCode),
    bankAccountType: textOrNull(account.BankAccountType),
    bankAccountNumber: textOrNull(account.BankAccountNumber),
    currency: textOrNull(account.CurrencyCode),
    taxType: textOrNull(account.TaxType),
    updatedAt: instantOrNull(account.UpdatedDateUTC),
  };
}

const REPORT_LABEL = "BankSummary report";

function isClosingBalanceHeader(value: string | undefined): boolean {
  return (value ?? "").trim().toLowerCase() === "closing balance";
}

/**
 * The Closing Balance of each bank account in a BankSummary report, keyed by AccountID (the
 * `accountID` attribute of the row's first cell). The column is found by its header
 * ("Closing Balance"), else the fifth. Report numbers are strings; thousands separators are
 * dropped and an empty cell is zero.
 */
export function closingBalances(report: XeroReport | null): Map<string, string> {
  const out = new Map<string, string>();
  if (!report) return out;
  const header = report.Rows.find((r) => r.RowType === "Header");
  const headerIndex = header?.Cells?.findIndex((c) => isClosingBalanceHeader(c.Value)) ?? -1;
  const column = headerIndex >= 0 ? headerIndex : 4;

  const visit = (rows: readonly XeroReportRow[]) => {
    for (const row of rows) {
      if (row.Rows) visit(row.Rows);
      if (row.RowType !== "Row" || !row.Cells) continue;
      const first = row.Cells[0];
      const accountId = first?.Attributes?.find((a) => a.Id.toLowerCase() === "accountid")?.Value;
      if (!accountId) continue;
      const raw = row.Cells[column]?.Value ?? "";
      const cleaned = raw.replace(/[,\s]/g, "");
      const value = cleaned === "" ? "0" : parseDecimal(cleaned);
      if (value === undefined) {
        throw new LedgerFormatError(
          {
            file: REPORT_LABEL,
            record: `row "${first?.Value ?? ""}"`,
            recordId: `accountID ${accountId}`,
            field: "Closing Balance",
          },
          `expected ${LEDGER_DECIMAL_TEXT}, got ${showValue(raw)}`,
        );
      }
      out.set(accountId, value);
    }
  };
  visit(report.Rows);
  return out;
}

/**
 * Bank accounts are the accounts of Type BANK (credit cards and PayPal included). The standard
 * ledger API has no statement balance, so both balances are the report's Closing Balance (zero
 * when the report has no row for the account) and the source is RECONCILED.
 */
export function mapBankAccount(
  account: XeroAccount,
  balances: ReadonlyMap<string, string>,
  baseCurrency: string,
  now: Date,
): MappedBankAccount {
  const balance = balances.get(account.AccountID) ?? "0";
  return {
    externalId: account.AccountID,
    name: account.Name,
    currency: account.CurrencyCode || baseCurrency,
    reconciledBalance: balance,
    statementBalance: balance,
    balanceSource: "RECONCILED",
    balanceSyncedAt: now,
    isActive: (account.Status || "ACTIVE") === "ACTIVE",
  };
}

/** True for the accounts that are bank accounts. */
export function isBankAccount(account: XeroAccount): boolean {
  return account.Type === "BANK";
}

// ─── Contacts ────────────────────────────────────────────────────────────────────────────────

/** A contact. `isSensitive` is the service's; `lastSyncedAt` is stamped by the writer on change. */
export function mapContact(contact: XeroContact): MappedContact {
  return {
    externalId: contact.ContactID,
    name: contact.Name,
    firstName: textOrNull(contact.FirstName),
    lastName: textOrNull(contact.LastName),
    email: textOrNull(contact.EmailAddress),
    contactNumber: textOrNull(contact.ContactNumber),
    accountNumber: textOrNull(contact.AccountNumber),
    contactStatus: contact.ContactStatus || "ACTIVE",
    isCustomer: contact.IsCustomer ?? false,
    isSupplier: contact.IsSupplier ?? false,
    defaultCurrency: textOrNull(contact.DefaultCurrency),
    mergedToContactId: textOrNull(contact.MergedToContactID),
    ledgerUpdatedAt: instantOrNull(contact.UpdatedDateUTC),
  };
}

// ─── Invoices and bills ──────────────────────────────────────────────────────────────────────

/** PAID → ACTUAL; VOIDED, DELETED → CANCELLED; DRAFT, SUBMITTED, AUTHORISED → FORECAST. */
export function cashStatus(status: XeroDocumentStatus): CashItemStatus {
  if (status === "PAID") return "ACTUAL";
  if (status === "VOIDED" || status === "DELETED") return "CANCELLED";
  return "FORECAST";
}

/**
 * Resolves a line's account: the code as given (else the code of its AccountID), and the
 * AccountID as given (else the id of its code).
 */
function lineAccount(
  line: XeroLineItem,
  ctx: MappingContext,
): { code: string | null; externalId: string | null } {
  const code = textOrNull(line.AccountCode);
  const id = textOrNull(line.AccountID);
  return {
    code: code ?? (id ? (ctx.accountsById.get(id)?.code ?? null) : null),
    externalId: id ?? (code ? (ctx.accountsByCode.get(code)?.externalId ?? null) : null),
  };
}

/**
 * Decision: an invoice's category is the account code of its dominant line, the line with the
 * largest absolute ex-tax amount among lines that name an account (the first one on a tie);
 * null when no line names an account. The code joins to ledger_accounts (name, type, class,
 * sensitivity) and to the settings' account categories.
 */
export function dominantAccountCode(
  lines: readonly { accountCode?: string | null; lineAmount: string }[],
): string | null {
  let best: string | null = null;
  let bestAmount = money(-1);
  for (const line of lines) {
    if (!line.accountCode) continue;
    const amount = money(line.lineAmount).abs();
    if (amount.gt(bestAmount)) {
      best = line.accountCode;
      bestAmount = amount;
    }
  }
  return best;
}

/** A discount field that holds a discount: present and not zero (zero means list price). */
function discounted(value: string | undefined): value is string {
  return value !== undefined && !money(value).isZero();
}

/**
 * An invoice or bill line. `lineAmount` is ex-tax after discount: Xero's LineAmount, less
 * TaxAmount on Inclusive documents. Decision: on Inclusive documents `unitAmount` is made ex-tax
 * in the same proportion (UnitAmount × ex-tax amount / LineAmount, 4 dp) so that the spec's
 * `lineSubtotal = quantity × unitAmount` stays ex-tax; when LineAmount is zero it is kept as
 * given. Discounts exist on sales invoices only: `discountRate` is the percentage as a fraction,
 * and both discount fields are null on bills; a zero discount is null too ("list price"). Quantity and unit amount stay null when absent
 * (description-only lines); a missing LineAmount or TaxAmount is zero.
 */
export function mapInvoiceLine(
  line: XeroLineItem,
  index: number,
  invoice: Pick<XeroInvoice, "Type" | "LineAmountTypes">,
  ctx: MappingContext,
): MappedCashItemLine {
  const inclusive = invoice.LineAmountTypes === "Inclusive";
  const sales = invoice.Type === "ACCREC";
  const tax = money(line.TaxAmount);
  const gross = money(line.LineAmount);
  const exTax = inclusive ? gross.minus(tax) : gross;
  let unitAmount: string | null = line.UnitAmount ?? null;
  if (inclusive && unitAmount !== null && !gross.isZero()) {
    unitAmount = canonical(money(unitAmount).times(exTax).div(gross).toDecimalPlaces(4));
  }
  const account = lineAccount(line, ctx);
  return {
    lineNumber: index + 1,
    externalId: textOrNull(line.LineItemID),
    description: textOrNull(line.Description),
    quantity: line.Quantity ?? null,
    unitAmount,
    itemCode: textOrNull(line.ItemCode),
    accountCode: account.code,
    accountExternalId: account.externalId,
    taxType: textOrNull(line.TaxType),
    taxAmount: canonical(tax),
    lineAmount: canonical(exTax),
    discountRate:
      sales && discounted(line.DiscountRate) ? canonical(money(line.DiscountRate).div(100)) : null,
    discountAmount: sales && discounted(line.DiscountAmount) ? (line.DiscountAmount ?? null) : null,
  };
}

/**
 * A sales invoice (ACCREC → LEDGER_INVOICE) or bill (ACCPAY → LEDGER_BILL) with its lines.
 * - `amount` is the gross Total; AmountDue/Paid/Credited are kept beside it.
 * - `expectedDate`: ExpectedPaymentDate (ACCREC) / PlannedPaymentDate (ACCPAY), else DueDate,
 *   else Date.
 * - `actualDate`: FullyPaidOnDate, else, when PAID, the latest payment date (embedded
 *   `Payments[]` and the payments collection).
 * - Decision: `reference` is Reference on sales invoices and InvoiceNumber on bills (the number
 *   the ledger's UI labels "Reference" for bills); empty strings are null.
 * - `currency` falls back to the organisation's base currency.
 */
export function mapInvoice(
  invoice: XeroInvoice,
  ctx: MappingContext,
): { item: MappedCashItem; lines: MappedCashItemLine[] } {
  const sales = invoice.Type === "ACCREC";
  const lines = (invoice.LineItems ?? []).map((l, i) => mapInvoiceLine(l, i, invoice, ctx));
  const contactId = invoice.Contact?.ContactID ?? null;
  let actualDate = invoice.FullyPaidOnDate ?? null;
  if (!actualDate && invoice.Status === "PAID") {
    for (const p of invoice.Payments ?? []) actualDate = laterDate(actualDate, p.Date);
    actualDate = laterDate(actualDate, ctx.lastPaymentDates.get(invoice.InvoiceID));
  }
  const item: MappedCashItem = {
    source: sales ? "LEDGER_INVOICE" : "LEDGER_BILL",
    externalId: invoice.InvoiceID,
    invoiceNumber: textOrNull(invoice.InvoiceNumber),
    reference: textOrNull(sales ? invoice.Reference : invoice.InvoiceNumber),
    contactExternalId: contactId,
    contactName:
      textOrNull(invoice.Contact?.Name) ??
      (contactId ? (ctx.contactNames.get(contactId) ?? null) : null),
    status: cashStatus(invoice.Status),
    ledgerStatus: invoice.Status,
    lineAmountTypes: invoice.LineAmountTypes ?? null,
    currency: invoice.CurrencyCode || ctx.baseCurrency,
    currencyRate: invoice.CurrencyRate ?? null,
    subTotal: invoice.SubTotal ?? null,
    totalTax: invoice.TotalTax ?? null,
    amount: invoice.Total,
    amountDue: invoice.AmountDue ?? null,
    amountPaid: invoice.AmountPaid ?? null,
    amountCredited: invoice.AmountCredited ?? null,
    issueDate: invoice.Date,
    dueDate: invoice.DueDate ?? null,
    expectedDate:
      (sales ? invoice.ExpectedPaymentDate : invoice.PlannedPaymentDate) ??
      invoice.DueDate ??
      invoice.Date,
    actualDate,
    category: dominantAccountCode(lines),
    ledgerUpdatedAt: instantOrNull(invoice.UpdatedDateUTC),
  };
  return { item, lines };
}

// ─── Credit notes ────────────────────────────────────────────────────────────────────────────

/** A credit-note line: the ledger's values as they are (credit notes carry no discounts). */
function mapDocumentLine(line: XeroLineItem, index: number) {
  return {
    lineNumber: index + 1,
    externalId: textOrNull(line.LineItemID),
    description: textOrNull(line.Description),
    quantity: line.Quantity ?? null,
    unitAmount: line.UnitAmount ?? null,
    itemCode: textOrNull(line.ItemCode),
    accountCode: textOrNull(line.AccountCode),
    taxType: textOrNull(line.TaxType),
    taxAmount: line.TaxAmount ?? null,
    lineAmount: line.LineAmount ?? null,
  };
}

/**
 * A credit note with its lines and live allocations (entries flagged IsDeleted are skipped).
 * Decision: a missing RemainingCredit (drafts) is the Total, as nothing has been applied yet.
 */
export function mapCreditNote(
  note: XeroCreditNote,
  ctx: MappingContext,
): { note: MappedCreditNote; lines: MappedCreditNoteLine[]; allocations: MappedAllocation[] } {
  const contactId = note.Contact?.ContactID ?? null;
  return {
    note: {
      externalId: note.CreditNoteID,
      type: note.Type,
      creditNoteNumber: textOrNull(note.CreditNoteNumber),
      reference: textOrNull(note.Reference),
      contactExternalId: contactId,
      contactName:
        textOrNull(note.Contact?.Name) ??
        (contactId ? (ctx.contactNames.get(contactId) ?? null) : null),
      issueDate: note.Date ?? null,
      dueDate: note.DueDate ?? null,
      status: cashStatus(note.Status),
      ledgerStatus: note.Status,
      lineAmountTypes: note.LineAmountTypes ?? null,
      subTotal: note.SubTotal ?? null,
      totalTax: note.TotalTax ?? null,
      total: note.Total,
      remainingCredit: note.RemainingCredit ?? note.Total,
      currency: note.CurrencyCode || ctx.baseCurrency,
      currencyRate: note.CurrencyRate ?? null,
      fullyPaidOnDate: note.FullyPaidOnDate ?? null,
      ledgerUpdatedAt: instantOrNull(note.UpdatedDateUTC),
    },
    lines: (note.LineItems ?? []).map(mapDocumentLine),
    allocations: (note.Allocations ?? [])
      .filter((a) => a.IsDeleted !== true)
      .map((a) => ({
        externalId: textOrNull(a.AllocationID),
        invoiceExternalId: textOrNull(a.Invoice?.InvoiceID),
        invoiceNumber: textOrNull(a.Invoice?.InvoiceNumber),
        amount: a.Amount,
        date: a.Date ?? null,
      })),
  };
}

// ─── Purchase orders ─────────────────────────────────────────────────────────────────────────

/** A purchase order with its lines. `suppressedReason` is computed elsewhere, never here. */
export function mapPurchaseOrder(
  order: XeroPurchaseOrder,
  ctx: MappingContext,
): { order: MappedPurchaseOrder; lines: MappedPurchaseOrderLine[] } {
  const contactId = order.Contact?.ContactID ?? null;
  return {
    order: {
      externalId: order.PurchaseOrderID,
      purchaseOrderNumber: textOrNull(order.PurchaseOrderNumber),
      reference: textOrNull(order.Reference),
      contactExternalId: contactId,
      contactName:
        textOrNull(order.Contact?.Name) ??
        (contactId ? (ctx.contactNames.get(contactId) ?? null) : null),
      status: order.Status,
      issueDate: order.Date ?? null,
      deliveryDate: order.DeliveryDate ?? null,
      expectedArrivalDate: order.ExpectedArrivalDate ?? null,
      lineAmountTypes: order.LineAmountTypes ?? null,
      subTotal: order.SubTotal ?? null,
      totalTax: order.TotalTax ?? null,
      total: order.Total,
      currency: order.CurrencyCode || ctx.baseCurrency,
      currencyRate: order.CurrencyRate ?? null,
      ledgerUpdatedAt: instantOrNull(order.UpdatedDateUTC),
    },
    lines: (order.LineItems ?? []).map(mapDocumentLine),
  };
}

// ─── Payments and bank transactions ──────────────────────────────────────────────────────────

/**
 * A payment. Xero files refunds of credit notes under `Invoice` with an ACC…CREDIT `Type`; those
 * (and payments naming a `CreditNote`) are linked to the credit note, the rest to the invoice.
 * Decision: a missing Status is AUTHORISED; a missing IsReconciled is false.
 */
export function mapPayment(payment: XeroPayment): MappedPayment {
  const invoiceIsCredit = payment.Invoice?.Type?.endsWith("CREDIT") ?? false;
  const creditNoteId =
    textOrNull(payment.CreditNote?.CreditNoteID) ??
    (invoiceIsCredit ? textOrNull(payment.Invoice?.InvoiceID) : null);
  return {
    externalId: payment.PaymentID,
    paymentType: textOrNull(payment.PaymentType),
    status: payment.Status || "AUTHORISED",
    invoiceExternalId: invoiceIsCredit ? null : textOrNull(payment.Invoice?.InvoiceID),
    creditNoteExternalId: creditNoteId,
    bankAccountExternalId: textOrNull(payment.Account?.AccountID),
    date: payment.Date,
    amount: payment.Amount,
    bankAmount: payment.BankAmount ?? null,
    currencyRate: payment.CurrencyRate ?? null,
    reference: textOrNull(payment.Reference),
    isReconciled: payment.IsReconciled ?? false,
  };
}

/** A spend or receive money transaction; `accountCode` is the first coded line's account. */
export function mapBankTransaction(
  tx: XeroBankTransaction,
  ctx: MappingContext,
): MappedBankTransaction {
  const contactId = tx.Contact?.ContactID ?? null;
  const coded = (tx.LineItems ?? []).find((l) => l.AccountCode || l.AccountID);
  return {
    externalId: tx.BankTransactionID,
    type: tx.Type,
    status: tx.Status || "AUTHORISED",
    bankAccountExternalId: tx.BankAccount.AccountID,
    contactExternalId: contactId,
    contactName:
      textOrNull(tx.Contact?.Name) ??
      (contactId ? (ctx.contactNames.get(contactId) ?? null) : null),
    date: tx.Date,
    reference: textOrNull(tx.Reference),
    currency: tx.CurrencyCode || ctx.baseCurrency,
    subTotal: tx.SubTotal ?? null,
    totalTax: tx.TotalTax ?? null,
    total: tx.Total,
    isReconciled: tx.IsReconciled ?? false,
    accountCode: coded ? lineAccount(coded, ctx).code : null,
    ledgerUpdatedAt: instantOrNull(tx.UpdatedDateUTC),
  };
}
