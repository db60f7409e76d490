/**
 * What the importer reads from a ledger, in the ledger's own API shapes (Xero Accounting API:
 * field names, nesting and enums as in `xero_accounting.yaml`), limited to the fields we use.
 *
 * Values are normalised by the source, so every implementation hands over the same types:
 * - money and other decimals: canonical decimal strings from a lossless parse, never `number`
 *   (`0.1` stays `"0.1"`);
 * - calendar dates (`x-is-msdate`: Date, DueDate, …): `YYYY-MM-DD`, never shifted by a timezone;
 * - instants (`x-is-msdate-time`: UpdatedDateUTC): ISO-8601 UTC strings (`2024-01-31T05:00:00.000Z`);
 * - empty optional strings stay as the ledger sent them; the mapping decides what `""` means.
 */

/** A decimal as a canonical string: `-12.5`, `0.1`, `1234567.891`. */
export type DecimalString = string;
/** A calendar date, `YYYY-MM-DD`. */
export type CalendarDate = string;
/** An instant as an ISO-8601 UTC string. */
export type InstantString = string;

export const XERO_DOCUMENT_STATUSES = [
  "DRAFT",
  "SUBMITTED",
  "DELETED",
  "AUTHORISED",
  "PAID",
  "VOIDED",
] as const;
/** Invoice and credit-note status. */
export type XeroDocumentStatus = (typeof XERO_DOCUMENT_STATUSES)[number];

export const XERO_PURCHASE_ORDER_STATUSES = [
  "DRAFT",
  "SUBMITTED",
  "AUTHORISED",
  "BILLED",
  "DELETED",
] as const;
export type XeroPurchaseOrderStatus = (typeof XERO_PURCHASE_ORDER_STATUSES)[number];

export const XERO_LINE_AMOUNT_TYPES = ["Exclusive", "Inclusive", "NoTax"] as const;
export type XeroLineAmountTypes = (typeof XERO_LINE_AMOUNT_TYPES)[number];

/** `GET /Organisation` → `Organisations[0]`. */
export interface XeroOrganisation {
  OrganisationID: string;
  Name?: string;
  LegalName?: string;
  BaseCurrency?: string;
  CountryCode?: string;
  /** Windows zone id, upper-cased without spaces, e.g. `AUSEASTERNSTANDARDTIME`. */
  Timezone?: string;
  FinancialYearEndDay?: number;
  FinancialYearEndMonth?: number;
}

/** `GET /Accounts`: the chart of accounts (no balances). */
export interface XeroAccount {
  AccountID: string;
  Code?: string;
  Name: string;
  /** BANK, CURRENT, DIRECTCOSTS, EXPENSE, REVENUE, SALES, … */
  Type: string;
  /** ACTIVE, ARCHIVED, DELETED. */
  Status?: string;
  /** ASSET, EQUITY, EXPENSE, LIABILITY, REVENUE. */
  Class?: string;
  SystemAccount?: string;
  ReportingCode?: string;
  BankAccountType?: string;
  BankAccountNumber?: string;
  CurrencyCode?: string;
  TaxType?: string;
  UpdatedDateUTC?: InstantString;
}

/** `GET /Contacts`. */
export interface XeroContact {
  ContactID: string;
  Name: string;
  FirstName?: string;
  LastName?: string;
  EmailAddress?: string;
  ContactNumber?: string;
  AccountNumber?: string;
  /** ACTIVE, ARCHIVED, GDPRREQUEST. */
  ContactStatus?: string;
  IsCustomer?: boolean;
  IsSupplier?: boolean;
  DefaultCurrency?: string;
  MergedToContactID?: string;
  UpdatedDateUTC?: InstantString;
}

/** The contact summary embedded in documents. */
export interface XeroContactRef {
  ContactID: string;
  Name?: string;
}

/** A line of an invoice, bill, credit note, purchase order or bank transaction. */
export interface XeroLineItem {
  LineItemID?: string;
  Description?: string;
  Quantity?: DecimalString;
  UnitAmount?: DecimalString;
  ItemCode?: string;
  AccountCode?: string;
  AccountID?: string;
  TaxType?: string;
  TaxAmount?: DecimalString;
  /** Follows the document's LineAmountTypes: tax-inclusive on `Inclusive` documents. */
  LineAmount?: DecimalString;
  /** A percentage (0–100), ACCREC only. */
  DiscountRate?: DecimalString;
  /** ACCREC only. */
  DiscountAmount?: DecimalString;
}

/** A payment as embedded in an invoice's `Payments[]`. */
export interface XeroPaymentRef {
  PaymentID?: string;
  Date?: CalendarDate;
  Amount?: DecimalString;
}

/** `GET /Invoices`: sales invoices (ACCREC) and bills (ACCPAY). */
export interface XeroInvoice {
  Type: "ACCREC" | "ACCPAY";
  InvoiceID: string;
  InvoiceNumber?: string;
  /** ACCREC only; on bills the UI's "Reference" is InvoiceNumber. */
  Reference?: string;
  Contact?: XeroContactRef;
  Date: CalendarDate;
  DueDate?: CalendarDate;
  /** ACCREC, when set. */
  ExpectedPaymentDate?: CalendarDate;
  /** ACCPAY, when set. */
  PlannedPaymentDate?: CalendarDate;
  FullyPaidOnDate?: CalendarDate;
  Status: XeroDocumentStatus;
  LineAmountTypes?: XeroLineAmountTypes;
  LineItems?: XeroLineItem[];
  SubTotal?: DecimalString;
  TotalTax?: DecimalString;
  Total: DecimalString;
  AmountDue?: DecimalString;
  AmountPaid?: DecimalString;
  AmountCredited?: DecimalString;
  CurrencyCode?: string;
  CurrencyRate?: DecimalString;
  Payments?: XeroPaymentRef[];
  UpdatedDateUTC?: InstantString;
}

/** An entry of a credit note's `Allocations[]`. */
export interface XeroAllocation {
  AllocationID?: string;
  Invoice?: { InvoiceID?: string; InvoiceNumber?: string };
  Amount: DecimalString;
  Date?: CalendarDate;
  IsDeleted?: boolean;
}

/** `GET /CreditNotes`. */
export interface XeroCreditNote {
  Type: "ACCRECCREDIT" | "ACCPAYCREDIT";
  CreditNoteID: string;
  CreditNoteNumber?: string;
  Reference?: string;
  Contact?: XeroContactRef;
  Date?: CalendarDate;
  DueDate?: CalendarDate;
  Status: XeroDocumentStatus;
  LineAmountTypes?: XeroLineAmountTypes;
  LineItems?: XeroLineItem[];
  SubTotal?: DecimalString;
  TotalTax?: DecimalString;
  Total: DecimalString;
  RemainingCredit?: DecimalString;
  Allocations?: XeroAllocation[];
  CurrencyCode?: string;
  CurrencyRate?: DecimalString;
  FullyPaidOnDate?: CalendarDate;
  UpdatedDateUTC?: InstantString;
}

/** `GET /PurchaseOrders`. */
export interface XeroPurchaseOrder {
  PurchaseOrderID: string;
  PurchaseOrderNumber?: string;
  Reference?: string;
  Contact?: XeroContactRef;
  Date?: CalendarDate;
  DeliveryDate?: CalendarDate;
  ExpectedArrivalDate?: CalendarDate;
  Status: XeroPurchaseOrderStatus;
  LineAmountTypes?: XeroLineAmountTypes;
  LineItems?: XeroLineItem[];
  SubTotal?: DecimalString;
  TotalTax?: DecimalString;
  Total: DecimalString;
  CurrencyCode?: string;
  CurrencyRate?: DecimalString;
  UpdatedDateUTC?: InstantString;
}

/** `GET /Payments`. */
export interface XeroPayment {
  PaymentID: string;
  /** The settled document. Xero also puts credit-note refunds here, with `Type` ACC…CREDIT. */
  Invoice?: { InvoiceID?: string; InvoiceNumber?: string; Type?: string };
  CreditNote?: { CreditNoteID?: string; CreditNoteNumber?: string };
  /** The bank account. */
  Account?: { AccountID?: string; Code?: string };
  Date: CalendarDate;
  /** In the document's currency. */
  Amount: DecimalString;
  /** In the bank account's currency. */
  BankAmount?: DecimalString;
  CurrencyRate?: DecimalString;
  Reference?: string;
  IsReconciled?: boolean;
  /** AUTHORISED, DELETED. */
  Status?: string;
  PaymentType?: string;
  UpdatedDateUTC?: InstantString;
}

/** `GET /BankTransactions`: spend and receive money, transfers. */
export interface XeroBankTransaction {
  BankTransactionID: string;
  /** RECEIVE, SPEND, RECEIVE-TRANSFER, … */
  Type: string;
  Contact?: XeroContactRef;
  LineItems?: XeroLineItem[];
  BankAccount: { AccountID: string; Code?: string; Name?: string };
  IsReconciled?: boolean;
  Date: CalendarDate;
  Reference?: string;
  CurrencyCode?: string;
  CurrencyRate?: DecimalString;
  /** AUTHORISED, DELETED, VOIDED. */
  Status?: string;
  LineAmountTypes?: XeroLineAmountTypes;
  SubTotal?: DecimalString;
  TotalTax?: DecimalString;
  Total: DecimalString;
  UpdatedDateUTC?: InstantString;
}

/** A report cell: values arrive as strings (`"10.00"`), attributes carry ids. */
export interface XeroReportCell {
  Value?: string;
  Attributes?: { Id: string; Value: string }[];
}

/** A report row: `Header`, `Section` (holding `Rows`), `Row` or `SummaryRow`. */
export interface XeroReportRow {
  RowType: string;
  Title?: string;
  Cells?: XeroReportCell[];
  Rows?: XeroReportRow[];
}

/** `GET /Reports/BankSummary` → `Reports[0]` (ReportWithRows). */
export interface XeroReport {
  ReportID?: string;
  ReportName?: string;
  ReportType?: string;
  ReportDate?: string;
  Rows: XeroReportRow[];
}

/** The ledgers we can read; matches `ledger_connections.provider`. */
export type LedgerProviderName = "xero" | "export_folder" | "demo";

/**
 * One ledger's documents, read-only. Collections come as async iterables of pages so that an API
 * implementation can map them onto the ledger's paging (`page=N&pageSize=1000`) and a file
 * implementation onto slices of a file; the importer never needs a whole collection at once.
 *
 * Each collection is read at most once per import, in any order. Every method may throw; a
 * malformed record throws `LedgerFormatError` (from `errors.ts`) naming the record and field.
 */
export interface LedgerSource {
  /** Which kind of ledger this is; recorded on the organisation's ledger connection. */
  readonly provider: LedgerProviderName;
  /** The Xero tenant id, or the folder path of an export; recorded on the connection. */
  readonly sourceRef: string | null;

  /** The ledger organisation (`GET /Organisation`, first entry). */
  organisation(): Promise<XeroOrganisation>;

  /** The chart of accounts (`GET /Accounts`), every status. */
  accounts(): AsyncIterable<XeroAccount[]>;

  /** Every contact (`GET /Contacts?includeArchived=true`). */
  contacts(): AsyncIterable<XeroContact[]>;

  /** Sales invoices (ACCREC) and bills (ACCPAY), with line items and embedded payments. */
  invoices(): AsyncIterable<XeroInvoice[]>;

  /** Credit notes of both types, with line items and allocations. */
  creditNotes(): AsyncIterable<XeroCreditNote[]>;

  /** Purchase orders with line items. */
  purchaseOrders(): AsyncIterable<XeroPurchaseOrder[]>;

  /** Payments on invoices, bills and credit notes. */
  payments(): AsyncIterable<XeroPayment[]>;

  /** Spend and receive money transactions on bank accounts. */
  bankTransactions(): AsyncIterable<XeroBankTransaction[]>;

  /**
   * The BankSummary report (closing balance per bank account), or null when the ledger gave
   * none; the importer then records zero balances.
   */
  bankSummary(): Promise<XeroReport | null>;

  /**
   * Balance sheets (`GET /Reports/BalanceSheet?date=…`), each column a balance as at its header
   * date; empty when the ledger gave none. Optional: a source without it has no balances.
   */
  balanceSheets?(): Promise<XeroReport[]>;
}
