export { registerListBankAccounts } from "./list.ts";
export { BankAccountsResponseSchema } from "./schema.ts";
