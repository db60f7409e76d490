export type { AccountBalancesResponse } from "../../../../contracts/agent/account-balances.ts";
export { AccountBalancesResponseSchema } from "../../../../contracts/agent/account-balances.ts";
export { registerGetAccountBalances } from "./get.ts";
