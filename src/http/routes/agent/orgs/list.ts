import { OrgsResponseSchema } from "../../../../contracts/agent/orgs.ts";
import { listReachableOrgs } from "../../../../services/orgs/list-reachable-orgs.ts";
import type { Api } from "../../../api.ts";
import { type PipelineDeps, registerKeyRoute } from "../agent-route.ts";

/** `GET /api/agent/orgs`: partner discovery; any valid key; no nested form. */
export const registerListOrgs = (api: Api, deps: PipelineDeps) =>
  registerKeyRoute(api, deps, {
    path: "/api/agent/orgs",
    operationId: "listOrgs",
    tags: ["orgs"],
    summary: "List the organisations this key can reach",
    description:
      "Call it when connecting: it returns the key kind and the reachable organisations. A key " +
      "reaching more than one organisation addresses each through " +
      "`/api/agent/orgs/{orgId}/…` routes. Reach is evaluated on every request, so a new or " +
      "removed membership or partner link applies at once.",
    response: { schema: OrgsResponseSchema, description: "Reachable organisations." },
    handler: (key) => listReachableOrgs(deps.db, key),
  });
