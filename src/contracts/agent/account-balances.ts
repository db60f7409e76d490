import { z } from "@hono/zod-openapi";
import { withAlerts } from "./alerts.ts";

export const AccountBalanceSchema = z
  .object({
    id: z.string().openapi({
      description:
        "Service id of the ledger account; `current_year_earnings` for that computed row.",
      example: "acc_3h7k2m9q4r8t1v6w5x0z",
    }),
    code: z.string().openapi({
      description: "Account code; empty when none, and blanked for sensitive accounts.",
      example: "610",
    }),
    name: z.string().openapi({
      description: "`Sensitive account` for sensitive accounts without READ_SENSITIVE.",
      example: "Accounts Receivable",
    }),
    type: z.string().openapi({ description: "Ledger account type.", example: "CURRENT" }),
    class: z.string().openapi({ description: "ASSET, LIABILITY or EQUITY.", example: "ASSET" }),
    balance: z.string().openapi({
      description:
        "Balance as at the date, as the balance sheet shows it (each class positive in its normal sign). Never masked.",
      example: "15432.1",
    }),
  })
  .openapi("AccountBalance");

export const AccountBalancesResponseSchema = withAlerts(
  z.object({
    asAtDate: z.string().openapi({ example: "2026-03-10" }),
    currency: z
      .string()
      .openapi({ description: "The organisation's base currency.", example: "AUD" }),
    accounts: z.array(AccountBalanceSchema).openapi({
      description: "Asset, liability and equity accounts, by class then code.",
    }),
    redactedItemCount: z.number().int().openapi({
      description: "Rows whose name was rewritten and code cleared; 0 with READ_SENSITIVE.",
      example: 0,
    }),
  }),
).openapi("AccountBalancesResponse");

export const AccountBalancesQuerySchema = z.object({
  asAtDate: z
    .string()
    .optional()
    .openapi({
      param: { name: "asAtDate", in: "query" },
      description:
        "YYYY-MM-DD; default today in the organisation's timezone. Anything else is 400 `invalid_parameter`.",
      example: "2026-02-28",
    }),
  forceRefresh: z
    .enum(["true", "false"])
    .optional()
    .openapi({
      param: { name: "forceRefresh", in: "query" },
      description: "Accepted for compatibility; balances always come from the last import.",
    }),
});

export type AccountBalancesResponse = z.infer<typeof AccountBalancesResponseSchema>;
