import {
  CohortRetentionQuerySchema,
  CohortRetentionResponseSchema,
} from "../../../../contracts/agent/cohorts.ts";
import { getCohortRetention } from "../../../../services/cohorts/cohorts.ts";
import type { Api } from "../../../api.ts";
import { type PipelineDeps, registerOrgRoute } from "../agent-route.ts";

/** `GET /api/agent/cohorts/retention` and its nested form. */
export const registerCohortRetention = (api: Api, deps: PipelineDeps) =>
  registerOrgRoute(api, deps, {
    path: "/api/agent/cohorts/retention",
    operationId: "getCohortRetention",
    tags: ["cohorts"],
    summary: "Cohort retention matrix",
    description:
      "Customers grouped by the month of their first paid invoice (up to 24 months), with one " +
      "column per month since: survival share, transacting customers or revenue. Cells of " +
      "months not yet started are null.",
    scope: "READ_SUMMARY",
    query: CohortRetentionQuerySchema,
    response: { schema: CohortRetentionResponseSchema, description: "The cohort matrix." },
    handler: (ctx, { query }) => getCohortRetention(ctx, query),
  });
