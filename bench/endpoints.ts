import { listBankAccounts } from "../src/services/bank-accounts/list-bank-accounts.ts";
import type { ServiceContext } from "../src/services/context.ts";

/** An endpoint under benchmark: its path, and the bare service call its baseline serves. */
export interface BenchEndpoint {
  name: string;
  path: string;
  baseline(ctx: ServiceContext): Promise<unknown>;
}

export const ENDPOINTS: BenchEndpoint[] = [
  {
    name: "bank-accounts",
    path: "/api/agent/bank-accounts",
    baseline: (ctx) => listBankAccounts({ ctx }),
  },
];
