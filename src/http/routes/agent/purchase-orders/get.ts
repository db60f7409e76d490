import {
  PurchaseOrderDrillResponseSchema,
  PurchaseOrderIdParamSchema,
} from "../../../../contracts/agent/purchase-orders.ts";
import { getPurchaseOrder } from "../../../../services/purchase-orders/get-purchase-order.ts";
import type { Api } from "../../../api.ts";
import { type PipelineDeps, registerOrgRoute } from "../agent-route.ts";

/** `GET /api/agent/purchase-orders/{id}` and its nested form. */
export const registerGetPurchaseOrder = (api: Api, deps: PipelineDeps) =>
  registerOrgRoute(api, deps, {
    path: "/api/agent/purchase-orders/{id}",
    operationId: "getPurchaseOrder",
    tags: ["purchase-orders"],
    summary: "One purchase order with its lines",
    description:
      "A purchase order by our id, the ledger's PurchaseOrderID or its number, with its " +
      "lines. 404 `not_found` when there is none, and (without READ_SENSITIVE) when its " +
      "contact is flagged sensitive, with the same body.",
    scope: "READ_PURCHASE_ORDERS",
    params: PurchaseOrderIdParamSchema,
    errors: ["not_found"],
    response: { schema: PurchaseOrderDrillResponseSchema, description: "The purchase order." },
    handler: (ctx, { params }) => getPurchaseOrder({ ctx, id: params.id }),
  });
