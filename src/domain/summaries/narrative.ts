import type { Decimal } from "decimal.js";
import { money } from "../money.ts";

/**
 * The 7-day net is "roughly flat" when its size is at most this share of the larger of the
 * inflow and the outflow (or when nothing moved); otherwise "net positive" or "net negative" by
 * its sign.
 */
export const FLAT_NET_SHARE = 0.05;

export type NetPhrase = "net positive" | "net negative" | "roughly flat";

export function netPhrase(inflow: string, outflow: string): NetPhrase {
  const i = money(inflow);
  const o = money(outflow);
  const net = i.minus(o);
  const scale = larger(i.abs(), o.abs());
  if (scale.isZero() || net.abs().lte(scale.times(FLAT_NET_SHARE))) return "roughly flat";
  return net.isPositive() ? "net positive" : "net negative";
}

function larger(a: Decimal, b: Decimal): Decimal {
  return a.gte(b) ? a : b;
}

/** `AUD 48,210.55` (two decimals, thousands separators, minus sign before the code). */
export function formatMoney(amount: string | Decimal, currency: string): string {
  const d = money(amount).toDecimalPlaces(2);
  const [whole, fraction = "00"] = d.abs().toFixed(2).split(".");
  const grouped = (whole ?? "0").replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return `${d.isNegative() ? "-" : ""}${currency} ${grouped}.${fraction}`;
}

/** What the daily summary's narrative is written from. */
export interface NarrativeFacts {
  currency: string;
  cashToday: string;
  bankAccounts: number;
  inflow: string;
  outflow: string;
  net: string;
  arTotal: string;
  overdueAmount: string;
  overdueCount: number;
  forecast: {
    endingCash: string;
    minClosingCash: string;
    minClosingWeekStart: string;
  } | null;
}

/**
 * Two to four sentences, always in this order, from the figures alone (no clock, no randomness):
 * 1. cash today; 2. the last 7 days, phrased by `netPhrase`; 3. receivables, when there are
 * any; 4. the 13-week forecast's end and low point, when a forecast exists.
 */
export function dailyNarrative(f: NarrativeFacts): string {
  const m = (v: string) => formatMoney(v, f.currency);
  const accounts = `${f.bankAccounts} bank account${f.bankAccounts === 1 ? "" : "s"}`;
  const sentences = [`Cash today is ${m(f.cashToday)} across ${accounts}.`];
  const phrase = netPhrase(f.inflow, f.outflow);
  sentences.push(
    `The last 7 days were ${phrase}: ${m(f.inflow)} in and ${m(f.outflow)} out (net ${m(f.net)}).`,
  );
  if (!money(f.arTotal).isZero()) {
    sentences.push(
      f.overdueCount > 0
        ? `Receivables stand at ${m(f.arTotal)}, of which ${m(f.overdueAmount)} across ${f.overdueCount} invoice${f.overdueCount === 1 ? " is" : "s is"} overdue.`
        : `Receivables stand at ${m(f.arTotal)}, none of it overdue.`,
    );
  }
  if (f.forecast) {
    sentences.push(
      `The 13-week forecast ends at ${m(f.forecast.endingCash)}, with a low of ${m(f.forecast.minClosingCash)} in the week of ${f.forecast.minClosingWeekStart}.`,
    );
  }
  return sentences.join(" ");
}
