import { BankAccountsResponseSchema } from "../../../../contracts/agent/bank-accounts.ts";
import { listBankAccounts } from "../../../../services/bank-accounts/list-bank-accounts.ts";
import type { Api } from "../../../api.ts";
import { type PipelineDeps, registerOrgRoute } from "../agent-route.ts";

/** `GET /api/agent/bank-accounts` and `GET /api/agent/orgs/{orgId}/bank-accounts`. */
export const registerListBankAccounts = (api: Api, deps: PipelineDeps) =>
  registerOrgRoute(api, deps, {
    path: "/api/agent/bank-accounts",
    operationId: "listBankAccounts",
    tags: ["bank-accounts"],
    summary: "List active bank accounts",
    description:
      "Active bank accounts with reconciled and statement balances, sorted by name then id. " +
      "Without READ_SENSITIVE, accounts flagged sensitive are absent and counted in " +
      "`redactedItemCount`; balances are never masked.",
    scope: "READ_BANK",
    response: { schema: BankAccountsResponseSchema, description: "Active bank accounts." },
    handler: (ctx) => listBankAccounts({ ctx }),
  });
