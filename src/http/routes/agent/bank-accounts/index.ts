export { BankAccountsResponseSchema } from "../../../../contracts/agent/bank-accounts.ts";
export { registerListBankAccounts } from "./list.ts";
