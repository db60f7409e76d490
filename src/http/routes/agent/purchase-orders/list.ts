import { issueDateListRules } from "../../../../contracts/agent/invoices.ts";
import {
  ListPurchaseOrdersQuerySchema,
  PurchaseOrdersResponseSchema,
} from "../../../../contracts/agent/purchase-orders.ts";
import { listPurchaseOrders } from "../../../../services/purchase-orders/list-purchase-orders.ts";
import type { Api } from "../../../api.ts";
import { type ListRouteDeps, registerOrgRoute } from "../agent-route.ts";

/** `GET /api/agent/purchase-orders` and `GET /api/agent/orgs/{orgId}/purchase-orders`. */
export const registerListPurchaseOrders = (api: Api, deps: ListRouteDeps) =>
  registerOrgRoute(api, deps, {
    path: "/api/agent/purchase-orders",
    operationId: "listPurchaseOrders",
    tags: ["purchase-orders"],
    summary: "List purchase orders",
    description:
      "Purchase orders with the ledger's own status and, in `suppressedReason`, whether a " +
      `supplier bill already covers them.\n\n${issueDateListRules("orders")}`,
    scope: "READ_PURCHASE_ORDERS",
    query: ListPurchaseOrdersQuerySchema,
    errors: ["invalid_cursor"],
    response: { schema: PurchaseOrdersResponseSchema, description: "A page of purchase orders." },
    handler: (ctx, { query }) => listPurchaseOrders({ ctx, input: query, paging: deps.paging }),
  });
