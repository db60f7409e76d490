import {
  AccountBalancesQuerySchema,
  AccountBalancesResponseSchema,
} from "../../../../contracts/agent/account-balances.ts";
import { getAccountBalances } from "../../../../services/account-balances/get-account-balances.ts";
import type { Api } from "../../../api.ts";
import { type PipelineDeps, registerOrgRoute } from "../agent-route.ts";

/** `GET /api/agent/account-balances` and `GET /api/agent/orgs/{orgId}/account-balances`. */
export const registerGetAccountBalances = (api: Api, deps: PipelineDeps) =>
  registerOrgRoute(api, deps, {
    path: "/api/agent/account-balances",
    operationId: "getAccountBalances",
    tags: ["accounts"],
    summary: "Balance-sheet account balances as at a date",
    description:
      "Asset, liability and equity accounts with their balances as at `asAtDate` (default today), " +
      "from the balance sheets the ledger reported (the latest report date on or before the " +
      "date). Sensitive accounts are renamed `Sensitive account` and their code blanked without " +
      "READ_SENSITIVE; balances are never masked.",
    scope: "READ_ACCOUNTS",
    query: AccountBalancesQuerySchema,
    response: { schema: AccountBalancesResponseSchema, description: "Balances as at the date." },
    handler: (ctx, { query }) => getAccountBalances({ ctx, asAtDate: query.asAtDate }),
  });
