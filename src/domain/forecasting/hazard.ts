import { type AccountOrder, mostUsedAccount } from "./account-choice.ts";
import { baseCents, type Cents, medianCents } from "./cents.ts";
import { dayNumber } from "./dates.ts";
import { NO_DAY, salesByContact, salesCents, salesDays } from "./sales-history.ts";
import type { CustomerInfo, RecurringHistoryEntry, SalesHistoryEntry } from "./types.ts";

/**
 * Predicted customer orders. For each customer with a regular ordering cadence, the intervals
 * between past orders are smoothed into a distribution f of "days until the next order"; given
 * the days already elapsed since the last order (e), the first next order falls on day t > e
 * with probability f(t)/S(e) (S the survival function: the hazard model), and later orders
 * follow as a renewal process. Each expected order is valued at the customer's median order and
 * paid after the customer's median payment delay. docs/forecast.md, "Predicted orders".
 */

/** Orders needed before a cadence is trusted (two intervals). */
export const MIN_ORDERS = 3;
/** Intervals and orders considered: the most recent ones. */
const RECENT = 12;
/** Above this coefficient of variation of the intervals (1 = memoryless) a customer is bursty, not regular: no predictions. */
export const MAX_CADENCE_CV = 1;
/** Below this survival probability at today's elapsed time the customer has lapsed. */
export const LAPSED_SURVIVAL = 0.01;
/** Delay assumed when a customer has neither paid invoices nor due dates. */
const DEFAULT_DELAY_DAYS = 14;

/** What the model learnt about one customer. */
export interface CustomerModel {
  contactId: string;
  accountId: string | null;
  /** Orders (invoices grouped by day), oldest first, as day numbers. */
  orderDays: number[];
  intervals: number[];
  medianInterval: number;
  /** Median order, gross, base currency. */
  typicalOrder: Cents;
  /** Median days from order to payment. */
  paymentDelayDays: number;
  /** Kernel bandwidth in days. */
  bandwidth: number;
}

function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? (s[mid] ?? 0) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
}

/**
 * Fits the customers with a regular cadence: at least MIN_ORDERS orders (invoices of one day
 * are one order), intervals with a coefficient of variation up to MAX_CADENCE_CV, and an ACTIVE
 * contact. History after `today` is ignored. Sorted by contact id.
 */
export function fitCustomers(
  history: readonly SalesHistoryEntry[],
  customers: readonly CustomerInfo[],
  today: string,
  baseCurrency: string,
  order: AccountOrder = new Map(),
): CustomerModel[] {
  const active = new Set(customers.filter((c) => c.active).map((c) => c.contactId));
  const todayDay = dayNumber(today);
  const days = salesDays(history);
  const totals = salesCents(history, baseCurrency);
  const { contactIds, start, entries } = salesByContact(history);
  const models: CustomerModel[] = [];
  for (let k = 0; k < contactIds.length; k++) {
    const contactId = contactIds[k] as string;
    if (!active.has(contactId)) continue;
    const orders = new Map<number, Cents>();
    const delays: number[] = [];
    const terms: number[] = [];
    const accounts: (string | null)[] = [];
    for (let p = start[k] ?? 0; p < (start[k + 1] ?? 0); p++) {
      const i = entries[p] ?? 0;
      accounts.push(history[i]?.accountId ?? null);
      const day = days.issue[i] ?? 0;
      if (day > todayDay) continue;
      orders.set(day, (orders.get(day) ?? 0) + (totals[i] ?? 0));
      const paid = days.paid[i] ?? NO_DAY;
      const due = days.due[i] ?? NO_DAY;
      if (paid !== NO_DAY) delays.push(paid - day);
      if (due !== NO_DAY) terms.push(due - day);
    }
    if (orders.size < MIN_ORDERS) continue;
    const orderDays = [...orders.keys()].sort((a, b) => a - b);
    const intervals = orderDays
      .slice(1)
      .map((d, i) => d - (orderDays[i] ?? d))
      .slice(-RECENT);
    const mean = intervals.reduce((a, b) => a + b, 0) / intervals.length;
    const sd = Math.sqrt(intervals.reduce((a, b) => a + (b - mean) ** 2, 0) / intervals.length);
    if (mean <= 0 || sd / mean > MAX_CADENCE_CV) continue;
    const medianInterval = median(intervals);
    const recentOrders = orderDays.slice(-RECENT).map((d) => orders.get(d) ?? 0);
    const typicalOrder = medianCents(recentOrders);
    if (typicalOrder <= 0) continue;
    const delay =
      delays.length > 0
        ? median(delays.slice(-RECENT))
        : terms.length > 0
          ? median(terms.slice(-RECENT))
          : DEFAULT_DELAY_DAYS;
    models.push({
      contactId,
      accountId: mostUsedAccount(accounts, order),
      orderDays,
      intervals,
      medianInterval,
      typicalOrder,
      paymentDelayDays: Math.max(0, Math.min(180, Math.round(delay))),
      bandwidth: Math.max(2, 0.25 * medianInterval),
    });
  }
  return models.sort((a, b) =>
    a.contactId < b.contactId ? -1 : a.contactId > b.contactId ? 1 : 0,
  );
}

/**
 * Fits suppliers the same way from their bills (kind `bill` of the recurring history): at least
 * MIN_ORDERS bills, the same cadence test, valued at the median bill and paid after the median
 * term (due − issue). `exclude` names suppliers already forecast as fixed recurring streams;
 * `extraDays` adds known future orders (open purchase orders) so that prediction starts after
 * them and does not count them twice.
 */
export function fitSuppliers(
  history: readonly RecurringHistoryEntry[],
  exclude: ReadonlySet<string>,
  extraDays: ReadonlyMap<string, readonly number[]>,
  today: string,
  baseCurrency: string,
  order: AccountOrder = new Map(),
): CustomerModel[] {
  const todayDay = dayNumber(today);
  const byContact = new Map<string, RecurringHistoryEntry[]>();
  for (const e of history) {
    if (e.kind !== "bill" || !e.contactId || exclude.has(e.contactId)) continue;
    const list = byContact.get(e.contactId) ?? [];
    list.push(e);
    byContact.set(e.contactId, list);
  }
  const models: CustomerModel[] = [];
  for (const [contactId, entries] of byContact) {
    const orders = new Map<number, Cents>();
    const terms: number[] = [];
    for (const e of entries) {
      const day = dayNumber(e.date);
      if (day > todayDay) continue;
      orders.set(
        day,
        (orders.get(day) ?? 0) + baseCents(e.amount, e.currency, baseCurrency, e.currencyRate),
      );
      if (e.dueDate) terms.push(dayNumber(e.dueDate) - day);
    }
    if (orders.size < MIN_ORDERS) continue;
    const billed = [...orders.keys()].sort((a, b) => a - b);
    const orderDays = [...new Set([...billed, ...(extraDays.get(contactId) ?? [])])].sort(
      (a, b) => a - b,
    );
    const intervals = billed
      .slice(1)
      .map((d, i) => d - (billed[i] ?? d))
      .slice(-RECENT);
    const mean = intervals.reduce((a, b) => a + b, 0) / intervals.length;
    const sd = Math.sqrt(intervals.reduce((a, b) => a + (b - mean) ** 2, 0) / intervals.length);
    if (mean <= 0 || sd / mean > MAX_CADENCE_CV) continue;
    const medianInterval = median(intervals);
    const typicalOrder = medianCents(billed.slice(-RECENT).map((d) => orders.get(d) ?? 0));
    if (typicalOrder <= 0) continue;
    const delay = terms.length > 0 ? median(terms.slice(-RECENT)) : DEFAULT_DELAY_DAYS;
    models.push({
      contactId,
      accountId: mostUsedAccount(
        entries.map((e) => e.accountId),
        order,
      ),
      orderDays,
      intervals,
      medianInterval,
      typicalOrder,
      paymentDelayDays: Math.max(0, Math.min(180, Math.round(delay))),
      bandwidth: Math.max(2, 0.25 * medianInterval),
    });
  }
  return models.sort((a, b) =>
    a.contactId < b.contactId ? -1 : a.contactId > b.contactId ? 1 : 0,
  );
}

/**
 * The smoothed interval distribution f(1..maxDay): a Gaussian kernel of the model's bandwidth
 * around each observed interval, normalised over 1..cap (cap = longest interval + 4 bandwidths),
 * so f(t) = 0 beyond the cap, where the array ends (it ends at maxDay when that comes first):
 * read it with `?? 0`. Index 0 is unused (an order a day after itself is day 1).
 */
export function intervalDistribution(model: CustomerModel, maxDay: number): Float64Array {
  const h = model.bandwidth;
  const reach = Math.ceil(4 * h);
  const cap = Math.ceil(Math.max(...model.intervals) + 4 * h);
  // The kernel once per customer: exp() (2 × reach + 1) times instead of per day and interval.
  const kernel = new Float64Array(reach + 1);
  const inv = 1 / (2 * h * h);
  for (let k = 0; k <= reach; k++) kernel[k] = Math.exp(-(k * k) * inv);
  const all = new Float64Array(cap + 1);
  let total = 0;
  for (const d of model.intervals) {
    const lo = Math.max(1, Math.ceil(d - reach));
    const hi = Math.min(cap, Math.floor(d + reach));
    for (let t = lo; t <= hi; t++) {
      const k = Math.abs(t - d);
      // Intervals are whole days, so k is an integer index.
      const v = kernel[k] ?? 0;
      all[t] = (all[t] ?? 0) + v;
      total += v;
    }
  }
  // Normalised in place, and only as far as f can be non-zero: a lapsed customer's maxDay runs
  // years past the cap, and an array of it per customer and fit cost more than the fit itself.
  const n = Math.min(maxDay, cap);
  if (total > 0) for (let t = 1; t <= n; t++) all[t] = (all[t] ?? 0) / total;
  return all.subarray(0, n + 1);
}

/**
 * Expected orders per day for the next `days` days (index j = today + j, j ≥ 1): the first
 * order's conditional density f(e + j)/S(e), plus later orders by the renewal equation
 * m(j) = f(e+j)/S(e) + Σ_{i<j} m(i)·f(j−i). Empty (all zero) when the customer has lapsed
 * (S(e) < LAPSED_SURVIVAL).
 */
export function expectedOrdersByDay(
  model: CustomerModel,
  todayDay: number,
  days: number,
): Float64Array {
  const m = new Float64Array(Math.max(0, days) + 1);
  if (days <= 0) return m;
  const last = model.orderDays[model.orderDays.length - 1] ?? todayDay;
  const elapsed = Math.max(0, todayDay - last);
  const f = intervalDistribution(model, elapsed + days);
  let survival = 1;
  // f ends where it is zero from (intervalDistribution).
  for (let t = 1; t <= Math.min(elapsed, f.length - 1); t++) survival -= f[t] ?? 0;
  if (survival < LAPSED_SURVIVAL) return m;
  // f is 0 outside [first, last] (the smoothed intervals' support): only those lags can add.
  let firstLag = 1;
  while (firstLag <= days && (f[firstLag] ?? 0) === 0) firstLag++;
  let lastLag = Math.min(days, f.length - 1);
  while (lastLag >= firstLag && (f[lastLag] ?? 0) === 0) lastLag--;
  for (let j = 1; j <= days; j++) {
    let v = (f[elapsed + j] ?? 0) / survival;
    for (let i = Math.max(1, j - lastLag); i <= j - firstLag; i++)
      v += (m[i] ?? 0) * (f[j - i] ?? 0);
    m[j] = v;
  }
  return m;
}
