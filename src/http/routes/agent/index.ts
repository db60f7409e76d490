import { cursorSecretOf } from "../../../config.ts";
import { listPaging } from "../../../services/invoices/paging.ts";
import type { Api } from "../../api.ts";
import type { AppDeps } from "../../env.ts";
import { auditTrail } from "../../middleware/audit.ts";
import { authenticate } from "../../middleware/authenticate.ts";
import { createMetering } from "../../middleware/metering.ts";
import { registerGetAccountBalances } from "./account-balances/index.ts";
import { AGENT_PREFIX, type ListRouteDeps, OPENAPI_PATH } from "./agent-route.ts";
import { registerListBankAccounts } from "./bank-accounts/index.ts";
import { registerListBills } from "./bills/index.ts";
import { registerGetCashPosition } from "./cash-position/index.ts";
import { registerCohortRetention, registerCohortSummary } from "./cohorts/index.ts";
import { registerGetContact, registerListContacts } from "./contacts/index.ts";
import { registerContactsSummary } from "./contacts-summary/index.ts";
import { registerGetCreditNote, registerListCreditNotes } from "./credit-notes/index.ts";
import { registerDailyBrief } from "./daily-brief/index.ts";
import { registerDailySummary } from "./daily-summary/index.ts";
import { registerExpensesSummary } from "./expenses-summary/index.ts";
import { registerGetForecast } from "./forecast/index.ts";
import { registerListInvoices } from "./invoices/index.ts";
import { registerOpenApiDocument } from "./openapi.ts";
import { registerListOrgs } from "./orgs/index.ts";
import { registerGetPurchaseOrder, registerListPurchaseOrders } from "./purchase-orders/index.ts";
import { registerRevenueSummary } from "./revenue-summary/index.ts";
import { registerGetStatus } from "./status/index.ts";

/**
 * Registers every agent route and the OpenAPI document. The pipeline of an agent request:
 * request id (app.ts) -> authenticate -> audit (wraps the rest) -> route template -> target
 * organisation -> required scope -> metering -> validation -> handler. Authentication covers
 * every path under the prefix, registered routes or not (fail closed), except the document.
 */
export function registerAgentApi(api: Api, deps: AppDeps): void {
  const db = deps.database.db;
  const pipeline: ListRouteDeps = {
    db,
    clock: deps.clock,
    // The real metering unless the caller brings one (main.ts adds Redis; tests may pass noop).
    metering: deps.metering ?? createMetering({ db, logger: deps.logger }),
    paging: listPaging(cursorSecretOf(deps.config)),
  };
  api.use(
    `${AGENT_PREFIX}/*`,
    authenticate(db, { publicPaths: [OPENAPI_PATH], cache: deps.keyCache }),
  );
  api.use(`${AGENT_PREFIX}/*`, auditTrail({ db, clock: deps.clock, writer: deps.auditWriter }));

  registerOpenApiDocument(api);
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
  registerGetStatus(api, pipeline, { environment: deps.config.CASHRUNWAY_ENV });
  // Last: routes run in registration order, so /contacts/{id} must follow any static
  // /contacts/<word> route (e.g. /contacts/summary), or it would answer for the word.
  registerGetContact(api, pipeline);
}
