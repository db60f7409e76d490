import { DailyBriefResponseSchema } from "../../../../contracts/agent/daily-brief.ts";
import { getDailyBrief } from "../../../../services/brief/get-daily-brief.ts";
import type { Api } from "../../../api.ts";
import { type PipelineDeps, registerOrgRoute } from "../agent-route.ts";

/** `GET /api/agent/orgs/{orgId}/daily-brief` (nested form only). */
export const registerDailyBrief = (api: Api, deps: PipelineDeps) =>
  registerOrgRoute(api, deps, {
    path: "/api/agent/daily-brief",
    operationId: "getDailyBrief",
    tags: ["daily-brief"],
    summary: "Daily brief",
    description:
      "The latest stored brief: mainDriver, riskSignal and recommendedAction. The dashboard " +
      "shows the same row. A scheduled worker writes one row per organisation and UTC day at " +
      "06:00 UTC; clients cannot trigger regeneration. `{orgId}` must be the organisation the " +
      "key resolves to (an organisation key's own; for USER and PARTNER keys one within reach), " +
      "else 403 `forbidden`. 404 `no_brief_yet` before the first brief. A brief never names a " +
      "sensitive contact or account; a section naming one flagged sensitive after the brief was " +
      'written is served as "Withheld: this section named a sensitive contact or account" with ' +
      "no refs, to every key, until the next brief.",
    scope: null,
    nestedOnly: true,
    errors: ["no_brief_yet"],
    response: { schema: DailyBriefResponseSchema, description: "The latest daily brief." },
    handler: (ctx, { pathOrgId }) => getDailyBrief(ctx, pathOrgId ?? ""),
  });
