import {
  ForecastQuerySchema,
  ForecastResponseSchema,
} from "../../../../contracts/agent/forecast.ts";
import { getForecast } from "../../../../services/forecast/get-forecast.ts";
import { getForecastVariance } from "../../../../services/forecast/history.ts";
import { withNotes } from "../../../../services/insights/notes-for-agent.ts";
import type { Api } from "../../../api.ts";
import { type PipelineDeps, registerOrgRoute } from "../agent-route.ts";

/** `GET /api/agent/forecast` and `GET /api/agent/orgs/{orgId}/forecast`. */
export const registerGetForecast = (api: Api, deps: PipelineDeps) =>
  registerOrgRoute(api, deps, {
    path: "/api/agent/forecast",
    operationId: "getForecast",
    tags: ["cash"],
    summary: "Latest 13-week forecast",
    description:
      "The latest stored snapshot of a scenario (default: BASE), recomputed after every import " +
      "and daily. 404 `not_found` when the scenario is not the organisation's or has no snapshot " +
      "yet. Without READ_SENSITIVE, sensitive account names in `weeks[].categories.accounts` " +
      "become `Sensitive account`; the cash trajectory is never masked.",
    scope: "READ_FORECAST",
    query: ForecastQuerySchema,
    errors: ["not_found"],
    response: { schema: ForecastResponseSchema, description: "The forecast." },
    // The insight engine's notes (docs/insights.md), present when there are any.
    handler: async (ctx, { query }) => {
      const forecast = await getForecast({ ctx, scenarioId: query.scenarioId });
      return withNotes(
        ctx,
        query.variance || query.varianceCategories
          ? {
              ...forecast,
              variance: await getForecastVariance({
                ctx,
                categories: query.varianceCategories,
                ...(query.varianceHorizon === undefined ? {} : { horizon: query.varianceHorizon }),
              }),
            }
          : forecast,
      );
    },
  });
