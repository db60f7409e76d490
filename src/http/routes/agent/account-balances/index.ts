export { registerGetAccountBalances } from "./get.ts";
export type { AccountBalancesResponse } from "./schema.ts";
export { AccountBalancesResponseSchema } from "./schema.ts";
