import { z } from "@hono/zod-openapi";
import { withAlerts } from "./alerts.ts";
import { SummaryTopContactSchema, topNParam } from "./revenue-summary.ts";

const count = (description: string, example: number) =>
  z.number().int().openapi({ description, example });

export const ContactsSummaryResponseSchema = withAlerts(
  z.object({
    asOfDate: z
      .string()
      .openapi({ description: "Today in the organisation's timezone.", example: "2026-03-10" }),
    currency: z
      .string()
      .openapi({ description: "The organisation's base currency.", example: "AUD" }),
    byType: z
      .object({
        customer: count("Customers that are not suppliers.", 140),
        supplier: count("Suppliers that are not customers.", 38),
        both: count("Contacts that are both.", 2),
        neither: count("Contacts that are neither (bank-only payees, archived duplicates).", 9),
      })
      .openapi({ description: "Every contact of the ledger, by type; never masked." }),
    abcDistribution: z
      .object({
        A: count("Customers making the first 80% of trailing-12-month revenue.", 28),
        B: count("The next 15%.", 31),
        C: count("The rest.", 70),
        unclassified: count(
          "Customers without a class yet: no paid invoice at least 90 days old, or no baseline.",
          13,
        ),
      })
      .openapi({ description: "Customers by ABC class (baseline); never masked." }),
    topByRevenue: z.array(SummaryTopContactSchema).openapi({
      description:
        "Top customers by cumulative gross-profit LTV (amount); count = paid invoices. At most topN.",
    }),
    topBySpend: z.array(SummaryTopContactSchema).openapi({
      description:
        "Top suppliers by the gross amounts of their AUTHORISED and PAID bills (amount); count = " +
        "those bills. At most topN.",
    }),
    redactedItemCount: count(
      "Rows of both lists renamed `Sensitive contact`; 0 with READ_SENSITIVE.",
      0,
    ),
  }),
).openapi("ContactsSummaryResponse", { description: "Contact population and top contacts." });

export type ContactsSummaryResponse = z.infer<typeof ContactsSummaryResponseSchema>;

export const ContactsSummaryQuerySchema = z.object({ topN: topNParam });
