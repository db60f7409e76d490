import type { LedgerSettings } from "../../connector/xero/config.ts";
import { DEV_LEDGER_TOKEN_KEY } from "../../connector/xero/config.ts";
import type { LedgerPolicyOptions } from "../../connector/xero/policy.ts";
import type { Db } from "../../db/client.ts";
import { TokenSealer } from "./seal.ts";

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
  fetch?: typeof fetch;
}

export function createLedgerDeps(input: {
  db: Db;
  settings: LedgerSettings;
  publicBaseUrl: string;
  now?: () => Date;
  policy?: Partial<LedgerPolicyOptions>;
  fetch?: typeof fetch;
}): LedgerDeps {
  return {
    db: input.db,
    settings: input.settings,
    sealer: new TokenSealer(input.settings.LEDGER_TOKEN_KEY ?? DEV_LEDGER_TOKEN_KEY),
    now: input.now ?? (() => new Date()),
    publicBaseUrl: input.publicBaseUrl.replace(/\/+$/, ""),
    policy: input.policy,
    fetch: input.fetch,
  };
}

/** Where the ledger sends the user back: LEDGER_REDIRECT_URI or `/ledger/callback` here. */
export function redirectUriOf(deps: LedgerDeps): string {
  return deps.settings.LEDGER_REDIRECT_URI ?? `${deps.publicBaseUrl}/ledger/callback`;
}
