export type {
  PurchaseOrderDrillResponse,
  PurchaseOrdersResponse,
} from "../../../../contracts/agent/purchase-orders.ts";
export {
  PurchaseOrderDrillResponseSchema,
  PurchaseOrdersResponseSchema,
} from "../../../../contracts/agent/purchase-orders.ts";
export { registerGetPurchaseOrder } from "./get.ts";
export { registerListPurchaseOrders } from "./list.ts";
