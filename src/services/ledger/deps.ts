import type { LedgerSettings } from "../../connector/xero/config.ts";
import { DEV_LEDGER_TOKEN_KEY } from "../../connector/xero/config.ts";
import type {
  LedgerPolicy,
  LedgerPolicyOptions,
  SharedCallLimiter,
  TenantGate,
} from "../../connector/xero/policy.ts";
import type { Db } from "../../db/client.ts";
import { TokenSealer } from "./seal.ts";
import { sharedLimiterFor } from "./shared-limits.ts";

/** What one process keeps per tenant and connection (tests give each simulated instance one). */
export interface LedgerProcessState {
  gates: Map<string, TenantGate>;
  policies: Map<string, LedgerPolicy>;
}

/** What the live-ledger services need: the database, the LEDGER_* settings, the clock. */
export interface LedgerDeps {
  db: Db;
  settings: LedgerSettings;
  sealer: TokenSealer;
  now: () => Date;
  /** The service's own address, for the default redirect URI (`<base>/ledger/callback`). */
  publicBaseUrl: string;
  /** Overrides of the call policy (tests shorten its windows). */
  policy?: Partial<LedgerPolicyOptions>;
  /** The tenants' limits shared by every instance (PostgreSQL; answers at once on PGlite). */
  shared?: SharedCallLimiter;
  /** Default: the process's own (module-level) gates and policies. */
  processState?: LedgerProcessState;
  fetch?: typeof fetch;
}

export function createLedgerDeps(input: {
  db: Db;
  settings: LedgerSettings;
  publicBaseUrl: string;
  now?: () => Date;
  policy?: Partial<LedgerPolicyOptions>;
  /** Default: `ledger_call_slots` on a PostgreSQL pool, none on the embedded database. */
  shared?: SharedCallLimiter | null;
  processState?: LedgerProcessState;
  fetch?: typeof fetch;
}): LedgerDeps {
  return {
    db: input.db,
    settings: input.settings,
    sealer: new TokenSealer(input.settings.LEDGER_TOKEN_KEY ?? DEV_LEDGER_TOKEN_KEY),
    now: input.now ?? (() => new Date()),
    publicBaseUrl: input.publicBaseUrl.replace(/\/+$/, ""),
    policy: input.policy,
    shared: input.shared === null ? undefined : (input.shared ?? sharedLimiterFor(input.db)),
    processState: input.processState,
    fetch: input.fetch,
  };
}

/** Where the ledger sends the user back: LEDGER_REDIRECT_URI or `/ledger/callback` here. */
export function redirectUriOf(deps: LedgerDeps): string {
  return deps.settings.LEDGER_REDIRECT_URI ?? `${deps.publicBaseUrl}/ledger/callback`;
}
