import { type AccountOrder, mostUsedAccount } from "./account-choice.ts";
import { baseCents, type Cents } from "./cents.ts";
import { type CollectionCurve, fitCollectionCurves } from "./collection-curve.ts";
import { dateOf, dayNumber } from "./dates.ts";
import { billAsSalesEntry, salesCents, salesDays } from "./sales-history.ts";
import type { RecurringHistoryEntry, SalesHistoryEntry } from "./types.ts";

/**
 * Variable costs: the supplier bills no recurring stream explains (stock, materials, freight,
 * one-off purchases) forecast as the share of sales they have been for this business. Over the
 * last VARIABLE_COST_DAYS, ratio = Σ those bills ÷ Σ sales invoiced; each coming day's expected
 * sales (the same hazard model and customer run rate the inflow forecast uses, seasonal) bring
 * ratio × sales in bills that day, paid along the business's own bill-payment curve (of a bill's
 * amount, the share paid k days after its issue, learnt from the same bills as the collection
 * curve is from invoices). Open purchase orders are purchases already placed: they stand for the
 * first of the coming bills. docs/forecast.md, "Variable costs".
 *
 * Before, these bills were a trailing 91-day total spread evenly ("supplier run rate") plus a
 * hazard model per supplier billing often; both measured a volatile mix (a supplier's burst put
 * it in the run rate just before it calmed down, a yearly bill counted four times a year).
 */

/** The window the share of sales is measured over: a year, so every season weighs once. */
export const VARIABLE_COST_DAYS = 365;
/** Bills needed before the share is used (else the suppliers' run rate and hazard model). */
export const MIN_VARIABLE_BILLS = 6;

export interface VariableCosts {
  /** Σ bills ÷ Σ sales over the window. */
  ratio: number;
  billsTotal: Cents;
  bills: number;
  salesTotal: Cents;
  invoices: number;
  /** The window's first and last day. */
  from: string;
  to: string;
  /** The bills' most used account. */
  accountId: string | null;
  /** Share of a bill's amount paid within k days of its issue. */
  payment: CollectionCurve;
}

/**
 * The share of sales the bills of suppliers outside every recurring bill stream have been over
 * the last VARIABLE_COST_DAYS; null with fewer than MIN_VARIABLE_BILLS bills or no sales.
 */
export function fitVariableCosts(input: {
  today: string;
  baseCurrency: string;
  salesHistory: readonly SalesHistoryEntry[];
  recurringHistory: readonly RecurringHistoryEntry[];
  /** Bills of these suppliers are recurring streams' (or fitted elsewhere): left out. */
  excludedSuppliers: ReadonlySet<string>;
  order?: AccountOrder;
}): VariableCosts | null {
  const todayDay = dayNumber(input.today);
  const from = todayDay - VARIABLE_COST_DAYS;
  const inWindow = (day: number) => day > from && day <= todayDay;
  const bills: SalesHistoryEntry[] = [];
  let billsTotal = 0;
  for (const e of input.recurringHistory) {
    if (e.kind !== "bill" || (e.contactId && input.excludedSuppliers.has(e.contactId))) continue;
    if (!inWindow(dayNumber(e.date))) continue;
    const cents = baseCents(e.amount, e.currency, input.baseCurrency, e.currencyRate);
    if (cents <= 0) continue;
    billsTotal += cents;
    bills.push(billAsSalesEntry(e));
  }
  const days = salesDays(input.salesHistory);
  const totals = salesCents(input.salesHistory, input.baseCurrency);
  let salesTotal = 0;
  let invoices = 0;
  for (let i = 0; i < input.salesHistory.length; i++) {
    if (!inWindow(days.issue[i] ?? 0)) continue;
    salesTotal += totals[i] ?? 0;
    invoices += 1;
  }
  if (bills.length < MIN_VARIABLE_BILLS || salesTotal <= 0) return null;
  return {
    ratio: billsTotal / salesTotal,
    billsTotal,
    bills: bills.length,
    salesTotal,
    invoices,
    from: dateOf(from + 1),
    to: input.today,
    accountId: mostUsedAccount(
      bills.map((b) => b.accountId),
      input.order ?? new Map(),
    ),
    payment: fitCollectionCurves(bills, input.today, input.baseCurrency).organisation,
  };
}

/**
 * The bills expected on each coming day (index j = today + j, cents, not rounded): ratio × the
 * day's expected sales, the first ones taken as the open purchase orders already placed.
 */
export function variableBillsByDay(
  costs: VariableCosts,
  salesByDay: ArrayLike<number>,
  openOrders: Cents,
): Float64Array {
  const out = new Float64Array(salesByDay.length);
  let placed = openOrders;
  for (let j = 1; j < salesByDay.length; j++) {
    let v = costs.ratio * (salesByDay[j] ?? 0);
    const taken = Math.min(v, placed);
    v -= taken;
    placed -= taken;
    out[j] = v;
  }
  return out;
}
