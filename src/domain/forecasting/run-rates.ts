import { type AccountOrder, mostUsedAccount } from "./account-choice.ts";
import { baseCents, type Cents } from "./cents.ts";
import { dayNumber } from "./dates.ts";
import type { RecurringStream } from "./recurring.ts";
import { NO_DAY, salesCents, salesDays } from "./sales-history.ts";
import type { RecurringHistoryEntry, SalesHistoryEntry } from "./types.ts";

/**
 * What no other model explains, at its recent pace: sales to customers without a fitted cadence
 * (new ones, those with one or two orders, bursty ones), bills of suppliers neither recurring
 * nor fitted, and spend/receive money outside every recurring stream. Each is the total of the
 * last RUN_RATE_DAYS, spread evenly over the coming days (the customers' run rate carried from
 * the window's middle by the business's order trend, compute-forecast.ts) and moved by the
 * organisation's median payment delay. Statistical, like the hazard model's predictions.
 * docs/forecast.md, "Run rates".
 */

/** The trailing window a run rate is measured over. */
export const RUN_RATE_DAYS = 91;

export type RunRateKind = "customers" | "suppliers" | "spend" | "receive";

export interface RunRate {
  kind: RunRateKind;
  direction: "in" | "out";
  /** Total of the trailing window, base currency. */
  windowTotal: Cents;
  /** Days from order (document or line date) to cash. */
  delayDays: number;
  accountId: string | null;
}

function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  // Typed-array sort: numeric and without a comparator call per comparison.
  const s = new Float64Array(values).sort();
  const mid = s.length >> 1;
  return s.length % 2 ? (s[mid] ?? 0) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
}

/** The run rates as at `today`; fitted customers and suppliers and recurring streams excluded. */
export function fitRunRates(input: {
  today: string;
  baseCurrency: string;
  salesHistory: readonly SalesHistoryEntry[];
  recurringHistory: readonly RecurringHistoryEntry[];
  streams: readonly RecurringStream[];
  fittedCustomers: ReadonlySet<string>;
  fittedSuppliers: ReadonlySet<string>;
  /** The chart of accounts' order, for ties in a rate's account (account-choice.ts). */
  order?: AccountOrder;
}): RunRate[] {
  const todayDay = dayNumber(input.today);
  const from = todayDay - RUN_RATE_DAYS;
  const inWindow = (day: number) => day > from && day <= todayDay;
  const out: RunRate[] = [];

  let sales = 0;
  const salesAccounts: (string | null)[] = [];
  const delays: number[] = [];
  const days = salesDays(input.salesHistory);
  const totals = salesCents(input.salesHistory, input.baseCurrency);
  input.salesHistory.forEach((e, i) => {
    const day = days.issue[i] ?? 0;
    const paid = days.paid[i] ?? NO_DAY;
    if (paid !== NO_DAY && day > todayDay - 365) delays.push(paid - day);
    if (!inWindow(day) || input.fittedCustomers.has(e.contactId)) return;
    sales += totals[i] ?? 0;
    salesAccounts.push(e.accountId);
  });
  if (sales > 0) {
    out.push({
      kind: "customers",
      direction: "in",
      windowTotal: sales,
      delayDays: Math.max(0, Math.round(median(delays))),
      accountId: mostUsedAccount(salesAccounts, input.order ?? new Map()),
    });
  }

  const recurringKeys = new Set(
    input.streams.map(
      (s) =>
        `${s.kind}|${s.contactId ?? `name:${(s.contactName ?? "").trim().toLowerCase()}`}|${s.accountId ?? ""}`,
    ),
  );
  const recurringSuppliers = new Set(
    input.streams.filter((s) => s.kind === "bill" && s.contactId).map((s) => s.contactId),
  );
  const sums: Record<
    "suppliers" | "spend" | "receive",
    { total: Cents; accounts: (string | null)[]; terms: number[] }
  > = {
    suppliers: { total: 0, accounts: [], terms: [] },
    spend: { total: 0, accounts: [], terms: [] },
    receive: { total: 0, accounts: [], terms: [] },
  };
  for (const e of input.recurringHistory) {
    const day = dayNumber(e.date);
    if (!inWindow(day)) continue;
    const who = e.contactId ?? `name:${(e.contactName ?? "").trim().toLowerCase()}`;
    if (recurringKeys.has(`${e.kind}|${who}|${e.accountId ?? ""}`)) continue;
    const cents = baseCents(e.amount, e.currency, input.baseCurrency, e.currencyRate);
    if (e.kind === "bill") {
      if (
        e.contactId &&
        (recurringSuppliers.has(e.contactId) || input.fittedSuppliers.has(e.contactId))
      )
        continue;
      sums.suppliers.total += cents;
      sums.suppliers.accounts.push(e.accountId);
      if (e.dueDate) sums.suppliers.terms.push(dayNumber(e.dueDate) - day);
    } else {
      sums[e.kind].total += cents;
      sums[e.kind].accounts.push(e.accountId);
    }
  }
  for (const kind of ["suppliers", "spend", "receive"] as const) {
    const s = sums[kind];
    if (s.total <= 0) continue;
    out.push({
      kind,
      direction: kind === "receive" ? "in" : "out",
      windowTotal: s.total,
      delayDays: kind === "suppliers" ? Math.max(0, Math.round(median(s.terms))) : 0,
      accountId: mostUsedAccount(s.accounts, input.order ?? new Map()),
    });
  }
  return out;
}

/**
 * Seasonality: how last year's sales in the coming 13 weeks compared with the 13 weeks before
 * them (the same calendar windows a year ago), clamped to [0.5, 2]. 1 without 15 months of
 * history. Applied to the statistical lines, whose pace is measured over the trailing window.
 */
export function seasonalFactor(
  sales: readonly SalesHistoryEntry[],
  today: string,
  baseCurrency: string,
): number {
  return seasonalEvidence(sales, today, baseCurrency).ratio;
}

/** What seasonalFactor measured: the ratio, the invoices in the two windows, their span. */
export interface SeasonalEvidence {
  ratio: number;
  invoices: number;
  /** Day numbers of the two windows' start and end (null: too little history, ratio 1). */
  from: number | null;
  to: number | null;
}

export function seasonalEvidence(
  sales: readonly SalesHistoryEntry[],
  today: string,
  baseCurrency: string,
): SeasonalEvidence {
  const t = dayNumber(today) - 364;
  let before = 0;
  let after = 0;
  let invoices = 0;
  let earliest = Number.POSITIVE_INFINITY;
  const days = salesDays(sales);
  const totals = salesCents(sales, baseCurrency);
  for (let i = 0; i < sales.length; i++) {
    const d = days.issue[i] ?? 0;
    if (d < earliest) earliest = d;
    if (d > t - RUN_RATE_DAYS && d <= t) {
      before += totals[i] ?? 0;
      invoices += 1;
    } else if (d > t && d <= t + RUN_RATE_DAYS) {
      after += totals[i] ?? 0;
      invoices += 1;
    }
  }
  if (earliest > t - RUN_RATE_DAYS || before <= 0)
    return { ratio: 1, invoices: 0, from: null, to: null };
  return {
    ratio: Math.min(2, Math.max(0.5, after / before)),
    invoices,
    from: t - RUN_RATE_DAYS + 1,
    to: t + RUN_RATE_DAYS,
  };
}
