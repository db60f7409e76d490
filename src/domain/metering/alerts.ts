/**
 * When a response carries a `billingAlert` or a `ledgerAlert`. They appear only when attention
 * is needed; absence means healthy.
 */

const DAY_MS = 86_400_000;

export type SubscriptionStatus = "trialing" | "active" | "past_due" | "canceled" | "trial_ended";
export type AlertSeverity = "warn" | "critical";

/** Where the alert sends a person: the settings screen (paths relative to the base URL). */
export interface CallToAction {
  label: string;
  url: string;
}

export const BILLING_CTA: CallToAction = { label: "Manage billing", url: "/settings/billing" };

export type BillingAlertKind =
  | "past_due"
  | "canceled"
  | "trial_ended"
  | "trial_ending"
  | "credits_low"
  | "credits_exhausted";

export interface BillingAlert {
  severity: AlertSeverity;
  kind: BillingAlertKind;
  message: string;
  cta: CallToAction;
}

export type LedgerAlertKind = "reconnect_required" | "service_issue" | "no_connection";

export interface LedgerAlert {
  severity: AlertSeverity;
  kind: LedgerAlertKind;
  message: string;
  /** ISO 8601; null if the organisation never synced. */
  lastSuccessfulSync: string | null;
  /**
   * `service_issue` only, when known: when the service will try the ledger again (ISO 8601).
   * An addition to the spec's fields, also said in the message.
   */
  nextAttemptAt?: string;
  cta: CallToAction;
}

/** Whole days left in a trial, rounded up (so "1" is the last day); 0 once it has ended. */
export function trialDaysRemaining(trialEndsAt: Date, now: Date): number {
  return Math.max(0, Math.ceil((trialEndsAt.getTime() - now.getTime()) / DAY_MS));
}

/** A trial with this many days or fewer left warns. */
export const TRIAL_WARN_DAYS = 5;
/** Credit use at this share of the window or more warns. */
export const CREDIT_WARN_SHARE = 0.9;

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

function billingAlert(severity: AlertSeverity, kind: BillingAlertKind, message: string) {
  return { severity, kind, message, cta: BILLING_CTA } satisfies BillingAlert;
}

/**
 * The billing alert for a subscription and, when the key has a billable seat, its credit window.
 * When several conditions hold, the most severe wins; among equals: subscription status, then
 * credits, then the trial.
 */
export function billingAlertFor(input: {
  status: SubscriptionStatus;
  /** Set while trialing. */
  trialDaysRemaining: number | null;
  credits: { limit: number; used: number; remaining: number; nextCreditInMinutes: number } | null;
}): BillingAlert | null {
  const found: BillingAlert[] = [];

  if (input.status === "past_due") {
    found.push(
      billingAlert(
        "critical",
        "past_due",
        "The last payment failed: update the payment method to keep access.",
      ),
    );
  } else if (input.status === "canceled") {
    found.push(
      billingAlert(
        "critical",
        "canceled",
        "The subscription is canceled: renew it to keep access.",
      ),
    );
  } else if (input.status === "trial_ended") {
    found.push(
      billingAlert(
        "critical",
        "trial_ended",
        "The free trial has ended: choose a plan to keep access.",
      ),
    );
  }

  const c = input.credits;
  if (c && c.remaining === 0) {
    found.push(
      billingAlert(
        "critical",
        "credits_exhausted",
        `Query credits for this 5-hour window are used up (${c.used} of ${c.limit}); the next ` +
          `frees in ${plural(c.nextCreditInMinutes, "minute")}. Upgrade the plan or turn on ` +
          "automatic top-up.",
      ),
    );
  } else if (c && c.limit > 0 && c.used >= CREDIT_WARN_SHARE * c.limit) {
    found.push(
      billingAlert(
        "warn",
        "credits_low",
        `${c.used} of ${c.limit} query credits of this 5-hour window are used ` +
          `(${plural(c.remaining, "credit")} left).`,
      ),
    );
  }

  const days = input.status === "trialing" ? input.trialDaysRemaining : null;
  if (days !== null && days <= TRIAL_WARN_DAYS) {
    if (days <= 1) {
      found.push(
        billingAlert(
          "critical",
          "trial_ending",
          "The free trial ends within a day: choose a plan to keep access.",
        ),
      );
    } else {
      found.push(
        billingAlert(
          "warn",
          "trial_ending",
          `The free trial ends in ${days} days: choose a plan to keep access.`,
        ),
      );
    }
  }

  return found.find((a) => a.severity === "critical") ?? found[0] ?? null;
}

/** Why a `service_issue` connection is waiting (ledger_credentials.retry_reason). */
export type LedgerRetryReason = "unavailable" | "rate_limited" | "budget" | "error";

/** The ledger connection as the alert rules see it; null = none (never connected). */
export interface LedgerConnectionState {
  status: "active" | "service_issue" | "reconnect_required" | "disconnected";
  /** `service_issue`: when the next sync will be tried, and why it waits (live ledger only). */
  retryAt?: Date | null;
  retryReason?: LedgerRetryReason | null;
}

/** `2026-11-27 04:05 UTC`: a retry time as the alert's message says it. */
function minuteUtc(at: Date): string {
  return `${at.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

const WAITING: Record<LedgerRetryReason, string> = {
  unavailable: "The ledger is returning errors, so syncs are paused and retried automatically",
  rate_limited:
    "The ledger is refusing calls for now (its rate limit), so syncs are retried automatically",
  budget:
    "The ledger's daily call limit for this organisation is used up, so syncs pause until it " +
    "resets",
  error: "The last sync failed and is retried automatically",
};

/**
 * The ledger alert (spec: ledgerAlert), from the connection's real state:
 * - never connected: warn `no_connection`;
 * - disconnected (by an owner or admin): warn `no_connection`, saying the data shown is what the
 *   last sync read and no longer updates;
 * - `reconnect_required` (consent revoked, refresh token expired or refused): critical;
 * - `service_issue` (the `retrying` state: faults with the breaker open, 429s, the daily budget
 *   spent, a failed sync): warn, with the reason and the next attempt (message and
 *   `nextAttemptAt`) when known;
 * - active: none. An organisation fed by imported files has an active connection to its file
 *   source, so it gets no alert while imports succeed.
 */
export function ledgerAlertFor(
  connection: LedgerConnectionState | null,
  lastSuccessfulSync: Date | null,
  now: Date = new Date(),
): LedgerAlert | null {
  const last = lastSuccessfulSync ? lastSuccessfulSync.toISOString() : null;
  if (!connection) {
    return {
      severity: "warn",
      kind: "no_connection",
      message: "No ledger is connected, so there is no data to read. Connect one in settings.",
      lastSuccessfulSync: last,
      cta: { label: "Connect a ledger", url: "/settings/ledger" },
    };
  }
  if (connection.status === "disconnected") {
    return {
      severity: "warn",
      kind: "no_connection",
      message: lastSuccessfulSync
        ? `The ledger was disconnected: the data shown is what the last sync read ` +
          `(${minuteUtc(lastSuccessfulSync)}) and no longer updates. Connect it again in settings.`
        : "The ledger was disconnected before any data was synced. Connect one in settings.",
      lastSuccessfulSync: last,
      cta: { label: "Connect a ledger", url: "/settings/ledger" },
    };
  }
  if (connection.status === "reconnect_required") {
    return {
      severity: "critical",
      kind: "reconnect_required",
      message:
        "The ledger connection must be re-authorised (consent was revoked or the authorization " +
        "expired): data is stale and will not update until it is reconnected.",
      lastSuccessfulSync: last,
      cta: { label: "Reconnect the ledger", url: "/settings/ledger" },
    };
  }
  if (connection.status === "service_issue") {
    const at = connection.retryAt ?? null;
    const reason = connection.retryReason ?? null;
    const when = at
      ? at.getTime() > now.getTime()
        ? `next attempt at ${minuteUtc(at)}`
        : "next attempt due now"
      : null;
    const message =
      reason && when
        ? `${WAITING[reason]} (${when}); data may be up to 12 hours old.`
        : `The ledger is returning errors and syncs are being retried automatically${
            when ? ` (${when})` : ""
          }; data may be up to 12 hours old.`;
    return {
      severity: "warn",
      kind: "service_issue",
      message,
      lastSuccessfulSync: last,
      ...(at ? { nextAttemptAt: at.toISOString() } : {}),
      cta: { label: "View sync status", url: "/settings/ledger" },
    };
  }
  return null;
}
