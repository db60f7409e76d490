import type { Decimal } from "decimal.js";
import { canonical, money } from "../money.ts";
import { addDays, daysBetween } from "../summaries/calendar.ts";
import { type Cadence, cadencePeriodDays, detectCadence } from "./cadence.ts";
import { median } from "./stats.ts";

export type ChurnClass = "Active" | "At-risk" | "Churned";
export type AbcClass = "A" | "B" | "C";

/** Share of trailing revenue that makes class A, and A+B (the 80/20 rule, then 95%). */
export const ABC_A_SHARE = 0.8;
export const ABC_AB_SHARE = 0.95;
/** A customer is unclassified (warming up) until its first paid invoice is this old. */
export const ABC_MIN_HISTORY_DAYS = 90;

/** Retention factors of the projected LTV (spec). */
export const CHURN_RETENTION: Record<ChurnClass, string> = {
  Active: "1",
  "At-risk": "0.5",
  Churned: "0",
};

/** Churn thresholds: multiples of the customer's period, with floors in days. */
export const CHURN_RULES = {
  activeMultiple: 1.5,
  activeFloorDays: 14,
  atRiskMultiple: 3,
  atRiskFloorDays: 45,
  /** The period assumed for a customer with one order and no cadence. */
  defaultPeriodDays: 90,
  /** Bounds on an irregular customer's median interval used as its period. */
  minPeriodDays: 30,
  maxPeriodDays: 365,
} as const;

export const LIFETIME_MIN_YEARS = 1;
export const LIFETIME_MAX_YEARS = 5;

/**
 * Churn class from the time since the last order against the customer's period: the cadence's
 * nominal period; without a cadence, the median interval between orders (bounded to 30–365
 * days); with a single order, 90 days. Active while the gap is at most 1.5 periods (at least 14
 * days), At-risk up to 3 periods (at least 45 days), Churned beyond.
 */
export function churnClass(input: {
  lastOrderDate: string;
  cadence: Cadence;
  medianIntervalDays: number | null;
  asOfDate: string;
}): ChurnClass {
  const r = CHURN_RULES;
  const period =
    cadencePeriodDays(input.cadence) ??
    (input.medianIntervalDays === null
      ? r.defaultPeriodDays
      : Math.min(r.maxPeriodDays, Math.max(r.minPeriodDays, input.medianIntervalDays)));
  const gap = daysBetween(input.lastOrderDate, input.asOfDate);
  if (gap <= Math.max(r.activeMultiple * period, r.activeFloorDays)) return "Active";
  if (gap <= Math.max(r.atRiskMultiple * period, r.atRiskFloorDays)) return "At-risk";
  return "Churned";
}

/**
 * ABC classes by trailing-12-month revenue: customers are ranked by it (ties by id) and take A
 * while the revenue ranked before them is under 80% of the total, B under 95%, C after (so the
 * customer that crosses 80% is still A). Customers without a paid invoice at least 90 days old
 * are left unclassified (null): too little history to rank. When every classifiable customer
 * has zero revenue, all are C.
 */
export function classifyAbc(
  customers: readonly { id: string; trailingRevenue: Decimal; firstPaidDate: string | null }[],
  asOfDate: string,
): Map<string, AbcClass | null> {
  const out = new Map<string, AbcClass | null>();
  const cutoff = addDays(asOfDate, -ABC_MIN_HISTORY_DAYS);
  const ranked = customers
    .filter((c) => {
      const ok = c.firstPaidDate !== null && c.firstPaidDate <= cutoff;
      if (!ok) out.set(c.id, null);
      return ok;
    })
    .sort((a, b) => b.trailingRevenue.comparedTo(a.trailingRevenue) || (a.id < b.id ? -1 : 1));
  const total = ranked.reduce(
    (t, c) => t.plus(c.trailingRevenue.isNegative() ? 0 : c.trailingRevenue),
    money(0),
  );
  let before = money(0);
  for (const c of ranked) {
    if (total.isZero() || c.trailingRevenue.lte(0)) out.set(c.id, "C");
    else {
      const share = before.div(total);
      out.set(c.id, share.lt(ABC_A_SHARE) ? "A" : share.lt(ABC_AB_SHARE) ? "B" : "C");
      before = before.plus(c.trailingRevenue);
    }
  }
  return out;
}

/**
 * The organisation's expected customer lifetime: the median tenure of engaged customers (those
 * with a cadence), where tenure runs from the first order to the last for a churned customer
 * and to `asOfDate` otherwise (a lower bound: they are still customers). Clamped to [1, 5]
 * years; 1 when no customer is engaged. Rounded to 2 decimals.
 */
export function expectedLifetimeYears(
  engaged: readonly { firstOrderDate: string; lastOrderDate: string; churned: boolean }[],
  asOfDate: string,
): number {
  if (engaged.length === 0) return LIFETIME_MIN_YEARS;
  const tenures = engaged.map(
    (c) => daysBetween(c.firstOrderDate, c.churned ? c.lastOrderDate : asOfDate) / 365.25,
  );
  const years = Math.min(LIFETIME_MAX_YEARS, Math.max(LIFETIME_MIN_YEARS, median(tenures)));
  return Math.round(years * 100) / 100;
}

const round2 = (d: Decimal) => canonical(d.toDecimalPlaces(2));

/** historicalLtv = revenueAllTime × gross margin; null without a margin. */
export function historicalLtv(revenueAllTime: string, grossMargin: string | null): string | null {
  return grossMargin === null ? null : round2(money(revenueAllTime).times(grossMargin));
}

/**
 * projectedLtv = annual run-rate (trailing 12 months) × gross margin × expected lifetime ×
 * churn retention factor (Active 1, At-risk 0.5, Churned 0). Null without a margin.
 */
export function projectedLtv(input: {
  revenueTrailing12m: string;
  grossMargin: string | null;
  expectedLifetimeYears: number;
  churn: ChurnClass | null;
}): string | null {
  if (input.grossMargin === null) return null;
  const factor = input.churn === null ? "0" : CHURN_RETENTION[input.churn];
  return round2(
    money(input.revenueTrailing12m)
      .times(input.grossMargin)
      .times(input.expectedLifetimeYears)
      .times(factor),
  );
}

/** What the baseline run knows about one contact. */
export interface ContactHistory {
  contactId: string;
  isCustomer: boolean;
  /** Issue dates of the contact's AUTHORISED and PAID sales invoices (one per day is enough). */
  orderDates: string[];
  /** Number of those invoices (several on one day count separately). */
  orderCount: number;
  /** Issue date of the first PAID sales invoice. */
  firstPaidDate: string | null;
  paidInvoiceCount: number;
  /** ACTUAL inflows (amounts paid on PAID sales invoices, base currency): all time, 365 days. */
  revenueAllTime: string;
  revenueTrailing12m: string;
  /** Days late (paid date − due date) of each PAID sales invoice with both dates. */
  paymentDelays: number[];
  spendAllTime: string;
  billCount: number;
}

/** One contact's baseline. */
export interface ContactBaseline {
  contactId: string;
  isCustomer: boolean;
  firstOrderDate: string | null;
  lastOrderDate: string | null;
  firstPaidDate: string | null;
  orderCount: number;
  paidInvoiceCount: number;
  revenueAllTime: string;
  revenueTrailing12m: string;
  cadence: Cadence;
  cadenceConfidence: number;
  medianIntervalDays: number | null;
  paymentDelayMedianDays: string | null;
  churnClass: ChurnClass | null;
  abcClass: AbcClass | null;
  ltvCumulative: string | null;
  projectedLtv: string | null;
  spendAllTime: string;
  billCount: number;
}

export interface BaselineRun {
  contacts: ContactBaseline[];
  expectedLifetimeYears: number;
  customers: number;
  engagedCustomers: number;
}

/**
 * Every contact's baseline and the organisation's expected lifetime, from the contacts' history
 * and the organisation's gross margin (a fraction, or null without revenue). Customer fields
 * (cadence, churn, ABC, LTV) are computed for customers only; suppliers get their spend.
 */
export function computeBaselines(
  histories: readonly ContactHistory[],
  opts: { asOfDate: string; grossMargin: string | null },
): BaselineRun {
  const { asOfDate, grossMargin } = opts;
  const partial = histories.map((h) => {
    const dates = [...h.orderDates].sort();
    const first = dates[0] ?? null;
    const last = dates[dates.length - 1] ?? null;
    const cad = h.isCustomer ? detectCadence(dates) : null;
    const churn =
      h.isCustomer && last !== null && cad
        ? churnClass({
            lastOrderDate: last,
            cadence: cad.cadence,
            medianIntervalDays: cad.medianIntervalDays,
            asOfDate,
          })
        : null;
    const delay = h.paymentDelays.length > 0 ? median(h.paymentDelays) : null;
    return { h, first, last, cad, churn, delay };
  });
  const engaged = partial.filter((p) => p.cad && p.cad.cadence !== "NONE" && p.first && p.last);
  const lifetime = expectedLifetimeYears(
    engaged.map((p) => ({
      firstOrderDate: p.first ?? asOfDate,
      lastOrderDate: p.last ?? asOfDate,
      churned: p.churn === "Churned",
    })),
    asOfDate,
  );
  const abc = classifyAbc(
    partial
      .filter((p) => p.h.isCustomer)
      .map((p) => ({
        id: p.h.contactId,
        trailingRevenue: money(p.h.revenueTrailing12m),
        firstPaidDate: p.h.firstPaidDate,
      })),
    asOfDate,
  );
  const contacts = partial.map(({ h, first, last, cad, churn, delay }): ContactBaseline => {
    const customer = h.isCustomer;
    return {
      contactId: h.contactId,
      isCustomer: customer,
      firstOrderDate: first,
      lastOrderDate: last,
      firstPaidDate: h.firstPaidDate,
      orderCount: h.orderCount,
      paidInvoiceCount: h.paidInvoiceCount,
      revenueAllTime: canonical(h.revenueAllTime),
      revenueTrailing12m: canonical(h.revenueTrailing12m),
      cadence: cad?.cadence ?? "NONE",
      cadenceConfidence: cad?.confidence ?? 0,
      medianIntervalDays: cad?.medianIntervalDays ?? null,
      paymentDelayMedianDays: delay === null ? null : canonical(money(delay)),
      churnClass: churn,
      abcClass: customer ? (abc.get(h.contactId) ?? null) : null,
      ltvCumulative: customer ? historicalLtv(h.revenueAllTime, grossMargin) : null,
      projectedLtv:
        customer && churn !== null
          ? projectedLtv({
              revenueTrailing12m: h.revenueTrailing12m,
              grossMargin,
              expectedLifetimeYears: lifetime,
              churn,
            })
          : customer && grossMargin !== null
            ? "0"
            : null,
      spendAllTime: canonical(h.spendAllTime),
      billCount: h.billCount,
    };
  });
  return {
    contacts,
    expectedLifetimeYears: lifetime,
    customers: contacts.filter((c) => c.isCustomer).length,
    engagedCustomers: engaged.length,
  };
}
