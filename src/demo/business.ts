import type { Cadence, Habit } from "./population.ts";

/**
 * The family of demo businesses (`cashrunway demo --business KIND`): one generator, a few
 * behaviours changed, so the forecast is tried on businesses unlike the default one. Every
 * profile only shapes what is generated; nothing here is read by the forecast.
 */
export const BUSINESSES = [
  "roaster",
  "seasonal-retailer",
  "agency",
  "wholesaler",
  "project",
  "declining",
] as const;
export type Business = (typeof BUSINESSES)[number];

/** The default: the demo as it always was (a coffee roaster and wholesaler). */
export const DEFAULT_BUSINESS: Business = "roaster";

export interface BusinessProfile {
  kind: Business;
  /** Customer mix by cadence and payment habit; absent = the default demo's mix. */
  cadenceWeights?: Record<Cadence, number>;
  habitWeights?: Record<Habit, number>;
  /** Multiplies every customer's typical invoice. */
  invoiceScale: number;
  /** Extra chance (≤ 1) that a scheduled order happens, by calendar month (January first). */
  season?: readonly number[];
  /** Growth (> 0) or decline (< 0) of order volume, as a continuous yearly rate. */
  trendPerYear: number;
  /** Share of stock bills raised from a purchase order (the default demo: 0.6). */
  purchaseOrderShare: number;
  /** Open (not yet billed) purchase orders, as a share of stock bills (default 0.015). */
  openOrderShare: number;
}

const PROFILES: Record<Business, BusinessProfile> = {
  roaster: {
    kind: "roaster",
    invoiceScale: 1,
    trendPerYear: 0,
    purchaseOrderShare: 0.6,
    openOrderShare: 0.015,
  },
  // Most of the year's trade in the last quarter; a thin summer.
  "seasonal-retailer": {
    kind: "seasonal-retailer",
    cadenceWeights: {
      weekly: 0.1,
      fortnightly: 0.12,
      monthly: 0.3,
      quarterly: 0.1,
      annual: 0.08,
      irregular: 0.3,
    },
    invoiceScale: 0.8,
    season: [0.35, 0.35, 0.45, 0.5, 0.55, 0.5, 0.5, 0.55, 0.7, 0.85, 1, 1],
    trendPerYear: 0,
    purchaseOrderShare: 0.6,
    openOrderShare: 0.03,
  },
  // Retainers, growing fast, paid late.
  agency: {
    kind: "agency",
    cadenceWeights: {
      weekly: 0,
      fortnightly: 0.05,
      monthly: 0.55,
      quarterly: 0.15,
      annual: 0.05,
      irregular: 0.2,
    },
    habitWeights: { on_time: 0.2, a_bit_late: 0.35, chronically_late: 0.4, bad_debt: 0.05 },
    invoiceScale: 2.5,
    trendPerYear: 0.5,
    purchaseOrderShare: 0.1,
    openOrderShare: 0.005,
  },
  // Stock bought on purchase orders, paid on terms after delivery; many open orders.
  wholesaler: {
    kind: "wholesaler",
    cadenceWeights: {
      weekly: 0.1,
      fortnightly: 0.15,
      monthly: 0.35,
      quarterly: 0.15,
      annual: 0.05,
      irregular: 0.2,
    },
    habitWeights: { on_time: 0.35, a_bit_late: 0.4, chronically_late: 0.22, bad_debt: 0.03 },
    invoiceScale: 1.5,
    trendPerYear: 0.15,
    purchaseOrderShare: 0.95,
    openOrderShare: 0.06,
  },
  // Few large milestone invoices at irregular times.
  project: {
    kind: "project",
    cadenceWeights: {
      weekly: 0,
      fortnightly: 0,
      monthly: 0.05,
      quarterly: 0.2,
      annual: 0.15,
      irregular: 0.6,
    },
    invoiceScale: 5,
    trendPerYear: 0,
    purchaseOrderShare: 0.3,
    openOrderShare: 0.01,
  },
  // Order volume shrinking fast (the population still grows, as in every profile).
  declining: {
    kind: "declining",
    invoiceScale: 1,
    trendPerYear: -1.2,
    purchaseOrderShare: 0.6,
    openOrderShare: 0.01,
  },
};

export function businessProfile(kind: Business): BusinessProfile {
  return PROFILES[kind];
}

export function isBusiness(value: string): value is Business {
  return (BUSINESSES as readonly string[]).includes(value);
}

/**
 * The chance (≤ 1) that an order scheduled on `day` happens beyond the usual season: the trend
 * thins older orders of a growing business and newer ones of a declining one.
 */
export function orderIntensity(
  p: BusinessProfile,
  day: number,
  month: number,
  start: number,
  today: number,
): number {
  const season = p.season?.[month] ?? 1;
  const t = p.trendPerYear;
  const trend =
    t > 0 ? Math.exp((t * (day - today)) / 365) : t < 0 ? Math.exp((t * (day - start)) / 365) : 1;
  return season * trend;
}
