import { z } from "@hono/zod-openapi";
import { withAlerts } from "./alerts.ts";

const decimal = (description: string, example: string) =>
  z.string().openapi({
    description: `${description} Canonical decimal string (never a JSON number).`,
    example,
  });

export const BankAccountSchema = z
  .object({
    id: z.string().openapi({
      description: "Service id of the bank account (stable across syncs).",
      example: "bank_3h7k2m9q4r8t1v6w5x0z",
    }),
    name: z.string().openapi({ description: "Account name from the ledger.", example: "Everyday" }),
    currency: z.string().openapi({ description: "3-letter ISO currency code.", example: "AUD" }),
    reconciledBalance: decimal("Balance per the ledger (its bank summary).", "48210.55"),
    statementBalance: decimal(
      "Bank statement balance; mirrors reconciledBalance where the ledger exposes none.",
      "48210.55",
    ),
    balanceSource: z.enum(["STATEMENT", "RECONCILED"]).openapi({
      description: "Which balance the forecast starts from.",
      example: "RECONCILED",
    }),
    balanceSyncedAt: z.string().optional().openapi({
      description:
        "When the balances were last pulled from the ledger (ISO 8601); absent if never.",
      example: "2026-03-01T06:00:00.000Z",
    }),
  })
  .openapi("BankAccount", { description: "An active bank account with its balances." });

export const BankAccountsResponseSchema = withAlerts(
  z.object({
    accounts: z.array(BankAccountSchema).openapi({
      description: "Active bank accounts sorted by name, then id.",
    }),
    redactedItemCount: z
      .number()
      .int()
      .openapi({
        description:
          "Accounts left out because their ledger account is flagged sensitive and the key lacks " +
          "READ_SENSITIVE; always 0 with READ_SENSITIVE.",
        example: 0,
      }),
  }),
).openapi("BankAccountsResponse", { description: "The organisation's active bank accounts." });

export type BankAccountsResponse = z.infer<typeof BankAccountsResponseSchema>;
