/**
 * Query-credit window arithmetic. A (user, billing account) pair holds `limit` plan credits per
 * rolling window (5 hours): every admitted call makes one use, and a use stops counting once it
 * is a full window old (a use at `now - window` no longer counts; one at `now - window + 1 ms`
 * still does). Top-up credits are a prepaid balance spent only while the plan window is full;
 * they do not expire.
 */

import { isoInstant } from "../iso-instant.ts";

const MINUTE_MS = 60_000;

/** Where an admitted call's credit comes from. */
export type CreditSource = "plan" | "top_up";

/** What the store knows about one (user, billing account) window at an instant. */
export interface CreditWindowState {
  /** The seat's plan allowance per window. */
  limit: number;
  /** Plan uses inside the window. May exceed `limit` after a downgrade. */
  used: number;
  /** Prepaid top-up credits left. */
  topUpCredits: number;
  /**
   * The use whose expiry next makes a plan credit available: the oldest in the window while
   * `used < limit`, else the (used - limit + 1)-th oldest (after a downgrade several must expire).
   * Null for an empty window.
   */
  freesUseAt: Date | null;
  /** The newest plan use inside the window; null when the window is empty. */
  newestUseAt: Date | null;
}

/** The `usage` block of /status and the headers that mirror it. */
export interface CreditUsage {
  /** The seat's plan allowance per 5-hour window. */
  limit: number;
  /** Plan credits used in the window. */
  used: number;
  /** Credits a call can use now: unused plan credits plus top-up credits. */
  remaining: number;
  /** Prepaid top-up credits left (part of `remaining`). */
  topUpCredits: number;
  /** Minutes (rounded up) until a credit frees; 0 when one is available now. */
  nextCreditInMinutes: number;
  /** Minutes (rounded up) until every plan credit is back; 0 for an empty window. */
  fullResetInMinutes: number;
  /** When the window is empty again (ISO 8601); `now` for an empty window. */
  windowResetAt: string;
}

const ceilDiv = (ms: number, unit: number) => Math.max(0, Math.ceil(ms / unit));

/** Credits a call can use now. */
export function creditsRemaining(state: CreditWindowState): number {
  return Math.max(0, state.limit - state.used) + state.topUpCredits;
}

/** Milliseconds until `remaining` next grows (a plan credit frees); 0 for an empty window. */
export function msUntilCreditFrees(state: CreditWindowState, now: Date, windowMs: number): number {
  if (!state.freesUseAt) return 0;
  return Math.max(0, state.freesUseAt.getTime() + windowMs - now.getTime());
}

/** Milliseconds until a call can get a credit; 0 when one is available now. */
export function msUntilNextCredit(state: CreditWindowState, now: Date, windowMs: number): number {
  return creditsRemaining(state) > 0 ? 0 : msUntilCreditFrees(state, now, windowMs);
}

/** The usage figures for a window state. */
export function creditUsage(state: CreditWindowState, now: Date, windowMs: number): CreditUsage {
  const resetMs = state.newestUseAt
    ? Math.max(0, state.newestUseAt.getTime() + windowMs - now.getTime())
    : 0;
  return {
    limit: state.limit,
    used: state.used,
    remaining: creditsRemaining(state),
    topUpCredits: state.topUpCredits,
    nextCreditInMinutes: ceilDiv(msUntilNextCredit(state, now, windowMs), MINUTE_MS),
    fullResetInMinutes: ceilDiv(resetMs, MINUTE_MS),
    windowResetAt: isoInstant(now.getTime() + resetMs),
  };
}

/**
 * What an admission does with a window: spend a plan credit, spend a top-up credit, buy a pack
 * (automatic top-up) and spend from it, or refuse. `packSize` null = no automatic top-up.
 */
export type CreditDecision = "plan" | "top_up" | "buy_pack" | "refuse";

export function decideCredit(
  state: Pick<CreditWindowState, "limit" | "used" | "topUpCredits">,
  packSize: number | null,
): CreditDecision {
  if (state.used < state.limit) return "plan";
  if (state.topUpCredits > 0) return "top_up";
  if (packSize !== null && packSize > 0) return "buy_pack";
  return "refuse";
}

/** A recorded use, as the reference model keeps it. */
export interface CreditUse {
  at: Date;
  source: CreditSource;
}

/**
 * The window state computed from the full list of uses: the definition the store's incremental
 * bookkeeping must agree with (used by tests as the reference model).
 */
export function windowStateFromUses(
  uses: readonly CreditUse[],
  opts: { limit: number; topUpCredits: number; now: Date; windowMs: number },
): CreditWindowState {
  const cutoff = opts.now.getTime() - opts.windowMs;
  const inWindow = uses
    .filter((u) => u.source === "plan" && u.at.getTime() > cutoff)
    .map((u) => u.at.getTime())
    .sort((a, b) => a - b);
  const used = inWindow.length;
  const frees = inWindow[Math.max(0, used - opts.limit)];
  const newest = inWindow[used - 1];
  return {
    limit: opts.limit,
    used,
    topUpCredits: opts.topUpCredits,
    freesUseAt: frees === undefined ? null : new Date(frees),
    newestUseAt: newest === undefined ? null : new Date(newest),
  };
}

/**
 * The pack automatic top-up may buy for a seat, or null: top-up must be on, the subscription
 * `active` (a trial has no card on file; past-due, canceled or ended subscriptions cannot be
 * charged), and the seat's plan must have a pack.
 */
export function topUpPackFor(
  account: { autoTopUp: boolean; status: string },
  packSize: number | null,
): number | null {
  return account.autoTopUp && account.status === "active" && packSize ? packSize : null;
}
