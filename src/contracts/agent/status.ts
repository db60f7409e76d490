import { z } from "@hono/zod-openapi";
import { withAlerts } from "./alerts.ts";

const PLAN = z.enum(["Free", "Pocket", "Wallet", "Vault", "Reserve"]);
const int = (description: string, example: number) =>
  z.number().int().openapi({ description, example });

export const SubscriptionSchema = z
  .object({
    status: z
      .enum(["trialing", "active", "past_due", "canceled", "trial_ended"])
      .nullable()
      .openapi({
        description:
          "Subscription status of the organisation's billing account; null when it has none.",
        example: "trialing",
      }),
    plan: PLAN.nullable().openapi({
      description: "Subscription plan (the `X-Service-Plan` header); null without an account.",
      example: "Wallet",
    }),
    trialEndsAt: z.string().nullable().openapi({
      description: "When the trial ends (ISO 8601) while trialing, else null.",
      example: "2026-03-16T03:04:05.000Z",
    }),
    trialDaysRemaining: z.number().int().nullable().openapi({
      description:
        "Whole days left in the trial, rounded up (1 = the last day), while trialing; else null.",
      example: 14,
    }),
    autoTopUp: z.boolean().openapi({
      description:
        "Automatic top-up: when the window is full, a pack of credits is bought (active " +
        "subscriptions on paid plans only).",
      example: false,
    }),
  })
  .openapi("Subscription");

export const QuotaSchema = z
  .object({
    limit: int("Size of the legacy per-organisation daily bucket (by subscription plan).", 1200),
    used: int("Credit-charged calls admitted for the organisation this UTC day.", 3),
    remaining: int("limit - used, never below 0 (`X-Service-Quota-Remaining`).", 1197),
    resetAt: z.string().openapi({
      description: "Next 00:00 UTC, ISO 8601 (`X-Service-Quota-Reset`).",
      example: "2026-03-03T00:00:00.000Z",
    }),
  })
  .openapi("Quota", {
    description:
      "Legacy per-organisation daily bucket, informational: query credits (`usage`) are what " +
      "refuse calls.",
  });

export const UsageSchema = z
  .object({
    limit: int("The seat plan's credits per rolling 5-hour window.", 250),
    used: int("Plan credits used in the window.", 12),
    remaining: int(
      "Credits a call can use now: unused plan credits plus prepaid top-up credits.",
      238,
    ),
    topUpCredits: int("Prepaid top-up credits left (included in remaining).", 0),
    nextCreditInMinutes: int(
      "Minutes (rounded up) until a credit frees; 0 when one is available now " +
        "(`X-Service-Reset-Minutes`).",
      0,
    ),
    fullResetInMinutes: int(
      "Minutes (rounded up) until every plan credit is back; 0 for an empty window.",
      300,
    ),
    windowResetAt: z.string().openapi({
      description: "When the window is empty again (ISO 8601); now for an empty window.",
      example: "2026-03-02T08:04:05.000Z",
    }),
  })
  .openapi("Usage", {
    description:
      "Rolling 5-hour query-credit window of (key creator, billing account of the organisation).",
  });

export const StatusKeySchema = z
  .object({
    prefix: z.string().openapi({ description: "Public key prefix.", example: "5kq2m8x3c9" }),
    label: z.string().openapi({ example: "Claude — finance assistant" }),
    family: z.enum(["cr_live", "crun"]).openapi({ example: "cr_live" }),
    kind: z.enum(["ORG", "USER", "PARTNER"]).openapi({ example: "ORG" }),
    scopes: z.array(z.string()).openapi({ example: ["READ_BANK", "READ_SUMMARY"] }),
    createdAt: z.string().openapi({ example: "2026-02-01T00:00:00.000Z" }),
    lastUsedAt: z.string().nullable().openapi({
      description: "The previous call with this key (this one is recorded as it answers).",
      example: "2026-03-02T03:00:00.000Z",
    }),
  })
  .openapi("StatusKey");

export const BurstLimitSchema = z
  .object({
    limit: int("Requests admitted per key per endpoint in any sliding window.", 60),
    windowSeconds: int("The window, in seconds.", 60),
  })
  .openapi("BurstLimit", {
    description:
      "The burst cap this deployment applies: the spec's 60 per minute unless the operator set " +
      "`BURST_LIMIT_PER_MINUTE` (the `burst` policy of `RateLimit-Policy` carries the same " +
      "figures). An addition to the spec's StatusResponse.",
  });

export const StatusResponseSchema = withAlerts(
  z.object({
    subscription: SubscriptionSchema,
    quota: QuotaSchema,
    usage: UsageSchema.nullable().openapi({
      description:
        "null when the key's user has no seat on the organisation's billing account, or the " +
        "organisation has none (every credit-charged call then answers 403 `no_billable_seat`).",
    }),
    key: StatusKeySchema,
    environment: z.enum(["dev", "prod"]).openapi({ example: "prod" }),
    lastSuccessfulSync: z
      .string()
      .nullable()
      .openapi({
        description:
          "When the organisation's ledger (live connection, imported folder or demo) last synced " +
          "successfully (ISO 8601); null if never. Present whether or not a `ledgerAlert` is. An " +
          "addition to the spec's StatusResponse.",
        example: "2026-03-01T06:00:00.000Z",
      }),
    burstLimit: BurstLimitSchema,
  }),
).openapi("StatusResponse", {
  description: "Billing, quota, credit window and key context for session bootstrap.",
});

export type StatusResponse = z.infer<typeof StatusResponseSchema>;
