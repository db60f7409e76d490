export { registerGetPurchaseOrder } from "./get.ts";
export { registerListPurchaseOrders } from "./list.ts";
export type { PurchaseOrderDrillResponse, PurchaseOrdersResponse } from "./schema.ts";
export { PurchaseOrderDrillResponseSchema, PurchaseOrdersResponseSchema } from "./schema.ts";
