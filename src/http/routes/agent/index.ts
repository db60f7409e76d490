import type { Api } from "../../api.ts";
import type { AppDeps } from "../../env.ts";
import { auditTrail } from "../../middleware/audit.ts";
import { authenticate } from "../../middleware/authenticate.ts";
import { noopMetering } from "../../middleware/metering.ts";
import { AGENT_PREFIX, OPENAPI_PATH, type PipelineDeps } from "./agent-route.ts";
import { registerListBankAccounts } from "./bank-accounts/index.ts";
import { registerOpenApiDocument } from "./openapi.ts";
import { registerListOrgs } from "./orgs/index.ts";

/**
 * Registers every agent route and the OpenAPI document. The pipeline of an agent request:
 * request id (app.ts) -> authenticate -> audit (wraps the rest) -> route template -> target
 * organisation -> required scope -> metering -> validation -> handler. Authentication covers
 * every path under the prefix, registered routes or not (fail closed), except the document.
 */
export function registerAgentApi(api: Api, deps: AppDeps): void {
  const db = deps.database.db;
  const pipeline: PipelineDeps = {
    db,
    clock: deps.clock,
    metering: deps.metering ?? noopMetering,
  };
  api.use(`${AGENT_PREFIX}/*`, authenticate(db, { publicPaths: [OPENAPI_PATH] }));
  api.use(`${AGENT_PREFIX}/*`, auditTrail({ db, clock: deps.clock, writer: deps.auditWriter }));

  registerOpenApiDocument(api);
  registerListOrgs(api, pipeline);
  registerListBankAccounts(api, pipeline);
}
