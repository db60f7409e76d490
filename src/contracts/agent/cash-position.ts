import { z } from "@hono/zod-openapi";
import { withAlerts } from "./alerts.ts";
import { notesForAgentField } from "./daily-summary.ts";

const decimal = (description: string, example: string) =>
  z.string().openapi({ description: `${description} Canonical decimal string.`, example });

export const CashPositionAccountSchema = z
  .object({
    id: z.string().openapi({
      description: "Service id of the bank account.",
      example: "bank_3h7k2m9q4r8t1v6w5x0z",
    }),
    name: z.string().openapi({
      description:
        "Account name; `Sensitive account` for sensitive accounts without READ_SENSITIVE.",
      example: "Business Cheque",
    }),
    currency: z.string().openapi({ description: "3-letter ISO currency code.", example: "AUD" }),
    reconciledBalance: decimal("Balance per the ledger.", "48210.55"),
    statementBalance: decimal(
      "Bank statement balance (mirrors the reconciled one where the ledger has none).",
      "48210.55",
    ),
    balanceSource: z.enum(["STATEMENT", "RECONCILED"]),
    included: z.boolean().openapi({
      description:
        "True when the account counts towards ledgerReconciledTotal: active, balance source RECONCILED, " +
        "in the organisation's base currency (foreign-currency balances are not converted).",
    }),
  })
  .openapi("CashPositionAccount");

export const CashPositionResponseSchema = withAlerts(
  z.object({
    asOfDate: z
      .string()
      .openapi({ description: "Today in the organisation's timezone.", example: "2026-03-10" }),
    startingCash: decimal("Effective opening cash; equals effectiveStartingCash.", "595109.46"),
    source: z.enum(["manual", "ledger_reconciled"]).openapi({
      description: "`manual` while an operator override applies, else `ledger_reconciled`.",
    }),
    ledgerReconciledTotal: decimal(
      "Plain sum of reconciledBalance over the included accounts; no override or adjustment.",
      "595109.46",
    ),
    effectiveStartingCash: decimal(
      "Opening cash of the forecast: the override, else ledgerReconciledTotal plus the automatic " +
        "adjustment for unreconciled lines dated after the balances (see docs/forecast.md).",
      "595109.46",
    ),
    currency: z
      .string()
      .optional()
      .openapi({ description: "The organisation's base currency.", example: "AUD" }),
    accounts: z
      .array(CashPositionAccountSchema)
      .openapi({ description: "Active bank accounts, by name then id." }),
    redactedItemCount: z.number().int().openapi({
      description:
        "Accounts whose name was rewritten to `Sensitive account`; always 0 with READ_SENSITIVE.",
      example: 1,
    }),
    notesForAgent: notesForAgentField.optional(),
  }),
).openapi("CashPositionResponse");

export type CashPositionResponse = z.infer<typeof CashPositionResponseSchema>;
