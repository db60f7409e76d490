import { CashPositionResponseSchema } from "../../../../contracts/agent/cash-position.ts";
import { getCashPosition } from "../../../../services/cash-position/get-cash-position.ts";
import { withNotes } from "../../../../services/insights/notes-for-agent.ts";
import type { Api } from "../../../api.ts";
import { type PipelineDeps, registerOrgRoute } from "../agent-route.ts";

/** `GET /api/agent/cash-position` and `GET /api/agent/orgs/{orgId}/cash-position`. */
export const registerGetCashPosition = (api: Api, deps: PipelineDeps) =>
  registerOrgRoute(api, deps, {
    path: "/api/agent/cash-position",
    operationId: "getCashPosition",
    tags: ["cash"],
    summary: "Current cash position",
    description:
      "Today's opening cash (the organisation's local date), how it was reached (ledger total, " +
      "automatic adjustment, operator override) and every active bank account with whether it " +
      "counts. Sensitive accounts stay, renamed `Sensitive account` without READ_SENSITIVE; " +
      "amounts are never masked.",
    scope: "READ_FORECAST",
    response: { schema: CashPositionResponseSchema, description: "The cash position." },
    // The insight engine's notes (docs/insights.md), present when there are any.
    handler: async (ctx) => withNotes(ctx, await getCashPosition({ ctx })),
  });
