import {
  LedgerSummaryQuerySchema,
  RevenueSummaryResponseSchema,
} from "../../../../contracts/agent/revenue-summary.ts";
import { getRevenueSummary } from "../../../../services/summaries/ledger-summary.ts";
import type { Api } from "../../../api.ts";
import { type PipelineDeps, registerOrgRoute } from "../agent-route.ts";

/** `GET /api/agent/revenue/summary` and its nested form. */
export const registerRevenueSummary = (api: Api, deps: PipelineDeps) =>
  registerOrgRoute(api, deps, {
    path: "/api/agent/revenue/summary",
    operationId: "getRevenueSummary",
    tags: ["summaries"],
    summary: "Revenue summary",
    description:
      "Receivables in aggregate over a window (default: financial year to date): PAID cash " +
      "ex-tax by payment date (grandTotal, byStatus.PAID, byMonth in the organisation's " +
      "timezone, topContacts), the other statuses by document date, and the organisation's " +
      "gross profit over the last three full months. Far cheaper than paging /invoices. " +
      "Without READ_SENSITIVE, sensitive contacts in topContacts are renamed (amounts kept).",
    scope: "READ_SUMMARY",
    query: LedgerSummaryQuerySchema,
    response: { schema: RevenueSummaryResponseSchema, description: "The revenue summary." },
    handler: async (ctx, { query }) => {
      const r = await getRevenueSummary(ctx, query);
      if (!r.grossProfit) throw new Error("revenue summary without grossProfit");
      return { ...r, grossProfit: r.grossProfit };
    },
  });
