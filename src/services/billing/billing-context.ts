import type { Plan, SubscriptionStatus } from "../../db/schema/index.ts";
import type { LedgerConnectionState } from "../../domain/metering/alerts.ts";

/** The billing account of an organisation, as metering and /status see it. */
export interface BillingAccountState {
  id: string;
  /** Subscription plan (`X-Service-Plan`, the daily bucket's size). */
  plan: Plan;
  status: SubscriptionStatus;
  trialEndsAt: Date | null;
  autoTopUp: boolean;
}

/**
 * Everything one metered request needs to know besides the credit window itself, read in the
 * same statement as the admission (`metering_billing` in drizzle/0004_metering.sql). Nothing is
 * cached, so an operator's change applies to the next request.
 */
export interface BillingContext {
  /** Null when the organisation has no billing account. */
  account: BillingAccountState | null;
  /** The user's seat plan on that account (their credit allowance); null = no billable seat. */
  seatPlan: Plan | null;
  /** Null when the organisation has no ledger connection row. */
  ledger: LedgerConnectionState | null;
  /** Only read when the ledger needs attention (it appears only in a ledgerAlert). */
  lastSuccessfulSync: Date | null;
}

/** The billing columns every `metering_*` function returns. */
export interface BillingRow {
  r_account: string | null;
  r_plan: string | null;
  r_status: string | null;
  r_trial_ends_ms: number | null;
  r_auto_top_up: boolean | null;
  r_seat_plan: string | null;
  r_ledger_status: string | null;
  r_last_sync_ms: number | null;
}

const instant = (ms: number | null) => (ms === null ? null : new Date(Math.round(Number(ms))));

/** The context from a `metering_*` row (the database constrains the enum values). */
export function billingContextFromRow(row: BillingRow): BillingContext {
  return {
    account:
      row.r_account && row.r_plan && row.r_status
        ? {
            id: row.r_account,
            plan: row.r_plan as Plan,
            status: row.r_status as SubscriptionStatus,
            trialEndsAt: instant(row.r_trial_ends_ms),
            autoTopUp: row.r_auto_top_up === true,
          }
        : null,
    seatPlan: row.r_account ? ((row.r_seat_plan as Plan | null) ?? null) : null,
    ledger: row.r_ledger_status
      ? { status: row.r_ledger_status as LedgerConnectionState["status"] }
      : null,
    lastSuccessfulSync: instant(row.r_last_sync_ms),
  };
}
