import { and, asc, desc, eq } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.ts";
import {
  billingAccounts,
  billingEvents,
  organisations,
  type Plan,
  type SubscriptionStatus,
  seats,
  users,
} from "../../db/schema/index.ts";
import { autoTopUpBlocker } from "../../domain/metering/auto-top-up.ts";
import { quoted } from "../../domain/quoted.ts";
import { InvalidParameterError, NotFoundError } from "../errors.ts";

/** A billing account as the operator commands print it. */
export interface BillingView {
  orgId: string;
  billingAccountId: string;
  plan: Plan;
  status: SubscriptionStatus;
  trialEndsAt: string | null;
  autoTopUp: boolean;
  /**
   * Why automatic top-up could never buy a pack in this state (then it cannot be turned on), or
   * null. See `autoTopUpBlocker`.
   */
  autoTopUpBlocker: string | null;
  seats: { userId: string; plan: Plan }[];
}

/** What `setBilling` changed besides the fields asked for. */
export interface SetBillingResult extends BillingView {
  /**
   * Set when the change made automatic top-up impossible (a plan without packs, an ended
   * subscription) while it was on: it was turned off, for this reason, in the same transaction.
   */
  autoTopUpTurnedOff: string | null;
}

export interface SetBillingInput {
  orgId: string;
  plan?: Plan;
  status?: SubscriptionStatus;
  /** `YYYY-MM-DD`: the trial ends at 00:00 UTC that day. */
  trialEnds?: string;
  autoTopUp?: boolean;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * Parses `YYYY-MM-DD` to 00:00 UTC of that day, refusing impossible dates and years before 1970
 * (a trial cannot end before the epoch, and years below 100 do not survive the round trip
 * through the database driver: `0001-01-01` came back as 2001).
 */
export function parseTrialEnd(value: string): Date {
  const d = new Date(`${value}T00:00:00.000Z`);
  if (
    !DATE.test(value) ||
    Number.isNaN(d.getTime()) ||
    d.toISOString().slice(0, 10) !== value ||
    value < "1970-01-01"
  ) {
    throw new InvalidParameterError(
      "trialEnds",
      `trial end must be a date YYYY-MM-DD from 1970-01-01 to 9999-12-31, got ${quoted(value)}`,
    );
  }
  return d;
}

async function accountIdOf(db: DbOrTx, orgId: string): Promise<string> {
  const [org] = await db
    .select({ billingAccountId: organisations.billingAccountId })
    .from(organisations)
    .where(eq(organisations.id, orgId));
  if (!org) throw new NotFoundError(`organisation ${orgId}`);
  if (!org.billingAccountId) throw new NotFoundError(`billing account of organisation ${orgId}`);
  return org.billingAccountId;
}

/** The organisation's billing account and its seats. */
export async function showBilling(db: DbOrTx, orgId: string): Promise<BillingView> {
  const accountId = await accountIdOf(db, orgId);
  const [account] = await db
    .select()
    .from(billingAccounts)
    .where(eq(billingAccounts.id, accountId));
  if (!account) throw new NotFoundError(`billing account ${accountId}`);
  const seatRows = await db
    .select({ userId: seats.userId, plan: seats.plan })
    .from(seats)
    .where(eq(seats.billingAccountId, accountId))
    .orderBy(asc(seats.userId));
  return {
    orgId,
    billingAccountId: accountId,
    plan: account.plan,
    status: account.subscriptionStatus,
    trialEndsAt: account.trialEndsAt ? account.trialEndsAt.toISOString() : null,
    autoTopUp: account.autoTopUp,
    autoTopUpBlocker: autoTopUpBlocker(
      { plan: account.plan, status: account.subscriptionStatus },
      seatRows.map((r) => r.plan),
    ),
    seats: seatRows,
  };
}

/**
 * Operator command for demos and tests (`cashrunway billing set`), and the billing screen's
 * automatic top-up toggle: changes the organisation's billing account and records one billing
 * event per changed field. A plan change moves the subscription and every seat on the account to
 * that plan (a Personal account has one seat; `setSeat` sets one seat). The change applies to the
 * next request: nothing is cached.
 *
 * Automatic top-up is refused (400, with the reason) in a state where it could never buy a pack
 * (`autoTopUpBlocker`: Free, a canceled or ended subscription). A change that leads there while
 * top-up is on, without asking for it, turns top-up off with that reason in its billing event.
 */
export async function setBilling(
  db: DbOrTx,
  input: SetBillingInput,
  now: Date,
): Promise<SetBillingResult> {
  const trialEndsAt = input.trialEnds === undefined ? undefined : parseTrialEnd(input.trialEnds);
  return db.transaction(async (tx) => {
    const accountId = await accountIdOf(tx, input.orgId);
    const [before] = await tx
      .select()
      .from(billingAccounts)
      .where(eq(billingAccounts.id, accountId))
      .for("update");
    if (!before) throw new NotFoundError(`billing account ${accountId}`);
    const status = input.status ?? before.subscriptionStatus;
    const trialEnd = trialEndsAt ?? before.trialEndsAt;
    if (status === "trialing" && !trialEnd) {
      throw new InvalidParameterError(
        "trialEnds",
        "a trialing subscription needs a trial end date",
      );
    }
    const plan = input.plan ?? before.plan;
    // A plan change moves every seat to the new plan; otherwise the seats keep theirs.
    const seatPlans =
      input.plan !== undefined
        ? []
        : (
            await tx
              .select({ plan: seats.plan })
              .from(seats)
              .where(eq(seats.billingAccountId, accountId))
          ).map((r) => r.plan);
    const blocker = autoTopUpBlocker({ plan, status }, seatPlans);
    if (blocker && input.autoTopUp === true) {
      throw new InvalidParameterError(
        "autoTopUp",
        `automatic top-up cannot be turned on: ${blocker}`,
      );
    }
    let autoTopUp = input.autoTopUp;
    let turnedOff: string | null = null;
    if (blocker && input.autoTopUp === undefined && before.autoTopUp) {
      autoTopUp = false;
      turnedOff = blocker;
    }
    const event = (
      kind: (typeof billingEvents.$inferInsert)["kind"],
      from: unknown,
      to: unknown,
      reason?: string,
    ) =>
      tx.insert(billingEvents).values({
        billingAccountId: accountId,
        kind,
        orgId: input.orgId,
        details: { from, to, by: "operator", ...(reason ? { reason } : {}) },
        at: now,
      });
    if (input.plan !== undefined && input.plan !== before.plan) {
      await tx
        .update(billingAccounts)
        .set({ plan: input.plan })
        .where(eq(billingAccounts.id, accountId));
      await tx.update(seats).set({ plan: input.plan }).where(eq(seats.billingAccountId, accountId));
      await event("plan_changed", before.plan, input.plan);
    }
    if (input.status !== undefined && input.status !== before.subscriptionStatus) {
      await tx
        .update(billingAccounts)
        .set({ subscriptionStatus: input.status })
        .where(eq(billingAccounts.id, accountId));
      await event("status_changed", before.subscriptionStatus, input.status);
    }
    if (trialEndsAt !== undefined && trialEndsAt.getTime() !== before.trialEndsAt?.getTime()) {
      await tx
        .update(billingAccounts)
        .set({ trialEndsAt })
        .where(eq(billingAccounts.id, accountId));
      await event(
        "trial_ends_changed",
        before.trialEndsAt?.toISOString() ?? null,
        trialEndsAt.toISOString(),
      );
    }
    if (autoTopUp !== undefined && autoTopUp !== before.autoTopUp) {
      await tx.update(billingAccounts).set({ autoTopUp }).where(eq(billingAccounts.id, accountId));
      await event("auto_top_up_changed", before.autoTopUp, autoTopUp, turnedOff ?? undefined);
    }
    return { ...(await showBilling(tx, input.orgId)), autoTopUpTurnedOff: turnedOff };
  });
}

/**
 * Gives a user a seat on the organisation's billing account at `plan`, changes its plan, or with
 * `plan: null` removes it (that user's keys then have no billable seat for the organisation).
 */
export async function setSeat(
  db: DbOrTx,
  input: { orgId: string; userId: string; plan: Plan | null },
  now: Date,
): Promise<BillingView> {
  return db.transaction(async (tx) => {
    const accountId = await accountIdOf(tx, input.orgId);
    const [user] = await tx.select({ id: users.id }).from(users).where(eq(users.id, input.userId));
    if (!user) throw new NotFoundError(`user ${input.userId}`);
    const where = and(eq(seats.billingAccountId, accountId), eq(seats.userId, input.userId));
    const [before] = await tx.select({ plan: seats.plan }).from(seats).where(where);
    if ((before?.plan ?? null) === input.plan) return showBilling(tx, input.orgId);
    if (input.plan === null) {
      await tx.delete(seats).where(where);
    } else {
      await tx
        .insert(seats)
        .values({
          billingAccountId: accountId,
          userId: input.userId,
          plan: input.plan,
          createdAt: now,
        })
        .onConflictDoUpdate({
          target: [seats.billingAccountId, seats.userId],
          set: { plan: input.plan },
        });
    }
    await tx.insert(billingEvents).values({
      billingAccountId: accountId,
      kind: "seat_changed",
      userId: input.userId,
      orgId: input.orgId,
      details: { from: before?.plan ?? null, to: input.plan, by: "operator" },
      at: now,
    });
    return showBilling(tx, input.orgId);
  });
}

/** The account's latest billing events, newest first (top-ups and operator changes). */
export async function listBillingEvents(db: DbOrTx, orgId: string, limit = 20) {
  const accountId = await accountIdOf(db, orgId);
  const rows = await db
    .select()
    .from(billingEvents)
    .where(eq(billingEvents.billingAccountId, accountId))
    .orderBy(desc(billingEvents.at), desc(billingEvents.id))
    .limit(limit);
  return rows.map((r) => ({
    kind: r.kind,
    userId: r.userId,
    credits: r.credits,
    details: r.details,
    at: r.at.toISOString(),
  }));
}
