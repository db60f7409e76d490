import { z } from "@hono/zod-openapi";
import { withAlerts } from "./alerts.ts";
import { notesForAgentField } from "./daily-summary.ts";
import { booleanParam, NO_NUL } from "./list-params.ts";

const decimal = (description: string, example: string) =>
  z.string().openapi({ description: `${description} Canonical decimal string.`, example });

const FlowSchema = z.object({
  inflow: decimal("Inflow.", "1200"),
  outflow: decimal("Outflow.", "300"),
});

export const ForecastWeekSchema = z
  .object({
    weekStart: z
      .string()
      .openapi({ description: "Monday (organisation's timezone).", example: "2026-03-09" }),
    weekEnd: z.string().openapi({ description: "Sunday.", example: "2026-03-15" }),
    opening: decimal("The previous week's closing (week 1: startingCash).", "595109.46"),
    inflow: decimal("guaranteedInflow + forecastInflow.", "31915.15"),
    guaranteedInflow: decimal(
      "Inflow from receivables, recurring receipts, manual and pipeline items. Absent on engineVersion 1 snapshots.",
      "31915.15",
    ).optional(),
    forecastInflow: decimal(
      "Inflow from predicted customer orders (hazard model). Absent on engineVersion 1 snapshots (read as 0).",
      "0",
    ).optional(),
    outflow: decimal("Bills, recurring payments, purchase orders, manual items.", "19435.75"),
    net: decimal("inflow − outflow.", "12479.4"),
    closing: decimal("opening + net.", "607588.86"),
    closingLow: decimal(
      "Additive (not in the spec): the low end of the 80% prediction interval of closing (see closingInterval); absent where the organisation's backtest has too few weeks at this horizon.",
      "571204.10",
    ).optional(),
    closingHigh: decimal(
      "Additive: the high end of the 80% prediction interval of closing; absent with closingLow.",
      "622950.37",
    ).optional(),
    itemIds: z.array(z.string()).openapi({
      description:
        "The items behind the week: cash item ids (invoices, bills, manual, pipeline), purchase order " +
        "ids, recurring occurrences (`rec_…`) and the week's predicted orders (`pred_<weekStart>`).",
    }),
    overdueItemIds: z.array(z.string()).optional().openapi({
      description: "Items whose own date had passed: placed in week 1.",
    }),
    probabilityWeighted: z.boolean().optional().openapi({
      description:
        "True when some amount of the week is probability-weighted (pipeline, predicted orders).",
    }),
    categories: z
      .object({
        accounts: z
          .record(
            z.string(),
            z.object({
              name: z.string().openapi({
                description:
                  "Account name; `Sensitive account` for sensitive accounts without READ_SENSITIVE.",
              }),
              inflow: decimal("Inflow booked to the account.", "1200").optional(),
              outflow: decimal("Outflow booked to the account.", "300").optional(),
            }),
          )
          .openapi({ description: "By ledger account id (service id)." }),
        sources: z.record(z.string(), FlowSchema).optional().openapi({
          description:
            "By source: LEDGER_INVOICE, LEDGER_BILL, PURCHASE_ORDER, RECURRING, MANUAL, PIPELINE, PREDICTED.",
        }),
      })
      .optional(),
  })
  .openapi("ForecastWeek");

const categoryAccount = {
  accountId: z.string().nullable().openapi({
    description:
      "The ledger account (service id, the key of `weeks[].categories.accounts`); null for the row of money with no account: forecast lines without one (such as predicted orders of no category) and actual movements whose document or bank line has none (transfers between bank accounts, unapplied payments).",
    example: "acc_5kq2m8x3c9d1v7b4n6ht",
  }),
  name: z.string().openapi({
    description:
      "The account's name as it is now; `Sensitive account` for a sensitive account without READ_SENSITIVE; `No account` for the null row.",
    example: "Sales",
  }),
};

const ActualCategorySchema = z.object({
  ...categoryAccount,
  inflow: decimal("Money received in the week through the account.", "32715.15"),
  outflow: decimal("Money paid out in the week through the account.", "0"),
});

const ForecastCategorySchema = z.object({
  ...categoryAccount,
  inflow: decimal("Forecast inflow of the account for the week.", "31915.15"),
  outflow: decimal("Forecast outflow of the account for the week.", "0"),
  inflowError: decimal("inflow − the account's actual inflow.", "-800"),
  outflowError: decimal("outflow − the account's actual outflow.", "0"),
  netError: decimal(
    "(inflow − outflow) − the account's actual net: what the account added to closingError's change over the week.",
    "-800",
  ),
});

const PastForecastSchema = z.object({
  horizon: z.number().int().openapi({
    description:
      "Weeks ahead it was made: 1 during the week itself, h the week h − 1 weeks before.",
    example: 4,
  }),
  madeOn: z.string().openapi({
    description: "The local day it was made on: the first kept day of its week 1.",
    example: "2026-02-16",
  }),
  inflow: decimal("Forecast inflow of the week.", "31915.15"),
  outflow: decimal("Forecast outflow of the week.", "19435.75"),
  closing: decimal("Forecast closing cash of the week.", "607588.86"),
  closingLow: decimal("The band's low end when the forecast had one.", "571204.10").optional(),
  closingHigh: decimal("The band's high end when the forecast had one.", "622950.37").optional(),
  closingError: decimal("closing − actual closing (positive: too high).", "-1520.4"),
  inflowError: decimal("inflow − actual inflow.", "-800"),
  outflowError: decimal("outflow − actual outflow.", "720.4"),
  withinBand: z.boolean().optional().openapi({
    description: "Whether the actual closing fell inside the band; absent without a band.",
  }),
  categories: z.array(ForecastCategorySchema).optional().openapi({
    description:
      "With `varianceCategories=true`: the forecast and its error by ledger account, one row per account with forecast or actual money in the week (the union), largest |netError| first. The rows sum exactly to inflow, outflow, inflowError and outflowError. Absent for forecasts kept before categories were (their kept weeks have no accounts).",
  }),
});

export const ForecastVarianceSchema = z
  .object({
    asOfDate: z.string().openapi({
      description: "The organisation's today: weeks ending before it are complete.",
      example: "2026-03-10",
    }),
    keptSince: z.string().nullable().openapi({
      description:
        "The oldest kept forecast's day (history is kept 371 days); null before the first.",
      example: "2025-12-01",
    }),
    weeks: z
      .array(
        z.object({
          weekStart: z.string().openapi({ example: "2026-03-02" }),
          weekEnd: z.string().openapi({ example: "2026-03-08" }),
          actual: z
            .object({
              opening: decimal("Cash at the end of the day before weekStart.", "601000"),
              inflow: decimal("Σ money received in the week.", "32715.15"),
              outflow: decimal("Σ money paid out in the week.", "18715.35"),
              closing: decimal("Cash at the end of weekEnd.", "609109.26"),
              categories: z.array(ActualCategorySchema).optional().openapi({
                description:
                  "With `varianceCategories=true`: the week's money by the ledger account it moved through (a payment: its invoice's or bill's account, as the forecast categorises the document; a bank line: its account), largest |net| first. The rows sum exactly to inflow and outflow.",
              }),
            })
            .openapi({
              description:
                "What happened in the included bank accounts: today's cash walked back through every payment and bank line since (as the backtest does; an operator override is not used).",
            }),
          forecasts: z.array(PastForecastSchema).openapi({
            description:
              "The kept BASE forecasts of the week, by horizon (1 first); horizons never kept are absent.",
          }),
        }),
      )
      .openapi({
        description: "Completed weeks with at least one kept forecast, latest first (up to 13).",
      }),
    byHorizon: z
      .array(
        z.object({
          horizon: z.number().int().openapi({ example: 1 }),
          weeks: z
            .number()
            .int()
            .openapi({ description: "Weeks scored at this horizon.", example: 9 }),
          meanAbsoluteError: decimal("Mean |closingError| over those weeks.", "2310.55"),
          bias: decimal("Mean closingError (positive: too high on average).", "-410.2"),
        }),
      )
      .openapi({ description: "Per horizon with at least one scored week." }),
    redactedCategoryCount: z.number().int().optional().openapi({
      description:
        "With `varianceCategories=true`: category rows (actual and forecast) whose name was rewritten to `Sensitive account`; 0 with READ_SENSITIVE. Amounts are never masked. (The response's redactedItemCount counts `weeks[].categories.accounts` only, as the spec defines it.)",
      example: 0,
    }),
  })
  .openapi("ForecastVariance", {
    description:
      "Additive (not in the spec), present only with `variance=true`: the track record of the organisation's BASE forecast (whatever `scenarioId` asks). The service keeps each day's served BASE forecast (the last one of the local day) for 371 days; once a week has passed, each forecast made of it is set against what happened, by week, by direction (closing, inflow, outflow) and, with `varianceCategories=true`, by category. A category is a ledger account: the forecast's own `weeks[].categories.accounts` (kept with each day's forecast), and for what happened the account each movement of the included bank accounts went through (a payment: its document's account; a bank line: its own). The forecast's sources (LEDGER_INVOICE, PREDICTED, RECURRING, …) are not used: a receipt cannot say whether it was forecast as an open invoice, a predicted order or a recurring stream, whereas both sides know the account. Money without an account on either side is the `accountId: null` row, so every week's rows sum to its totals to the cent.",
  });

export const ForecastResponseSchema = withAlerts(
  z.object({
    scenarioId: z.string().openapi({ example: "scn_5kq2m8x3c9d1v7b4n6ht" }),
    scenarioName: z.string().optional().openapi({ example: "Base" }),
    scenarioKind: z.enum(["BASE", "BEST", "WORST", "CUSTOM"]).optional(),
    computedAt: z.string().openapi({
      description: "When the snapshot was computed (ISO 8601).",
      example: "2026-03-10T01:00:00.000Z",
    }),
    weeks: z
      .array(ForecastWeekSchema)
      .openapi({ description: "13 weeks, the first holding today." }),
    startingCash: decimal(
      "Opening cash of week 1 (the cash position's effectiveStartingCash).",
      "595109.46",
    ),
    endingCash: decimal("Closing cash of week 13.", "640783.93"),
    minClosingCash: decimal("Lowest weekly closing.", "607588.86").optional(),
    minClosingCashWeekIndex: z.number().int().optional().openapi({
      description: "Index in `weeks` (0-based) of the lowest closing; the earliest on a tie.",
      example: 0,
    }),
    totalInflow: decimal("Σ weekly inflow.", "205754.29").optional(),
    totalOutflow: decimal("Σ weekly outflow.", "160079.82").optional(),
    redactedItemCount: z.number().int().openapi({
      description:
        "(week, account) pairs whose name was rewritten to `Sensitive account`; 0 with READ_SENSITIVE.",
      example: 0,
    }),
    closingInterval: z
      .object({
        level: z.number().openapi({ description: "Nominal coverage of the band.", example: 0.8 }),
        method: z
          .enum([
            "adaptive conformal with provisional feedback on backtest residuals, spread pooled over horizons, long horizons also adapted on the verdicts of the horizon a week shorter",
            "adaptive conformal with provisional feedback on backtest residuals, spread pooled over horizons",
            "adaptive conformal on backtest residuals, spread pooled over horizons",
            "normalised split-conformal on backtest residuals, pooled over horizons",
            "split-conformal on backtest residuals per horizon",
          ])
          .openapi({
            description:
              "How the band was built from the organisation's own backtest errors e (forecast − actual of the served BASE engine, per horizon h = 1–13). Current: adaptive conformal inference (Gibbs & Candès 2021) with provisional feedback. The errors' spread grows with the horizon as s·h^β, fitted on the root-mean-square error of every horizon with 6 or more errors (long horizons borrow from short ones, whose errors are fresher); every error known at the band's origin, at every horizon, is scored |e| ÷ its horizon's spread as fitted then and weighted 0.95 per week since it became known; the band of week h is closing ± q·s·h^β, q the weighted conformal quantile of the scores at level 1 − α_h, and α_h starts at 0.2 and moves by 0.1·(0.2 − miss) each time an earlier origin's week h ends, so each horizon's coverage tracks 80% when the errors drift. Provisional feedback: the weeks still running count too, for the band being built only: an earlier origin with k of its h weeks behind it has its k-week error carried to h weeks as a drift (× h ÷ k) and judged against its h-week band, so a trend the engine misses widens the 13-week band before a quarter has passed. From 8 weeks on, each time an earlier origin's week h ends the level also hears the verdict of the horizon a week shorter (origin one week later, its week h − 1 ending the same day), so a long horizon, whose own verdicts arrive h weeks late, settles in half the weeks. Chosen on the family backtest over three seeds (52 origins, coverage judged at each origin with only the errors known then; docs/forecast.md, \"Prediction intervals\"). Older methods appear only on snapshots computed before they were replaced. The same errors band every scenario.",
            example:
              "adaptive conformal with provisional feedback on backtest residuals, spread pooled over horizons, long horizons also adapted on the verdicts of the horizon a week shorter",
          }),
        status: z.enum(["calibrated", "partial", "insufficient_history"]).openapi({
          description:
            "`insufficient_history`: no week has a band yet (fewer than two horizons with 6 backtest errors each, fewer than 12 errors over all horizons, or no backtest yet); `partial`: the later weeks lack one (fewer than 6 backtest errors at that horizon).",
        }),
        calibratedOn: z.string().nullable().openapi({
          description: "Local date of the backtest the band comes from; null without one.",
          example: "2026-03-10",
        }),
        residualCounts: z.array(z.number().int()).openapi({
          description: "Backtest errors available per week (horizon 1 to 13).",
        }),
      })
      .optional()
      .openapi({
        description:
          "Additive (not in the spec): how the weeks' closingLow/closingHigh band was calibrated. Absent on snapshots computed before bands existed.",
      }),
    variance: ForecastVarianceSchema.optional(),
    notesForAgent: notesForAgentField.optional(),
  }),
).openapi("ForecastResponse");

export const ForecastQuerySchema = z.object({
  scenarioId: z
    .string()
    .min(1)
    .max(100)
    .refine(NO_NUL, { message: "must not contain NUL" })
    .optional()
    .openapi({
      param: { name: "scenarioId", in: "query" },
      description: "A scenario of the organisation; default its BASE scenario.",
      example: "scn_5kq2m8x3c9d1v7b4n6ht",
    }),
  variance: booleanParam(
    "variance",
    "Additive (not in the spec): when true, adds `variance`, the BASE forecast's track record over the last 13 completed weeks (forecast made N weeks ahead against actual cash).",
  ),
  varianceCategories: booleanParam(
    "varianceCategories",
    "Additive (not in the spec): when true, adds `variance` (as `variance=true` does) with each week's actual money and each kept forecast broken down by ledger account (`categories`), sensitive account names masked without READ_SENSITIVE. Off by default: the rows multiply the response by the number of accounts (on the demo business 13 weeks are about 300 KB with every horizon, 33 KB with `varianceHorizon`).",
  ),
  varianceHorizon: z
    .string()
    .optional()
    .refine((s) => s === undefined || (/^\d+$/.test(s) && Number(s) >= 1 && Number(s) <= 13), {
      message: "must be a whole number from 1 to 13",
    })
    .transform((s) => (s === undefined ? undefined : Number(s)))
    .openapi({
      param: { name: "varianceHorizon", in: "query" },
      type: "integer",
      minimum: 1,
      maximum: 13,
      description:
        "Additive (not in the spec): with `variance` or `varianceCategories`, keep in each week only the forecast made this many weeks ahead (1: last week's forecast of last week); `byHorizon` is unchanged. Default: every horizon kept. Other values answer 400.",
      example: 1,
    }),
});

export type ForecastResponseBody = z.infer<typeof ForecastResponseSchema>;
