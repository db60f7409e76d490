import { z } from "@hono/zod-openapi";
import { MAX_PERIODS } from "../../domain/cohorts/cohorts.ts";
import { withAlerts } from "./alerts.ts";
import { AgentNoteSchema, notesForAgentField } from "./daily-summary.ts";

const month = (description: string, example = "2025-09") =>
  z.string().openapi({ description, example });

export const CohortRetentionRowSchema = z
  .object({
    cohort: month("Acquisition month `YYYY-MM` (first paid invoice, organisation's timezone)."),
    customers: z
      .number()
      .int()
      .openapi({ description: "Customers acquired that month.", example: 14 }),
    revenue: z.string().openapi({
      description: "Their ex-tax revenue over every elapsed month (decimal string, base currency).",
      example: "38400.5",
    }),
    activeNow: z.number().int().openapi({
      description: "Of them, customers active today (churn class Active or At-risk).",
      example: 9,
    }),
    values: z.array(z.union([z.number(), z.string()]).nullable()).openapi({
      description:
        "One value per periodLabels entry: retention = survival share in [0,1]; customers = " +
        "customers transacting that month (integer); revenue = their ex-tax revenue that month " +
        "(decimal string). null = the month has not started yet (distinct from 0).",
      example: [1, 0.7857, 0.7143, null],
    }),
  })
  .openapi("CohortRetentionRow", { description: "One acquisition cohort." });

export const CohortRetentionResponseSchema = withAlerts(
  z.object({
    asOfDate: z.string().openapi({ example: "2026-03-10" }),
    currency: z.string().openapi({ example: "AUD" }),
    metric: z.enum(["retention", "customers", "revenue"]).openapi({ example: "retention" }),
    periodLabels: z.array(z.string()).openapi({
      description: "M0, M1, …: months since acquisition; as many as `periods`.",
      example: ["M0", "M1", "M2", "M3"],
    }),
    cohorts: z.array(CohortRetentionRowSchema).openapi({
      description: "Up to 24 acquisition months (the current one included), oldest first.",
    }),
    redactedItemCount: z.literal(0).openapi({ description: "Always 0.", example: 0 }),
    notesForAgent: z
      .array(AgentNoteSchema)
      .max(0)
      .openapi({ description: "Always empty.", example: [] }),
  }),
).openapi("CohortRetentionResponse", { description: "The acquisition-cohort matrix." });

const KpiSchema = z
  .object({
    value: z.number().openapi({ example: 0.42 }),
    delta: z.number().nullable().openapi({
      description: "Against the prior 6 months; null when there is no prior base.",
      example: 0.05,
    }),
    deltaKind: z.enum(["pct", "rate"]).openapi({
      description:
        "`pct`: absolute change of a fraction (0.05 = 5 percentage points); `rate`: relative " +
        "change (0.15 = +15%).",
      example: "pct",
    }),
  })
  .openapi("CohortKpi", { description: "A KPI of the 6 most recent acquisition months." });

export const CohortSummaryResponseSchema = withAlerts(
  z.object({
    asOfDate: z.string().openapi({ example: "2026-03-10" }),
    currency: z.string().openapi({ example: "AUD" }),
    window: z
      .object({
        from: month("First cohort month, or empty without cohorts."),
        to: month("Last cohort month, or empty without cohorts.", "2026-03"),
      })
      .openapi({ description: "The cohort history covered (at most 24 months)." }),
    kpis: z
      .object({
        newCustomers: KpiSchema.openapi({ description: "Customers acquired; delta `rate`." }),
        repeatOrderRate: KpiSchema.openapi({
          description: "Share of them with two or more orders to date; delta `pct`.",
        }),
        avgRevenuePerCustomer: KpiSchema.openapi({
          description: "Ex-tax revenue to date per customer; delta `rate`.",
        }),
        retention90d: KpiSchema.openapi({
          description: "Survival at M3 over cohorts whose M3 has started; delta `pct`.",
        }),
      })
      .openapi({ description: "The 6 most recent acquisition months against the 6 before." }),
    topCohorts: z
      .array(
        z
          .object({
            acquisitionMonth: month("Acquisition month."),
            cohortSize: z.number().int().openapi({ example: 14 }),
            retention3: z
              .number()
              .openapi({ description: "Survival at M3, in [0,1].", example: 0.7857 }),
          })
          .openapi("CohortTopEntry"),
      )
      .openapi({ description: "At most 3 cohorts, best M3 retention first." }),
    redactedItemCount: z.literal(0).openapi({ description: "Always 0.", example: 0 }),
    notesForAgent: notesForAgentField,
  }),
).openapi("CohortSummaryResponse", { description: "Cohort KPIs and the best cohorts." });

export type CohortRetentionResponse = z.infer<typeof CohortRetentionResponseSchema>;
export type CohortSummaryResponse = z.infer<typeof CohortSummaryResponseSchema>;

export const CohortRetentionQuerySchema = z.object({
  metric: z
    .enum(["retention", "customers", "revenue"])
    .optional()
    .openapi({
      param: { name: "metric", in: "query" },
      description: "`retention` (default), `customers` or `revenue`.",
      example: "retention",
    }),
  periods: z
    .string()
    .optional()
    .refine((s) => s === undefined || /^-?\d+$/.test(s), { message: "must be a whole number" })
    .transform((s) => (s === undefined ? undefined : Number(s)))
    .openapi({
      param: { name: "periods", in: "query" },
      // No minimum/maximum here: values outside 1…MAX_PERIODS are accepted and clamped, and a
      // client validating against the document must not refuse what the server takes.
      type: "integer",
      default: 12,
      description:
        `Offset columns M0…: 1 to ${MAX_PERIODS}, default 12; whole numbers outside the range are ` +
        "clamped into it; anything else answers 400.",
      example: 12,
    }),
  granularity: z
    .string()
    .optional()
    .openapi({
      param: { name: "granularity", in: "query" },
      description: "`month` (the default and only value). `week` is reserved and answers 400.",
      example: "month",
    }),
});
