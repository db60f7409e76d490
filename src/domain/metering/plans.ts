/**
 * The limits metering enforces, per plan. Pure data: the metering services read it, tests and
 * the benchmark may pass a modified copy to one metering instance (never per key).
 */

/** Queries per rolling 5-hour window held by a seat on each plan (the spec's Limits table). */
export const CREDIT_ALLOWANCE = {
  Free: 10,
  Pocket: 50,
  Wallet: 250,
  Vault: 1_000,
  Reserve: 5_000,
} as const;

/** A plan name; the same five names as the database's `PLANS`. */
export type PlanName = keyof typeof CREDIT_ALLOWANCE;

/**
 * Credits in one automatic top-up pack: half the plan's window allowance, so a pack covers a
 * busy half-window without turning top-up into the plan. Free has no pack: buying one needs a
 * card, and Free needs none (gap facts 1.5).
 */
export const TOP_UP_PACK: Record<PlanName, number | null> = {
  Free: null,
  Pocket: 25,
  Wallet: 125,
  Vault: 500,
  Reserve: 2_500,
};

/**
 * The legacy per-organisation daily bucket (`quota`, `X-Service-Quota-*`), by the billing
 * account's plan: the most one seat could use in a UTC day, allowance × 24 / 5. Informational:
 * query credits are what refuses calls.
 */
export const DAILY_QUOTA: Record<PlanName, number> = {
  Free: 48,
  Pocket: 240,
  Wallet: 1_200,
  Vault: 4_800,
  Reserve: 24_000,
};

/** Every limit one metering instance applies. */
export interface MeteringLimits {
  /** Requests admitted per key per endpoint in any sliding `burstWindowMs`. */
  burstLimit: number;
  burstWindowMs: number;
  /** A credit frees when its call is this old. */
  creditWindowMs: number;
  allowance: Record<PlanName, number>;
  topUpPack: Record<PlanName, number | null>;
  dailyQuota: Record<PlanName, number>;
}

export const BURST_LIMIT = 60;
export const BURST_WINDOW_MS = 60_000;
export const CREDIT_WINDOW_MS = 5 * 60 * 60 * 1000;

/** The production limits. */
export const DEFAULT_LIMITS: MeteringLimits = {
  burstLimit: BURST_LIMIT,
  burstWindowMs: BURST_WINDOW_MS,
  creditWindowMs: CREDIT_WINDOW_MS,
  allowance: { ...CREDIT_ALLOWANCE },
  topUpPack: { ...TOP_UP_PACK },
  dailyQuota: { ...DAILY_QUOTA },
};

/** DEFAULT_LIMITS with some values replaced (tests, benchmark). */
export function limitsWith(overrides: Partial<MeteringLimits>): MeteringLimits {
  return { ...DEFAULT_LIMITS, ...overrides };
}
