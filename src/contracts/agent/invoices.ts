import { z } from "@hono/zod-openapi";
import { LEDGER_STATUSES } from "../../db/schema/index.ts";
import {
  AUTO_PAGINATE_CAP,
  DEFAULT_PAGE_LIMIT,
  MAX_PAGE_LIMIT,
  TOTALS_CAP,
} from "../../domain/pagination/params.ts";
import { withAlerts } from "./alerts.ts";
import {
  autoPaginateParam,
  booleanParam,
  contactIdParam,
  cursorParam,
  dateOrder,
  dateParam,
  limitParam,
  statusParam,
  totalsParam,
} from "./list-params.ts";

/** A canonical decimal string (never a JSON number). */
export const decimal = (description: string, example: string) =>
  z.string().openapi({
    description: `${description} Canonical decimal string (trailing zeros trimmed, \`0\` when zero).`,
    example,
  });

/** A nullable canonical decimal string. */
export const nullableDecimal = (description: string, example: string | null) =>
  z
    .string()
    .nullable()
    .openapi({ description: `${description} Canonical decimal string or null.`, example });

/** A calendar date shown as a date-time: midnight UTC of the ledger's date. */
export const dateTime = (description: string, example = "2024-01-10T00:00:00.000Z") =>
  z.string().openapi({
    description:
      `${description} ISO 8601 date-time at midnight UTC of the ledger's calendar date ` +
      "(`YYYY-MM-DDT00:00:00.000Z`); the date part is the ledger's date, never shifted.",
    example,
  });

const LedgerStatusSchema = z.enum(LEDGER_STATUSES).openapi({
  description: "The ledger's document status: the status to filter by.",
  example: "AUTHORISED",
});

const CashStatusSchema = z.enum(["FORECAST", "ACTUAL", "CANCELLED"]).openapi({
  description:
    "Internal cash-item lifecycle, diagnostic only: PAID → ACTUAL; VOIDED, DELETED → " +
    "CANCELLED; DRAFT, SUBMITTED, AUTHORISED → FORECAST.",
  example: "FORECAST",
});

export const InvoiceLineSchema = z
  .object({
    id: z.string().openapi({ description: "Service id of the line.", example: "cil_8m2k4q" }),
    lineNumber: z.number().int().openapi({ description: "1-based position.", example: 1 }),
    accountCode: z.string().optional().openapi({
      description: "The line's ledger account code; absent when the line names no account.",
      example: "200",
    }),
    accountName: z.string().openapi({
      description:
        "Name of the line's account in the chart of accounts (by code, else by the ledger's " +
        "AccountID); `Uncategorised` when the line names no account the chart has.",
      example: "Sales",
    }),
    lineAmount: decimal("Ex-tax line amount after discount (the billed amount).", "900"),
    taxAmount: decimal("Tax on the line.", "90"),
    quantity: nullableDecimal("Quantity; null means unknown, not zero.", "10"),
    unitAmount: nullableDecimal(
      "Per-unit list price, ex-tax and before discount (made ex-tax on tax-inclusive " +
        "documents); null means unknown.",
      "100",
    ),
    discountRate: nullableDecimal(
      "Discount as a fraction 0 to 1 (`0.1` = 10% off); null = list price or an absolute " +
        "discount. Sales invoices only; always null on bills.",
      "0.1",
    ),
    discountAmount: nullableDecimal(
      "Absolute discount in the document's currency; exclusive with discountRate. Always " +
        "null on bills.",
      null,
    ),
    lineSubtotal: nullableDecimal(
      "quantity × unitAmount before discount; null when either is null. Always null on bills. " +
        "Reconciles as lineSubtotal × (1 − discountRate) ≈ lineAmount.",
      "1000",
    ),
    taxType: z.string().optional().openapi({ description: "Ledger tax type.", example: "OUTPUT" }),
    currency: z.string().openapi({ description: "The document's currency.", example: "AUD" }),
    lineDescription: z.string().optional().openapi({ example: "Widgets" }),
  })
  .openapi("InvoiceLine", { description: "A line of an invoice or bill." });

export const InvoiceSchema = z
  .object({
    id: z.string().openapi({
      description: "Service id of the document (stable across syncs).",
      example: "ci_5kq2m8x3c9d1v7b4n6ht",
    }),
    externalId: z.string().optional().openapi({
      description: "The ledger's InvoiceID.",
      example: "10000000-0000-4000-8000-000000000001",
    }),
    invoiceNumber: z.string().optional().openapi({ example: "INV-0001" }),
    reference: z
      .string()
      .optional()
      .openapi({
        description:
          "Sales invoices: the ledger's Reference. Bills: the ledger's InvoiceNumber (what the " +
          "ledger's screens call a bill's reference).",
        example: "PO 7781",
      }),
    amount: decimal("Gross document total, tax included.", "990.11"),
    currency: z.string().openapi({ description: "3-letter ISO code.", example: "AUD" }),
    expectedDate: dateTime(
      "When the money is expected: the expected (sales) or planned (bills) payment date, else " +
        "the due date, else the issue date.",
      "2024-02-15T00:00:00.000Z",
    ),
    actualDate: dateTime(
      "When the document was fully paid: the ledger's FullyPaidOnDate, else the last " +
        "payment's date; absent while unpaid.",
    ).optional(),
    issueDate: dateTime("The document's date.").optional(),
    status: CashStatusSchema,
    ledgerStatus: LedgerStatusSchema,
    contactId: z.string().optional().openapi({
      description: "The ledger contact id (`id` in /contacts).",
      example: "c0000000-0000-4000-8000-000000000001",
    }),
    contactName: z.string().optional().openapi({ example: "Acme Corp" }),
    category: z
      .string()
      .optional()
      .openapi({
        description:
          "Account code of the document's dominant line (largest ex-tax amount). Without " +
          "READ_SENSITIVE it is absent when that account is flagged sensitive.",
        example: "200",
      }),
    lines: z.array(InvoiceLineSchema).optional().openapi({
      description: "The document's lines, by lineNumber; present only with `lines=true`.",
    }),
  })
  .openapi("Invoice", {
    description: "A receivable invoice, or (as the element of `bills`) a payable bill.",
  });

export const ListTotalsBucketSchema = z
  .object({
    count: z.number().int().openapi({ example: 12 }),
    amount: decimal("Sum of the bucket's amounts; `0` when empty.", "10450.5"),
  })
  .openapi("ListTotalsBucket");

/** InvoiceBillTotals, keyed by the list's status vocabulary. */
export function totalsSchema(name: string, statuses: readonly string[], amountField: string) {
  return z
    .object({
      byStatus: z
        .record(z.string(), ListTotalsBucketSchema)
        .nullable()
        .optional()
        .openapi({
          description:
            `Map of status to bucket; every status (${statuses.join(", ")}) is present, ` +
            "zero-filled, for a single-currency or empty set; null when mixedCurrency is true.",
        }),
      grandTotal: ListTotalsBucketSchema.optional().openapi({
        description:
          "Sum across the buckets: count and amount. Present for a single-currency or empty " +
          "set; absent when mixedCurrency is true (a sum across currencies means nothing).",
      }),
      currency: z.string().optional().openapi({
        description: "The set's one currency; absent for an empty or multi-currency set.",
        example: "AUD",
      }),
      mixedCurrency: z.literal(true).optional().openapi({
        description: "Present and true only when the set spans more than one currency.",
      }),
      primaryCurrency: z.string().optional().openapi({
        description: "With mixedCurrency: the lexicographically first currency code.",
        example: "AUD",
      }),
    })
    .openapi(name, {
      description:
        `Totals of \`${amountField}\` over the whole filtered set, counted before redaction. ` +
        "Three variants: one currency (byStatus, grandTotal, currency); several currencies " +
        "(mixedCurrency true, primaryCurrency, byStatus null); empty set (zero buckets, " +
        "grandTotal count 0 and amount `0`).",
    });
}

export const InvoiceBillTotalsSchema = totalsSchema("InvoiceBillTotals", LEDGER_STATUSES, "amount");

/** Fields every list response carries besides its array. */
export function listResponseFields<T extends z.ZodType>(noun: string, totals: T) {
  return {
    nextCursor: z
      .string()
      .nullable()
      .openapi({
        description:
          "Opaque base64url cursor for the next page; null on the last page and on every " +
          "autoPaginate response. Always present.",
      }),
    totalCount: z
      .number()
      .int()
      .openapi({
        description: `${noun} matching the filters, before redaction (the whole set, not the page).`,
        example: 1234,
      }),
    redactedItemCount: z
      .number()
      .int()
      .openapi({
        description:
          "Rows withheld from this page by sensitive-data gating; 0 with READ_SENSITIVE. The " +
          "page's rows plus this count are the rows a READ_SENSITIVE key sees on the same page.",
        example: 0,
      }),
    truncated: z
      .literal(true)
      .optional()
      .openapi({
        description: `Present and true only with autoPaginate when more than ${AUTO_PAGINATE_CAP.toLocaleString("en")} rows matched.`,
      }),
    totals: totals.optional(),
    totalsTruncated: z
      .literal(true)
      .optional()
      .openapi({
        description: `Present and true only with totals when more than ${TOTALS_CAP.toLocaleString("en")} rows matched; \`totals\` is then omitted.`,
      }),
  };
}

export const InvoicesResponseSchema = withAlerts(
  z.object({
    invoices: z.array(InvoiceSchema),
    ...listResponseFields("Invoices", InvoiceBillTotalsSchema),
  }),
).openapi("InvoicesResponse");

export const BillsResponseSchema = withAlerts(
  z.object({
    bills: z.array(InvoiceSchema),
    ...listResponseFields("Bills", InvoiceBillTotalsSchema),
  }),
).openapi("BillsResponse");

export type InvoicesResponse = z.infer<typeof InvoicesResponseSchema>;
export type BillsResponse = z.infer<typeof BillsResponseSchema>;
export type Invoice = z.infer<typeof InvoiceSchema>;

/** The query of /invoices and /bills. */
export const ListDocumentsQuerySchema = z
  .object({
    status: statusParam(LEDGER_STATUSES, "ledger statuses"),
    contactId: contactIdParam,
    dateFrom: dateParam(
      "dateFrom",
      "Inclusive lower bound on the issue date (the due date when the issue date is unknown).",
    ),
    dateTo: dateParam(
      "dateTo",
      "Inclusive upper bound on the same date, to the end of that day UTC. Must not be before " +
        "dateFrom (400 `invalid_parameter`, parameter `dateFrom`).",
    ),
    cursor: cursorParam,
    limit: limitParam,
    lines: booleanParam("lines", "When true each document carries `lines`."),
    autoPaginate: autoPaginateParam,
    totals: totalsParam("(byStatus, grandTotal, currency)"),
  })
  .refine(dateOrder, { message: "dateFrom must not be after dateTo", path: ["dateFrom"] });

/** The paging rules of every list, for the operation descriptions. */
export const PAGING =
  "The order is stable: walking every page with `nextCursor` returns each matched row exactly " +
  "once, also while rows are added between pages (new rows appear when they sort after the " +
  `cursor). **Paging**: cursor mode by default, \`limit\` rows per page (default ${DEFAULT_PAGE_LIMIT}, ` +
  `capped at ${MAX_PAGE_LIMIT}); loop until \`nextCursor\` is null, passing the same filters. ` +
  `\`autoPaginate=true\` returns up to ${AUTO_PAGINATE_CAP.toLocaleString("en")} rows at once. For sums use ` +
  "`totals=true` (or a complete walk): summing one page is the most common mistake.";

/**
 * The order, paging and sensitive-data rules of the lists by issue date (credit notes, purchase
 * orders), for their operation descriptions; `rows` names the rows in the sentence.
 */
export function issueDateListRules(rows: string): string {
  return (
    "**Order**: by issue date newest first, then `id` descending; undated ones first. " +
    `${PAGING}\n\n**Sensitive data**: without READ_SENSITIVE, ${rows} of contacts flagged ` +
    "sensitive are absent and counted in `redactedItemCount`; `totalCount` and `totals` count " +
    "every matched row."
  );
}

/** The order and paging rules of /invoices and /bills. */
export const DOCUMENT_ORDER =
  "**Order**: by document date (issue date, else due date) newest first, then by `id` " +
  `descending; documents with neither date come first. ${PAGING}`;
