import { DailySummaryResponseSchema } from "../../../../contracts/agent/daily-summary.ts";
import { getDailySummary } from "../../../../services/daily-summary/get-daily-summary.ts";
import type { Api } from "../../../api.ts";
import { type PipelineDeps, registerOrgRoute } from "../agent-route.ts";

/** `GET /api/agent/daily-summary` and its nested form. */
export const registerDailySummary = (api: Api, deps: PipelineDeps) =>
  registerOrgRoute(api, deps, {
    path: "/api/agent/daily-summary",
    operationId: "getDailySummary",
    tags: ["summaries"],
    summary: "Daily summary",
    description:
      "Everything an agent needs to start the day in one call: cash today, the last 7 days " +
      "(totals and the 5 largest movements each way), receivable ageing, the 13-week forecast " +
      "headline, a deterministic narrative and notes. Totals are never masked; without " +
      "READ_SENSITIVE, sensitive contacts in the movements are renamed.",
    scope: "READ_SUMMARY",
    response: { schema: DailySummaryResponseSchema, description: "The daily summary." },
    handler: (ctx) => getDailySummary(ctx),
  });
