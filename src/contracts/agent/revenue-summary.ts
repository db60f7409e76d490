import { z } from "@hono/zod-openapi";
import { LEDGER_STATUSES } from "../../db/schema/index.ts";
import { isCalendarDate } from "../../domain/summaries/calendar.ts";
import { withAlerts } from "./alerts.ts";

/*
 * Schemas shared by the revenue, expenses and contacts summaries (docs/insights.md).
 */

const decimal = (description: string, example: string) =>
  z.string().openapi({
    description: `${description} Canonical decimal string in the organisation's base currency.`,
    example,
  });

export const SummaryBucketSchema = z
  .object({
    count: z.number().int().openapi({ description: "Documents.", example: 412 }),
    amount: decimal("Amount; `0` when empty.", "184220.5"),
  })
  .openapi("SummaryBucket", { description: "A count and an amount." });

export const SummaryMonthBucketSchema = z
  .object({
    month: z.string().openapi({
      description: "Calendar month `YYYY-MM` in the organisation's timezone (not UTC).",
      example: "2026-02",
    }),
    count: z.number().int().openapi({
      description: "PAID documents with a payment in the month.",
      example: 35,
    }),
    amount: decimal("PAID cash received (or paid) in the month, ex-tax.", "15320.4"),
  })
  .openapi("SummaryMonthBucket", { description: "One calendar month of PAID cash." });

export const SummaryTopContactSchema = z
  .object({
    contactId: z.string().openapi({
      description:
        "Ledger contact id (as on invoices and bills); blank for a sensitive contact when the " +
        "key lacks READ_SENSITIVE.",
      example: "c0000000-0000-4000-8000-000000000001",
    }),
    name: z.string().openapi({
      description: "Contact name; `Sensitive contact` in that case (amount and count kept).",
      example: "Harbour Cafe",
    }),
    count: z.number().int().openapi({ example: 24 }),
    amount: decimal("Amount.", "20540"),
  })
  .openapi("SummaryTopContact", { description: "A contact ranked by amount." });

const statusBuckets = Object.fromEntries(LEDGER_STATUSES.map((s) => [s, SummaryBucketSchema])) as {
  [K in (typeof LEDGER_STATUSES)[number]]: typeof SummaryBucketSchema;
};

export const WindowSchema = z
  .object({
    from: z.string().openapi({ description: "First date, inclusive.", example: "2025-07-01" }),
    to: z.string().openapi({ description: "Last date, inclusive.", example: "2026-03-10" }),
  })
  .openapi("SummaryWindow", { description: "An inclusive range of calendar dates." });

export const GrossProfitSchema = z
  .object({
    revenue: decimal("Ex-tax cash received on PAID sales invoices in the window.", "240000"),
    costOfGoods: decimal(
      "Ex-tax cash paid on PAID bills in the window, times each bill's share of lines coded to " +
        "DIRECTCOSTS accounts.",
      "86400",
    ),
    grossProfit: decimal("revenue − costOfGoods.", "153600"),
    marginPercent: z
      .number()
      .nullable()
      .openapi({
        description:
          "grossProfit / revenue as a fraction (0.64 = 64%), 4 decimals; may be negative; null " +
          "without revenue.",
        example: 0.64,
      }),
    window: WindowSchema.openapi({
      description:
        "The last three full calendar months before the current one (the month in progress is " +
        "left out); independent of dateFrom and dateTo.",
    }),
  })
  .openapi("GrossProfit", { description: "Organisation-wide gross profit, cash basis." });

const summaryFields = {
  asOfDate: z.string().openapi({
    description: "Today in the organisation's timezone.",
    example: "2026-03-10",
  }),
  currency: z
    .string()
    .openapi({ description: "The organisation's base currency.", example: "AUD" }),
  window: WindowSchema,
  grandTotal: SummaryBucketSchema.openapi({
    description:
      "PAID only: ex-tax cash by payment date within the window (equal to byStatus.PAID). The " +
      "byStatus buckets do not sum to it.",
  }),
  byStatus: z.object(statusBuckets).openapi({
    description:
      "Every ledger status, zero-filled. PAID: ex-tax cash by payment date in the window. " +
      "AUTHORISED: gross amount still owed on documents dated in the window. DRAFT, SUBMITTED, " +
      "VOIDED, DELETED: gross totals of documents dated in the window (issue date, else due date).",
  }),
  byMonth: z.array(SummaryMonthBucketSchema).openapi({
    description: "Every calendar month of the window, oldest first, zero-filled (PAID only).",
  }),
  topContacts: z.array(SummaryTopContactSchema).openapi({
    description: "Top contacts by PAID amount in the window (at most topN; ties by contact id).",
  }),
  redactedItemCount: z
    .number()
    .int()
    .openapi({
      description:
        "topContacts rows renamed `Sensitive contact`; byMonth, byStatus and grandTotal are never " +
        "masked. Always 0 with READ_SENSITIVE.",
      example: 0,
    }),
};

export const RevenueSummaryResponseSchema = withAlerts(
  z.object({ ...summaryFields, grossProfit: GrossProfitSchema }),
).openapi("RevenueSummaryResponse", {
  description:
    "Receivable aggregate. PAID values are ex-tax, cash basis, reconciling to the ledger within " +
    "±1%; AUTHORISED values are gross (owed).",
});

export const ExpensesSummaryResponseSchema = withAlerts(z.object(summaryFields)).openapi(
  "ExpensesSummaryResponse",
  { description: "Payable aggregate: the mirror of the revenue summary without grossProfit." },
);

export type RevenueSummaryResponse = z.infer<typeof RevenueSummaryResponseSchema>;

const dateParam = (name: "dateFrom" | "dateTo", description: string) =>
  z
    .string()
    .optional()
    .refine((s) => s === undefined || isCalendarDate(s), {
      message: "must be a calendar date YYYY-MM-DD",
    })
    .openapi({ param: { name, in: "query" }, description, example: "2025-07-01" });

/** `topN`: a whole number 1–100, default 10; anything else answers 400. */
export const topNParam = z
  .string()
  .optional()
  .refine((s) => s === undefined || (/^\d+$/.test(s) && Number(s) >= 1 && Number(s) <= 100), {
    message: "must be a whole number from 1 to 100",
  })
  .transform((s) => (s === undefined ? undefined : Number(s)))
  .openapi({
    param: { name: "topN", in: "query" },
    type: "integer",
    minimum: 1,
    maximum: 100,
    default: 10,
    description: "How many top contacts: 1 to 100, default 10. Other values answer 400.",
    example: 10,
  });

export const LedgerSummaryQuerySchema = z.object({
  dateFrom: dateParam(
    "dateFrom",
    "Inclusive first date. Default: the first day of the financial year holding dateTo " +
      "(from the organisation's year end). The window spans at most 20 years.",
  ),
  dateTo: dateParam(
    "dateTo",
    "Inclusive last date. Default: today in the organisation's timezone. Before dateFrom " +
      "answers 400.",
  ),
  topN: topNParam,
});
