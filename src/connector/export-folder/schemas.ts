import { z } from "zod";
import { showValue } from "../errors.ts";
import { LEDGER_DECIMAL_TEXT, parseDecimal } from "../json-numbers.ts";
import { parseLedgerDate, parseLedgerInstant } from "../ledger-dates.ts";
import {
  XERO_DOCUMENT_STATUSES,
  XERO_LINE_AMOUNT_TYPES,
  XERO_PURCHASE_ORDER_STATUSES,
  type XeroAccount,
  type XeroBankTransaction,
  type XeroContact,
  type XeroCreditNote,
  type XeroInvoice,
  type XeroOrganisation,
  type XeroPayment,
  type XeroPurchaseOrder,
  type XeroReport,
  type XeroReportRow,
} from "../ledger-source.ts";

/*
 * Zod schemas for one record of each export file. They check the fields we use, ignore the rest,
 * and normalise values into the LedgerSource types: money to canonical decimal strings (numbers
 * arrive as digit strings from parseJsonKeepingNumbers; numeric strings are accepted too),
 * calendar dates to YYYY-MM-DD, instants to ISO strings, "true"/"false" to booleans. null counts
 * as absent. Issue messages are complete sentences for LedgerFormatError ("expected a number,
 * got \"abc\""); a missing required field is reported as "required".
 */

const REQUIRED = "required";

const isAbsent = (v: unknown): v is null | undefined => v === null || v === undefined;

/** A required value turned into T by `parse`, or an issue with `expected`. */
function required<T>(expected: string, parse: (v: unknown) => T | undefined) {
  return z.unknown().transform((v, ctx): T => {
    if (isAbsent(v)) {
      ctx.addIssue({ code: "custom", message: REQUIRED });
      return z.NEVER;
    }
    const out = parse(v);
    if (out === undefined) {
      ctx.addIssue({ code: "custom", message: `expected ${expected}, got ${showValue(v)}` });
      return z.NEVER;
    }
    return out;
  });
}

/** As `required`, but absent (missing or null) gives undefined. */
function optional<T>(expected: string, parse: (v: unknown) => T | undefined) {
  return z
    .unknown()
    .transform((v, ctx): T | undefined => {
      if (isAbsent(v)) return undefined;
      const out = parse(v);
      if (out === undefined) {
        ctx.addIssue({ code: "custom", message: `expected ${expected}, got ${showValue(v)}` });
        return z.NEVER;
      }
      return out;
    })
    .optional(); // zod 4 reports a missing key as an error unless the schema is optional
}

// PostgreSQL text cannot hold NUL, and no ledger writes one: refused here, with the field named.
const asString = (v: unknown) => (typeof v === "string" && !v.includes("\u0000") ? v : undefined);
const asId = (v: unknown) => (asString(v)?.trim() ? (v as string) : undefined);
const asDate = (v: unknown) => (typeof v === "string" ? parseLedgerDate(v) : undefined);
const asInstant = (v: unknown) =>
  typeof v === "string" ? parseLedgerInstant(v)?.toISOString() : undefined;
function asBoolean(v: unknown): boolean | undefined {
  if (typeof v === "boolean") return v;
  if (typeof v === "string") {
    const s = v.trim().toLowerCase();
    if (s === "true") return true;
    if (s === "false") return false;
  }
  return undefined;
}
function asInt(min: number, max: number) {
  return (v: unknown): number | undefined => {
    const s = typeof v === "number" ? String(v) : typeof v === "string" ? v.trim() : "";
    if (!/^\d+$/.test(s)) return undefined;
    const n = Number(s);
    return n >= min && n <= max ? n : undefined;
  };
}
function asOneOf<const T extends readonly string[]>(values: T) {
  return (v: unknown): T[number] | undefined =>
    typeof v === "string" && (values as readonly string[]).includes(v) ? v : undefined;
}
const oneOfText = (values: readonly string[]) => `one of ${values.join(", ")}`;

const DATE_TEXT = 'a date such as "/Date(1539993600000+0000)/" or "2024-01-31"';
const INSTANT_TEXT = 'a timestamp such as "/Date(1541176290160+0000)/" or "2024-01-31T05:00:00Z"';

const id = required("a non-empty id string without NUL characters", asId);
const optId = optional("an id string without NUL characters", asString);
const text = required("a string without NUL characters", asString);
const optText = optional("a string without NUL characters", asString);
const money = required(LEDGER_DECIMAL_TEXT, parseDecimal);
const optMoney = optional(LEDGER_DECIMAL_TEXT, parseDecimal);
const date = required(DATE_TEXT, asDate);
const optDate = optional(DATE_TEXT, asDate);
const optInstant = optional(INSTANT_TEXT, asInstant);
const optBoolean = optional("true or false", asBoolean);

const documentStatus = required(oneOfText(XERO_DOCUMENT_STATUSES), asOneOf(XERO_DOCUMENT_STATUSES));
const lineAmountTypes = optional(
  oneOfText(XERO_LINE_AMOUNT_TYPES),
  asOneOf(XERO_LINE_AMOUNT_TYPES),
);

/** An optional array: null or missing gives undefined. */
function optArray<T extends z.ZodType>(item: T) {
  return z
    .array(item)
    .nullish()
    .transform((v) => v ?? undefined);
}
/** An optional nested object: null or missing gives undefined. */
function optObject<T extends z.ZodType>(schema: T) {
  return schema.nullish().transform((v) => v ?? undefined);
}

const ContactRefSchema = z.object({ ContactID: id, Name: optText });

const LineItemSchema = z.object({
  LineItemID: optId,
  Description: optText,
  Quantity: optMoney,
  UnitAmount: optMoney,
  ItemCode: optText,
  AccountCode: optText,
  AccountID: optId,
  TaxType: optText,
  TaxAmount: optMoney,
  LineAmount: optMoney,
  DiscountRate: optMoney,
  DiscountAmount: optMoney,
});

export const OrganisationSchema = z.object({
  OrganisationID: id,
  Name: optText,
  LegalName: optText,
  BaseCurrency: optText,
  CountryCode: optText,
  Timezone: optText,
  FinancialYearEndDay: optional("a day of the month (1-31)", asInt(1, 31)),
  FinancialYearEndMonth: optional("a month (1-12)", asInt(1, 12)),
});

export const AccountSchema = z.object({
  AccountID: id,
  Code: optText,
  Name: text,
  Type: required("an account type such as BANK or REVENUE", asId),
  Status: optText,
  Class: optText,
  SystemAccount: optText,
  ReportingCode: optText,
  BankAccountType: optText,
  BankAccountNumber: optText,
  CurrencyCode: optText,
  TaxType: optText,
  UpdatedDateUTC: optInstant,
});

export const ContactSchema = z.object({
  ContactID: id,
  Name: text,
  FirstName: optText,
  LastName: optText,
  EmailAddress: optText,
  ContactNumber: optText,
  AccountNumber: optText,
  ContactStatus: optText,
  IsCustomer: optBoolean,
  IsSupplier: optBoolean,
  DefaultCurrency: optText,
  MergedToContactID: optId,
  UpdatedDateUTC: optInstant,
});

export const InvoiceSchema = z.object({
  Type: required("ACCREC or ACCPAY", asOneOf(["ACCREC", "ACCPAY"] as const)),
  InvoiceID: id,
  InvoiceNumber: optText,
  Reference: optText,
  Contact: optObject(ContactRefSchema),
  Date: date,
  DueDate: optDate,
  ExpectedPaymentDate: optDate,
  PlannedPaymentDate: optDate,
  FullyPaidOnDate: optDate,
  Status: documentStatus,
  LineAmountTypes: lineAmountTypes,
  LineItems: optArray(LineItemSchema),
  SubTotal: optMoney,
  TotalTax: optMoney,
  Total: money,
  AmountDue: optMoney,
  AmountPaid: optMoney,
  AmountCredited: optMoney,
  CurrencyCode: optText,
  CurrencyRate: optMoney,
  Payments: optArray(z.object({ PaymentID: optId, Date: optDate, Amount: optMoney })),
  UpdatedDateUTC: optInstant,
});

export const CreditNoteSchema = z.object({
  Type: required(
    "ACCRECCREDIT or ACCPAYCREDIT",
    asOneOf(["ACCRECCREDIT", "ACCPAYCREDIT"] as const),
  ),
  CreditNoteID: id,
  CreditNoteNumber: optText,
  Reference: optText,
  Contact: optObject(ContactRefSchema),
  Date: optDate,
  DueDate: optDate,
  Status: documentStatus,
  LineAmountTypes: lineAmountTypes,
  LineItems: optArray(LineItemSchema),
  SubTotal: optMoney,
  TotalTax: optMoney,
  Total: money,
  RemainingCredit: optMoney,
  Allocations: optArray(
    z.object({
      AllocationID: optId,
      Invoice: optObject(z.object({ InvoiceID: optId, InvoiceNumber: optText })),
      Amount: money,
      Date: optDate,
      IsDeleted: optBoolean,
    }),
  ),
  CurrencyCode: optText,
  CurrencyRate: optMoney,
  FullyPaidOnDate: optDate,
  UpdatedDateUTC: optInstant,
});

export const PurchaseOrderSchema = z.object({
  PurchaseOrderID: id,
  PurchaseOrderNumber: optText,
  Reference: optText,
  Contact: optObject(ContactRefSchema),
  Date: optDate,
  DeliveryDate: optDate,
  ExpectedArrivalDate: optDate,
  Status: required(oneOfText(XERO_PURCHASE_ORDER_STATUSES), asOneOf(XERO_PURCHASE_ORDER_STATUSES)),
  LineAmountTypes: lineAmountTypes,
  LineItems: optArray(LineItemSchema),
  SubTotal: optMoney,
  TotalTax: optMoney,
  Total: money,
  CurrencyCode: optText,
  CurrencyRate: optMoney,
  UpdatedDateUTC: optInstant,
});

export const PaymentSchema = z.object({
  PaymentID: id,
  Invoice: optObject(z.object({ InvoiceID: optId, InvoiceNumber: optText, Type: optText })),
  CreditNote: optObject(z.object({ CreditNoteID: optId, CreditNoteNumber: optText })),
  Account: optObject(z.object({ AccountID: optId, Code: optText })),
  Date: date,
  Amount: money,
  BankAmount: optMoney,
  CurrencyRate: optMoney,
  Reference: optText,
  IsReconciled: optBoolean,
  Status: optText,
  PaymentType: optText,
  UpdatedDateUTC: optInstant,
});

export const BankTransactionSchema = z.object({
  BankTransactionID: id,
  Type: required("a bank transaction type such as SPEND or RECEIVE", asId),
  Contact: optObject(ContactRefSchema),
  LineItems: optArray(LineItemSchema),
  BankAccount: z.object({ AccountID: id, Code: optText, Name: optText }),
  IsReconciled: optBoolean,
  Date: date,
  Reference: optText,
  CurrencyCode: optText,
  CurrencyRate: optMoney,
  Status: optText,
  LineAmountTypes: lineAmountTypes,
  SubTotal: optMoney,
  TotalTax: optMoney,
  Total: money,
  UpdatedDateUTC: optInstant,
});

const ReportCellSchema = z.object({
  Value: optText,
  Attributes: optArray(z.object({ Id: text, Value: text })),
});

const ReportRowSchema: z.ZodType<XeroReportRow> = z.lazy(() =>
  z.object({
    RowType: text,
    Title: optText,
    Cells: optArray(ReportCellSchema),
    Rows: optArray(ReportRowSchema),
  }),
);

/** How deep report rows may nest (the ledger's reports use two or three levels). */
export const MAX_REPORT_DEPTH = 32;

/** The deepest nesting of `Rows` under `rows`, counted without recursion. */
function rowDepth(rows: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[rows, 1]];
  while (stack.length > 0) {
    const [level, depth] = stack.pop() as [unknown, number];
    if (!Array.isArray(level)) continue;
    deepest = Math.max(deepest, depth);
    if (deepest > MAX_REPORT_DEPTH) return deepest;
    for (const row of level) {
      if (typeof row === "object" && row !== null) {
        stack.push([(row as { Rows?: unknown }).Rows, depth + 1]);
      }
    }
  }
  return deepest;
}

export const ReportSchema = z.object({
  ReportID: optText,
  ReportName: optText,
  ReportType: optText,
  ReportDate: optText,
  // Checked before the rows are validated: each level costs the validator stack.
  Rows: z.preprocess((rows, ctx) => {
    if (rowDepth(rows) > MAX_REPORT_DEPTH) {
      ctx.addIssue({
        code: "custom",
        message: `rows nest more than ${MAX_REPORT_DEPTH} levels deep`,
      });
      return z.NEVER;
    }
    return rows;
  }, z.array(ReportRowSchema)),
});

// Compile-time proof that each schema yields the LedgerSource type it stands for (exported so
// that TypeScript keeps it; nothing reads it at run time).
type Yields<S extends z.ZodType, T> = z.output<S> extends T ? true : never;
/** @public */
export const SCHEMAS_MATCH_TYPES: [
  Yields<typeof OrganisationSchema, XeroOrganisation>,
  Yields<typeof AccountSchema, XeroAccount>,
  Yields<typeof ContactSchema, XeroContact>,
  Yields<typeof InvoiceSchema, XeroInvoice>,
  Yields<typeof CreditNoteSchema, XeroCreditNote>,
  Yields<typeof PurchaseOrderSchema, XeroPurchaseOrder>,
  Yields<typeof PaymentSchema, XeroPayment>,
  Yields<typeof BankTransactionSchema, XeroBankTransaction>,
  Yields<typeof ReportSchema, XeroReport>,
] = [true, true, true, true, true, true, true, true, true];
