import {
  ExpensesSummaryResponseSchema,
  LedgerSummaryQuerySchema,
} from "../../../../contracts/agent/revenue-summary.ts";
import { getExpensesSummary } from "../../../../services/summaries/ledger-summary.ts";
import type { Api } from "../../../api.ts";
import { type PipelineDeps, registerOrgRoute } from "../agent-route.ts";

/** `GET /api/agent/expenses/summary` and its nested form. */
export const registerExpensesSummary = (api: Api, deps: PipelineDeps) =>
  registerOrgRoute(api, deps, {
    path: "/api/agent/expenses/summary",
    operationId: "getExpensesSummary",
    tags: ["summaries"],
    summary: "Expenses summary",
    description:
      "Payables in aggregate, the mirror of the revenue summary (same parameters and rules, " +
      "bills instead of sales invoices, suppliers in topContacts) without grossProfit.",
    scope: "READ_SUMMARY",
    query: LedgerSummaryQuerySchema,
    response: { schema: ExpensesSummaryResponseSchema, description: "The expenses summary." },
    handler: async (ctx, { query }) => {
      const { grossProfit: _none, ...r } = await getExpensesSummary(ctx, query);
      return r;
    },
  });
