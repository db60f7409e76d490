import { CohortSummaryResponseSchema } from "../../../../contracts/agent/cohorts.ts";
import { getCohortSummary } from "../../../../services/cohorts/cohorts.ts";
import type { Api } from "../../../api.ts";
import { type PipelineDeps, registerOrgRoute } from "../agent-route.ts";

/** `GET /api/agent/cohorts/summary` and its nested form. */
export const registerCohortSummary = (api: Api, deps: PipelineDeps) =>
  registerOrgRoute(api, deps, {
    path: "/api/agent/cohorts/summary",
    operationId: "getCohortSummary",
    tags: ["cohorts"],
    summary: "Cohort KPIs",
    description:
      "New customers, repeat-order rate, revenue per customer and 90-day retention of the 6 " +
      "most recent acquisition months with deltas against the 6 before, the 3 cohorts with " +
      "the best M3 retention, and notes. No parameters.",
    scope: "READ_SUMMARY",
    response: { schema: CohortSummaryResponseSchema, description: "The cohort summary." },
    handler: (ctx) => getCohortSummary(ctx),
  });
