export { registerListBankAccounts } from "./list.ts";
export type { BankAccountsResponse } from "./schema.ts";
export { BankAccountSchema, BankAccountsResponseSchema } from "./schema.ts";
