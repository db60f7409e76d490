import { z } from "@hono/zod-openapi";
import { withAlerts } from "./alerts.ts";

const decimal = (description: string, example: string) =>
  z.string().openapi({
    description: `${description} Canonical decimal string in the organisation's base currency.`,
    example,
  });
const nullableDecimal = (description: string, example: string) =>
  z
    .string()
    .nullable()
    .openapi({ description: `${description} Decimal string; null without a forecast.`, example });

/** Spec: AgentNote. Shared by every response that carries notesForAgent. */
export const AgentNoteSchema = z
  .object({
    kind: z
      .enum(["seasonality", "trend", "pipeline", "ar", "concentration"])
      .openapi({ example: "trend" }),
    window: z.enum(["this_month", "next_4w", "this_quarter"]).openapi({
      description: "The period the note is about.",
      example: "next_4w",
    }),
    severity: z.enum(["info", "warn"]).openapi({ example: "warn" }),
    text: z.string().openapi({
      description: "Plain-language context.",
      example:
        "Customer receipts are trending down: the last 4 weeks brought in AUD 40,120.00, 18% less than the 4 weeks before (12-week slope AUD -1,240.00 per week, p = 0.012).",
    }),
    sourceInsightId: z
      .string()
      .optional()
      .openapi({
        description:
          "Set when the note comes from the insight engine's stored run; absent for notes of the " +
          "fallback detectors (computed on request when no recent run exists).",
        example: "ins_5kq2m8x3c9d1v7b4n6ht",
      }),
  })
  .openapi("AgentNote", {
    description: "A note for the agent: at most 3 per response, by impact.",
  });

export const notesForAgentField = z.array(AgentNoteSchema).openapi({
  description: "At most 3 notes, most impactful first (docs/insights.md).",
});

const EventSchema = z
  .object({
    contactName: z.string().openapi({
      description:
        "The contact; `Sensitive contact` when the contact (or the bank account or account the " +
        "money moved through) is sensitive and the key lacks READ_SENSITIVE; `No contact` for " +
        "spend or receive money without one.",
      example: "Harbour Cafe",
    }),
    amount: decimal("Amount moved (never masked).", "2450"),
    date: z.string().openapi({
      description: "The money-moved date as midnight UTC (`YYYY-MM-DDT00:00:00.000Z`).",
      example: "2026-03-09T00:00:00.000Z",
    }),
  })
  .openapi("DailySummaryContactEvent", { description: "One payment or bank line." });

export const DailySummaryResponseSchema = withAlerts(
  z.object({
    orgName: z.string().openapi({ example: "Demo Pty Ltd" }),
    generatedAt: z.string().openapi({
      description: "When this answer was computed (ISO 8601).",
      example: "2026-03-10T01:00:00.000Z",
    }),
    asOfDate: z
      .string()
      .openapi({ description: "Today in the organisation's timezone.", example: "2026-03-10" }),
    cashToday: z
      .object({
        amount: decimal(
          "Opening cash today (the cash position's effectiveStartingCash).",
          "48210.55",
        ),
        currency: z.string().openapi({ example: "AUD" }),
        source: z.enum(["manual", "ledger_reconciled"]).openapi({ example: "ledger_reconciled" }),
      })
      .openapi({ description: "Current cash position; never masked." }),
    bankAccounts: z.number().int().openapi({ description: "Active bank accounts.", example: 3 }),
    last7d: z
      .object({
        inflow: decimal("Money in over the 7 days ending today (transfers excluded).", "18250"),
        outflow: decimal("Money out over the same days.", "12100.4"),
        net: decimal("inflow − outflow.", "6149.6"),
        topInflows: z.array(EventSchema).openapi({ description: "The 5 largest inflows." }),
        topOutflows: z.array(EventSchema).openapi({ description: "The 5 largest outflows." }),
      })
      .openapi({ description: "The trailing 7 days (today and the 6 before)." }),
    ar: z
      .object({
        current: decimal("Not yet due.", "12000"),
        days1to30: decimal("1 to 30 days past due.", "3500"),
        days31to60: decimal("31 to 60 days past due.", "900"),
        days61to90: decimal("61 to 90 days past due.", "0"),
        days90plus: decimal("More than 90 days past due.", "450"),
        total: decimal("All open receivables.", "16850"),
        overdueCount: z.number().int().openapi({ description: "Invoices past due.", example: 7 }),
      })
      .openapi({
        description: "Receivable ageing: AUTHORISED sales invoices' amount due; never masked.",
      }),
    forecast13w: z
      .object({
        endingCash: nullableDecimal("Closing cash of week 13.", "61200"),
        minClosingCash: nullableDecimal("The lowest weekly closing.", "39850"),
        minClosingWeekStart: z
          .string()
          .nullable()
          .openapi({ description: "The week of the lowest closing.", example: "2026-04-13" }),
        breakEvenDate: z
          .string()
          .nullable()
          .openapi({
            description:
              "End of the first week whose closing is back at or above the starting cash after a " +
              "week below it; null when cash never dips below the start or does not recover.",
            example: null,
          }),
      })
      .openapi({
        description: "Headline of the latest BASE 13-week forecast; nulls before the first.",
      }),
    narrative: z.string().openapi({
      description: "Two to four deterministic sentences (thresholds in docs/insights.md).",
      example:
        "Cash today is AUD 48,210.55 across 3 bank accounts. The last 7 days were net positive: AUD 18,250.00 in and AUD 12,100.40 out (net AUD 6,149.60).",
    }),
    notesForAgent: notesForAgentField,
    redactedItemCount: z.number().int().openapi({
      description: "Events in topInflows and topOutflows renamed `Sensitive contact`.",
      example: 0,
    }),
  }),
).openapi("DailySummaryResponse", { description: "The composite daily summary." });

export type DailySummaryResponse = z.infer<typeof DailySummaryResponseSchema>;
