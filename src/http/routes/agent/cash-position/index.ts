export type { CashPositionResponse } from "../../../../contracts/agent/cash-position.ts";
export { CashPositionResponseSchema } from "../../../../contracts/agent/cash-position.ts";
export { registerGetCashPosition } from "./get.ts";
