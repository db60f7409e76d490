import { and, asc, eq } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.ts";
import {
  billingAccounts,
  type Plan,
  type SubscriptionStatus,
  seats,
  users,
} from "../../db/schema/index.ts";
import { creditUsage } from "../../domain/metering/credit-window.ts";
import { DEFAULT_LIMITS } from "../../domain/metering/plans.ts";
import { pgCreditStore } from "../metering/credit-store.ts";

/** A user on the billing account, with the seat's plan. */
export interface BillingSeat {
  userId: string;
  email: string;
  plan: Plan;
}

/** The organisation's billing account as the billing page shows it. */
export interface BillingView {
  id: string;
  name: string;
  ownerUserId: string;
  plan: Plan;
  subscriptionStatus: SubscriptionStatus;
  trialEndsAt: Date | null;
  /** Whole days left of the trial (rounded up), only while trialing; else null. */
  trialDaysRemaining: number | null;
  autoTopUp: boolean;
  seats: BillingSeat[];
}

/** The billing account with its seats, or undefined when the organisation has none. */
export async function loadBilling(
  db: DbOrTx,
  billingAccountId: string,
  now: Date,
): Promise<BillingView | undefined> {
  const [account] = await db
    .select()
    .from(billingAccounts)
    .where(eq(billingAccounts.id, billingAccountId))
    .limit(1);
  if (!account) return undefined;
  const seatRows = await db
    .select({ userId: seats.userId, email: users.email, plan: seats.plan })
    .from(seats)
    .innerJoin(users, eq(users.id, seats.userId))
    .where(eq(seats.billingAccountId, billingAccountId))
    .orderBy(asc(seats.createdAt), asc(seats.userId));
  const trialing = account.subscriptionStatus === "trialing" && account.trialEndsAt;
  return {
    id: account.id,
    name: account.name,
    ownerUserId: account.ownerUserId,
    plan: account.plan,
    subscriptionStatus: account.subscriptionStatus,
    trialEndsAt: account.trialEndsAt,
    trialDaysRemaining:
      trialing && account.trialEndsAt
        ? Math.max(0, Math.ceil((account.trialEndsAt.getTime() - now.getTime()) / 86_400_000))
        : null,
    autoTopUp: account.autoTopUp,
    seats: seatRows,
  };
}

/** One seat's query credits in the current rolling window (the `usage` block of /status). */
export interface SeatUsage {
  used: number;
  limit: number;
  remaining: number;
  topUpCredits: number;
  nextCreditInMinutes: number;
  windowResetAt: string;
}

/** Usage of the current rolling window, per seat user. */
export interface WindowUsage {
  windowMs: number;
  bySeat: Map<string, SeatUsage>;
}

/**
 * Each seat's query credits in the rolling window, read from the metering store without
 * admitting anything: the same figures `/api/agent/status` reports as `usage` for that user.
 */
export async function usageInCurrentWindow(
  db: DbOrTx,
  input: { billing: BillingView; orgId: string; now: Date },
): Promise<WindowUsage> {
  const store = pgCreditStore(db);
  const windowMs = DEFAULT_LIMITS.creditWindowMs;
  const bySeat = new Map<string, SeatUsage>();
  for (const seat of input.billing.seats) {
    const { state } = await store.read({
      userId: seat.userId,
      billingAccountId: input.billing.id,
      orgId: input.orgId,
      now: input.now,
      windowMs,
      limit: DEFAULT_LIMITS.allowance[seat.plan],
    });
    bySeat.set(seat.userId, creditUsage(state, input.now, windowMs));
  }
  return { windowMs, bySeat };
}

/**
 * The plan that decides what a signed-in person may open in an organisation: their seat's plan
 * on the organisation's billing account, else the account's plan; null when the organisation has
 * no billing account (nothing is billed, nothing is gated).
 */
export async function viewerPlan(
  db: DbOrTx,
  input: { billingAccountId: string | null; userId: string },
): Promise<Plan | null> {
  if (!input.billingAccountId) return null;
  const [seat] = await db
    .select({ plan: seats.plan })
    .from(seats)
    .where(and(eq(seats.billingAccountId, input.billingAccountId), eq(seats.userId, input.userId)))
    .limit(1);
  if (seat) return seat.plan;
  const [account] = await db
    .select({ plan: billingAccounts.plan })
    .from(billingAccounts)
    .where(eq(billingAccounts.id, input.billingAccountId))
    .limit(1);
  return account?.plan ?? null;
}
