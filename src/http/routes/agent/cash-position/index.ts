export { registerGetCashPosition } from "./get.ts";
export type { CashPositionResponse } from "./schema.ts";
export { CashPositionResponseSchema } from "./schema.ts";
