import {
  BillsResponseSchema,
  DOCUMENT_ORDER,
  ListDocumentsQuerySchema,
} from "../../../../contracts/agent/invoices.ts";
import { listBills } from "../../../../services/invoices/list-invoices.ts";
import type { Api } from "../../../api.ts";
import { type ListRouteDeps, registerOrgRoute } from "../agent-route.ts";
import { DOCUMENT_GATING } from "../invoices/list.ts";

/** `GET /api/agent/bills` and `GET /api/agent/orgs/{orgId}/bills`. */
export const registerListBills = (api: Api, deps: ListRouteDeps) =>
  registerOrgRoute(api, deps, {
    path: "/api/agent/bills",
    operationId: "listBills",
    tags: ["bills"],
    summary: "List payable bills",
    description:
      "Payable bills (source `LEDGER_BILL`): the mirror of /api/agent/invoices with the same " +
      "parameters, order, paging, caps, totals and sensitive-data rules. Bill lines carry no " +
      "discounts: `discountRate`, `discountAmount` and `lineSubtotal` are always null. " +
      `\n\n${DOCUMENT_ORDER}\n\n${DOCUMENT_GATING}`,
    scope: "READ_INVOICES",
    query: ListDocumentsQuerySchema,
    errors: ["invalid_cursor"],
    response: { schema: BillsResponseSchema, description: "A page of bills." },
    handler: (ctx, { query }) => listBills({ ctx, input: query, paging: deps.paging }),
  });
