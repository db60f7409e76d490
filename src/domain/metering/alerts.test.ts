import { describe, expect, it } from "vitest";
import { billingAlertFor, ledgerAlertFor, trialDaysRemaining } from "./alerts.ts";

const NOW = new Date("2026-03-02T00:00:00.000Z");
const DAY = 86_400_000;

describe("alert rules", () => {
  it("counts trial days rounded up, 0 once ended", () => {
    const left = (ms: number) => trialDaysRemaining(new Date(NOW.getTime() + ms), NOW);
    expect([
      left(5 * DAY + 1),
      left(5 * DAY),
      left(DAY + 1),
      left(DAY),
      left(1),
      left(0),
      left(-DAY),
    ]).toEqual([6, 5, 2, 1, 1, 0, 0]);
  });

  it("raises billing alerts at their thresholds only", () => {
    const alert = (input: Parameters<typeof billingAlertFor>[0]) => {
      const a = billingAlertFor(input);
      return a ? `${a.severity} ${a.kind}` : null;
    };
    const credits = (used: number, limit = 100, remaining = Math.max(0, limit - used)) => ({
      limit,
      used,
      remaining,
      nextCreditInMinutes: remaining > 0 ? 0 : 5,
    });
    expect(alert({ status: "active", trialDaysRemaining: null, credits: credits(89) })).toBeNull();
    expect(alert({ status: "active", trialDaysRemaining: null, credits: credits(90) })).toBe(
      "warn credits_low",
    );
    expect(alert({ status: "active", trialDaysRemaining: null, credits: credits(100) })).toBe(
      "critical credits_exhausted",
    );
    // A full window with top-up credits left still warns, not critical.
    expect(
      alert({ status: "active", trialDaysRemaining: null, credits: credits(100, 100, 7) }),
    ).toBe("warn credits_low");
    expect(alert({ status: "trialing", trialDaysRemaining: 6, credits: null })).toBeNull();
    expect(alert({ status: "trialing", trialDaysRemaining: 5, credits: null })).toBe(
      "warn trial_ending",
    );
    expect(alert({ status: "trialing", trialDaysRemaining: 1, credits: null })).toBe(
      "critical trial_ending",
    );
    // trialDaysRemaining only matters while trialing.
    expect(alert({ status: "active", trialDaysRemaining: 1, credits: null })).toBeNull();
    for (const s of ["past_due", "canceled", "trial_ended"] as const) {
      expect(alert({ status: s, trialDaysRemaining: null, credits: credits(95) })).toBe(
        `critical ${s}`,
      );
    }
    expect(alert({ status: "trialing", trialDaysRemaining: 3, credits: credits(100) })).toBe(
      "critical credits_exhausted",
    );
    expect(alert({ status: "trialing", trialDaysRemaining: 3, credits: credits(95) })).toBe(
      "warn credits_low",
    );
  });

  it("maps ledger connection states to alerts", () => {
    const last = new Date("2026-03-01T06:00:00.000Z");
    expect(ledgerAlertFor({ status: "active" }, last)).toBeNull();
    expect(ledgerAlertFor(null, null)).toMatchObject({
      severity: "warn",
      kind: "no_connection",
      lastSuccessfulSync: null,
    });
    expect(ledgerAlertFor({ status: "disconnected" }, last)).toMatchObject({
      kind: "no_connection",
      lastSuccessfulSync: last.toISOString(),
    });
    expect(ledgerAlertFor({ status: "service_issue" }, last)).toMatchObject({
      severity: "warn",
      kind: "service_issue",
    });
    expect(ledgerAlertFor({ status: "reconnect_required" }, null)).toMatchObject({
      severity: "critical",
      kind: "reconnect_required",
    });
  });

  it("says why a retrying connection waits and when it tries again", () => {
    const last = new Date("2026-03-01T06:00:00.000Z");
    const now = new Date("2026-03-01T10:00:00.000Z");
    const midnight = new Date("2026-03-02T00:00:00.000Z");
    const budget = ledgerAlertFor(
      { status: "service_issue", retryAt: midnight, retryReason: "budget" },
      last,
      now,
    );
    expect(budget).toMatchObject({
      severity: "warn",
      kind: "service_issue",
      nextAttemptAt: midnight.toISOString(),
      lastSuccessfulSync: last.toISOString(),
    });
    expect(budget?.message).toContain("daily call limit");
    expect(budget?.message).toContain("next attempt at 2026-03-02 00:00 UTC");
    const breaker = ledgerAlertFor(
      {
        status: "service_issue",
        retryAt: new Date("2026-03-01T10:01:00.000Z"),
        retryReason: "unavailable",
      },
      last,
      now,
    );
    expect(breaker?.message).toContain("returning errors");
    expect(breaker?.message).toContain("next attempt at 2026-03-01 10:01 UTC");
    const overdue = ledgerAlertFor(
      {
        status: "service_issue",
        retryAt: new Date("2026-03-01T09:00:00.000Z"),
        retryReason: "error",
      },
      last,
      now,
    );
    expect(overdue?.message).toContain("next attempt due now");
    // Set by an operator (`ledger set-state retrying`): no time to tell.
    expect(ledgerAlertFor({ status: "service_issue" }, last, now)).not.toHaveProperty(
      "nextAttemptAt",
    );
    expect(ledgerAlertFor({ status: "disconnected" }, last, now)?.message).toContain(
      "no longer updates",
    );
  });
});
