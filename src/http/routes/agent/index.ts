import { cursorSecretOf } from "../../../config.ts";
import { listPaging } from "../../../services/lists/paging.ts";
import type { Api } from "../../api.ts";
import type { AppDeps } from "../../env.ts";
import type { AgentPipeline } from "../../pipeline/agent-call.ts";
import { createMetering, meteringLimitsOf } from "../../pipeline/metering.ts";
import { registerGetAccountBalances } from "./account-balances/index.ts";
import { type ListRouteDeps, OPENAPI_PATH } from "./agent-route.ts";
import { registerListBankAccounts } from "./bank-accounts/index.ts";
import { registerListBills } from "./bills/index.ts";
import { registerGetCashPosition } from "./cash-position/index.ts";
import { registerCohortRetention, registerCohortSummary } from "./cohorts/index.ts";
import { registerGetContact, registerListContacts } from "./contacts/index.ts";
import { registerContactsSummary } from "./contacts-summary/index.ts";
import { registerGetCreditNote, registerListCreditNotes } from "./credit-notes/index.ts";
import { registerDailyBrief } from "./daily-brief/index.ts";
import { registerDailySummary } from "./daily-summary/index.ts";
import { mountAgentApi } from "./dispatch.ts";
import { registerExpensesSummary } from "./expenses-summary/index.ts";
import { registerGetForecast } from "./forecast/index.ts";
import { registerListInvoices } from "./invoices/index.ts";
import { registerOpenApiDocument } from "./openapi.ts";
import { registerListOrgs } from "./orgs/index.ts";
import { registerGetPurchaseOrder, registerListPurchaseOrders } from "./purchase-orders/index.ts";
import { registerRevenueSummary } from "./revenue-summary/index.ts";
import { registerGetStatus } from "./status/index.ts";

/**
 * Registers every agent route, served through the agent pipeline (pipeline/agent-call.ts, mounted
 * by dispatch.ts): authenticate -> path -> target organisation -> required scope -> metering ->
 * validation -> handler -> audit row, with a request id and a log line. Authentication covers every path under the prefix,
 * registered routes or not (fail closed), except the OpenAPI document (openapi.ts), whose handler
 * the caller mounts with the returned `serveDocument`.
 */
export function registerAgentApi(
  api: Api,
  deps: AppDeps,
): { serveDocument: () => void; pipeline: AgentPipeline } {
  const db = deps.database.db;
  // Described first (it leads the document's paths); served by its own handler, mounted by the
  // caller after the request-log middleware (app.ts).
  const serveDocument = registerOpenApiDocument(api);
  const { pipeline: agentPipeline, ...mounted } = mountAgentApi(api, {
    db,
    clock: deps.clock,
    logger: deps.logger,
    // The real metering unless the caller brings one (main.ts adds Redis; tests may pass noop).
    metering:
      deps.metering ??
      createMetering({ db, logger: deps.logger, limits: meteringLimitsOf(deps.config) }),
    auditWriter: deps.auditWriter,
    keyCache: deps.keyCache,
    publicPaths: [OPENAPI_PATH],
  });
  const pipeline: ListRouteDeps = { ...mounted, paging: listPaging(cursorSecretOf(deps.config)) };

  registerListOrgs(api, pipeline);
  registerListBankAccounts(api, pipeline);
  registerListInvoices(api, pipeline);
  registerListBills(api, pipeline);
  registerListCreditNotes(api, pipeline);
  registerGetCreditNote(api, pipeline);
  registerListPurchaseOrders(api, pipeline);
  registerGetPurchaseOrder(api, pipeline);
  registerListContacts(api, pipeline);
  registerGetCashPosition(api, pipeline);
  registerGetForecast(api, pipeline);
  registerGetAccountBalances(api, pipeline);
  registerRevenueSummary(api, pipeline);
  registerExpensesSummary(api, pipeline);
  registerContactsSummary(api, pipeline);
  registerCohortRetention(api, pipeline);
  registerCohortSummary(api, pipeline);
  registerDailySummary(api, pipeline);
  registerDailyBrief(api, pipeline);
  registerGetStatus(api, pipeline, {
    environment: deps.config.CASHRUNWAY_ENV,
    limits: meteringLimitsOf(deps.config),
  });
  // Last: the first registered route answering a path wins (the route table refuses a static
  // path an earlier pattern answers), so /contacts/{id} follows every static /contacts/<word>.
  registerGetContact(api, pipeline);
  return { serveDocument, pipeline: agentPipeline };
}
