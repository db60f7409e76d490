import { z } from "@hono/zod-openapi";
import { withAlerts } from "./alerts.ts";

const slug = (description: string) => z.string().openapi({ description, example: "harbour-cafe" });

export const BriefRefSchema = z
  .discriminatedUnion("kind", [
    z
      .object({
        kind: z.literal("customer"),
        key: slug("Slug of the customer, unique within the brief."),
        displayName: z.string().openapi({ example: "Harbour Cafe" }),
      })
      .openapi("BriefCustomerRef"),
    z
      .object({
        kind: z.literal("category"),
        key: slug("Slug of the account category."),
        displayName: z.string().openapi({ example: "Rent" }),
      })
      .openapi("BriefCategoryRef"),
    z
      .object({
        kind: z.literal("week"),
        weekNumber: z.number().int().min(1).max(13).openapi({
          description: "1-indexed week of the 13-week window.",
          example: 6,
        }),
      })
      .openapi("BriefWeekRef"),
  ])
  .openapi("BriefRef", { description: "Something real the section is about." });

export const BriefSectionSchema = z
  .object({
    headline: z.string().max(80).openapi({
      description: "At most 80 characters, no markdown.",
      example: "Week 6 is the low point at AUD 8,200.00",
    }),
    bodyMarkdown: z.string().openapi({
      description: "Basic markdown: **bold** and *italic* only.",
      example:
        "Cash is forecast to bottom out at **AUD 8,200.00** in the week of 2026-04-13, when *Rent* takes AUD 6,000.00.",
    }),
    refs: z.array(BriefRefSchema).openapi({ description: "May be empty." }),
  })
  .openapi("BriefSection");

export const DailyBriefResponseSchema = withAlerts(
  z.object({
    orgId: z
      .string()
      .openapi({ description: "Echoes the path.", example: "org_5kq2m8x3c9d1v7b4n6ht" }),
    asOfDate: z.string().openapi({ description: "The UTC business day.", example: "2026-03-10" }),
    generatedAt: z
      .string()
      .openapi({ description: "When the row was written.", example: "2026-03-10T06:00:04.000Z" }),
    generatorTier: z.enum(["rules", "llm"]).openapi({
      description: "`rules` (free tier, and the fallback) or `llm` (premium plans); same shape.",
      example: "rules",
    }),
    payload: z
      .object({
        mainDriver: BriefSectionSchema.openapi({ description: "What shapes the inflow side." }),
        riskSignal: BriefSectionSchema.openapi({
          description: "The weakest week or biggest risk.",
        }),
        recommendedAction: BriefSectionSchema.openapi({
          description: "One concrete move for this week.",
        }),
      })
      .openapi("DailyBriefPayload"),
  }),
).openapi("DailyBriefResponse", { description: "The organisation's latest daily brief." });

export type DailyBriefResponse = z.infer<typeof DailyBriefResponseSchema>;
