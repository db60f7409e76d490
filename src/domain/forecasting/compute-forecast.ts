import { localDate } from "../timezones.ts";
import { accountOrder } from "./account-choice.ts";
import {
  assertSafeCents,
  baseCents,
  type Cents,
  centsToDecimal,
  decimalToMicro,
  MICRO,
  microToDecimal,
  toCents,
  toMicro,
  weighCents,
} from "./cents.ts";
import {
  type CollectionModel,
  expectedLateness,
  fitCollection,
  type LatenessSpread,
  latenessSpread,
  lowerBound,
  MIN_OWN_PAYMENTS,
  medianLateness,
  spreadCount,
  spreadWeight,
  unpaidWeight,
} from "./collection.ts";
import {
  type CollectionCurves,
  collectByWeek,
  curveFor,
  fitCollectionCurves,
} from "./collection-curve.ts";
import { type CustomerTrend, fitCustomerTrend, trendFactor } from "./customer-trend.ts";
import { dateOf, dayNumber, mondayOnOrBefore } from "./dates.ts";
import { type CustomerModel, expectedOrdersByDay, fitCustomers, fitSuppliers } from "./hazard.ts";
import { fitPartialPayments, type PartialPayments, remainderLags } from "./partial-payments.ts";
import { detectRecurring, projectRecurring, type RecurringStream } from "./recurring.ts";
import {
  fitRunRates,
  RUN_RATE_DAYS,
  type RunRate,
  type SeasonalEvidence,
  seasonalEvidence,
} from "./run-rates.ts";
import { billAsSalesEntry } from "./sales-history.ts";
import { rulesFor, type ScenarioRules } from "./scenarios.ts";
import { similarCustomersSpread } from "./similar-customers.ts";
import {
  describeLag,
  fitPurchaseOrderTiming,
  openOrderLag,
  type PurchaseOrderTiming,
} from "./timing.ts";
import type {
  Flow,
  ForecastInput,
  ForecastLine,
  ForecastResult,
  ForecastRunRate,
  ForecastSource,
  ForecastWeek,
  PredictedCustomer,
} from "./types.ts";
import {
  fitVariableCosts,
  VARIABLE_COST_DAYS,
  type VariableCosts,
  variableBillsByDay,
} from "./variable-costs.ts";

/**
 * The 13-week cash forecast. One pure, deterministic function of its input: no I/O, `now`
 * passed in. docs/forecast.md describes every rule; in short:
 *
 * - Weeks run Monday to Sunday in the organisation's timezone; week 1 holds today.
 * - opening(1) = starting cash; net = inflow − outflow; closing = opening + net;
 *   opening(n+1) = closing(n). Money is summed in integer cents, so the chain is exact.
 * - Inflows: open receivables (AUTHORISED, SUBMITTED), recurring receipts, manual and pipeline
 *   items (guaranteedInflow), and predicted customer orders (forecastInflow).
 * - Outflows: open bills, recurring payments not already represented by an open bill, purchase
 *   orders not billed nor suppressed, manual items.
 * - Items dated before today land in week 1 (overdue ones are listed in overdueItemIds); items
 *   after the 13th week are left out.
 */

/** Written into every snapshot; readers of version 1 (no inflow split) treat it as the spec says. */
export const ENGINE_VERSION = 2;
/** Weeks in the horizon. */
export const WEEKS = 13;

const OPEN_STATUSES = new Set(["AUTHORISED", "SUBMITTED"]);
const PO_OPEN_STATUSES = new Set(["AUTHORISED", "SUBMITTED"]);

/** What does not depend on the scenario: computed once, shared by every scenario of a run. */
export interface ForecastModel {
  today: string;
  todayDay: number;
  week1Start: number;
  horizonEnd: number;
  streams: RecurringStream[];
  customers: CustomerModel[];
  /** Per fitted customer: expected orders paid in each week. */
  weeklyOrders: Map<string, Float64Array>;
  /** Suppliers billing often but not on a fixed cadence (the same model). */
  suppliers: CustomerModel[];
  /** Per fitted supplier: expected bills paid in each week. */
  weeklyBills: Map<string, Float64Array>;
  /** What no other model explains, at its recent pace. */
  runRates: RunRate[];
  /** √(last year's coming quarter ÷ the quarter before it), 1 = no season; run-rates.ts. */
  season: number;
  /** What the seasonal ratio was measured on. */
  seasonEvidence: SeasonalEvidence;
  /** The fitted customers' pooled order trend (customer-trend.ts). */
  customerTrend: CustomerTrend;
  /** When customers pay, from their paid invoices. */
  collection: CollectionModel;
  /** How customers pay in parts, from their invoices paid on two or more days. */
  partialPayments: PartialPayments;
  /** When the business pays its suppliers' bills against their due date (the same model). */
  billTiming: CollectionModel;
  /** Share of a new invoice collected k days after issue, per customer and organisation. */
  curves: CollectionCurves;
  /** How long after delivery each supplier's purchase orders are paid. */
  purchaseOrderTiming: PurchaseOrderTiming;
  /**
   * Bills of suppliers outside every recurring stream as a learned share of the expected sales
   * (variable-costs.ts), and what they take out each week; null: too little history, the
   * suppliers' hazard model and run rate instead.
   */
  variableCosts: { fit: VariableCosts; weekly: Float64Array } | null;
}

/** Fits recurring streams and customer cadences as at `input.now`. */
export function buildForecastModel(input: Omit<ForecastInput, "scenario">): ForecastModel {
  const today = localDate(input.now, input.timezone);
  const todayDay = dayNumber(today);
  const week1Start = mondayOnOrBefore(todayDay);
  const horizonEnd = week1Start + WEEKS * 7 - 1;
  const streams = detectRecurring(input.recurringHistory, today, input.baseCurrency);
  const order = accountOrder(input.accounts);
  const customers = fitCustomers(
    input.salesHistory,
    input.customers,
    today,
    input.baseCurrency,
    order,
  );
  const recurringSuppliers = new Set(
    streams.filter((st) => st.kind === "bill" && st.contactId).map((st) => st.contactId as string),
  );
  const ordered = new Map<string, number[]>();
  let openOrders = 0;
  for (const po of input.purchaseOrders) {
    if (!PO_OPEN_STATUSES.has(po.status) || po.suppressedReason !== null) continue;
    openOrders += Math.max(
      0,
      baseCents(po.total, po.currency, input.baseCurrency, po.currencyRate),
    );
    if (!po.contactId) continue;
    const day = dayNumber(po.issueDate ?? po.deliveryDate ?? today);
    ordered.set(po.contactId, [...(ordered.get(po.contactId) ?? []), Math.min(day, todayDay)]);
  }
  // Bills outside recurring streams follow the expected sales (variable-costs.ts); the hazard
  // model of suppliers billing often and their run rate only stand in without enough history.
  const variableFit = fitVariableCosts({
    today,
    baseCurrency: input.baseCurrency,
    salesHistory: input.salesHistory,
    recurringHistory: input.recurringHistory,
    excludedSuppliers: recurringSuppliers,
    order,
  });
  const suppliers =
    variableFit !== null
      ? []
      : fitSuppliers(
          input.recurringHistory,
          recurringSuppliers,
          ordered,
          today,
          input.baseCurrency,
          order,
        );
  const curves = fitCollectionCurves(input.salesHistory, today, input.baseCurrency);
  const customerTrend = fitCustomerTrend(customers, todayDay);
  // Expected sales invoiced on each coming day (cents, before the season): what variable
  // costs follow.
  const salesByDay = new Float64Array(Math.max(0, horizonEnd - todayDay) + 1);
  // Customers' orders: paid along their collection curve (collection-curve.ts).
  const collected = (models: readonly CustomerModel[]) => {
    const out = new Map<string, Float64Array>();
    const days = horizonEnd - todayDay;
    // The same factor of each day for every customer: computed once, not once per customer.
    const trend = Float64Array.from({ length: Math.max(0, days) + 1 }, (_, j) =>
      trendFactor(customerTrend, j),
    );
    for (const c of models) {
      if (days <= 0) continue;
      const byDay = expectedOrdersByDay(c, todayDay, days);
      for (let j = 1; j <= days; j++) byDay[j] = (byDay[j] ?? 0) * (trend[j] ?? 1);
      for (let j = 1; j <= days; j++)
        salesByDay[j] = (salesByDay[j] ?? 0) + (byDay[j] ?? 0) * c.typicalOrder;
      const perWeek = collectByWeek(
        byDay,
        curveFor(curves, c.contactId),
        todayDay,
        week1Start,
        WEEKS,
      );
      if (perWeek.some((v) => v > 0)) out.set(c.contactId, perWeek);
    }
    return out;
  };
  const weekly = (models: readonly CustomerModel[]) => {
    const out = new Map<string, Float64Array>();
    for (const c of models) {
      // Orders placed up to (horizon end − delay) are paid within the horizon.
      const days = horizonEnd - todayDay - c.paymentDelayDays;
      if (days <= 0) continue;
      const byDay = expectedOrdersByDay(c, todayDay, days);
      const perWeek = new Float64Array(WEEKS);
      let any = false;
      for (let j = 1; j <= days; j++) {
        const v = byDay[j] ?? 0;
        if (v <= 0) continue;
        const w = Math.floor((todayDay + j + c.paymentDelayDays - week1Start) / 7);
        if (w < 0 || w >= WEEKS) continue;
        perWeek[w] = (perWeek[w] ?? 0) + v;
        any = true;
      }
      if (any) out.set(c.contactId, perWeek);
    }
    return out;
  };
  // One year's quarter-on-quarter ratio is a single, noisy observation of the season (and of
  // last year's growth): it is shrunk halfway to 1 in log terms (its square root).
  const seasonFit = seasonalEvidence(input.salesHistory, today, input.baseCurrency);
  const season = Math.sqrt(seasonFit.ratio);
  const runRates = fitRunRates({
    today,
    baseCurrency: input.baseCurrency,
    salesHistory: input.salesHistory,
    recurringHistory: input.recurringHistory,
    streams,
    fittedCustomers: new Set(customers.map((c) => c.contactId)),
    fittedSuppliers: new Set(suppliers.map((c) => c.contactId)),
    order,
  }).filter((r) => variableFit === null || r.kind !== "suppliers");
  const weeklyOrders = collected(customers);
  let variableCosts: ForecastModel["variableCosts"] = null;
  if (variableFit !== null) {
    // The expected sales: fitted customers' orders and the other customers' run rate, on the
    // trend as the inflow forecast carries it.
    const others = runRates.find((r) => r.kind === "customers")?.windowTotal ?? 0;
    const sales = salesByDay.map((v, j) =>
      j === 0 ? 0 : (v + (others / RUN_RATE_DAYS) * runRateTrend(customerTrend, j)) * season,
    );
    variableCosts = {
      fit: variableFit,
      weekly: collectByWeek(
        variableBillsByDay(variableFit, sales, openOrders),
        variableFit.payment,
        todayDay,
        week1Start,
        WEEKS,
      ),
    };
  }
  return {
    today,
    todayDay,
    week1Start,
    horizonEnd,
    streams,
    customers,
    weeklyOrders,
    suppliers,
    weeklyBills: weekly(suppliers),
    season,
    seasonEvidence: seasonFit,
    customerTrend,
    runRates,
    collection: fitCollection(input.salesHistory, today),
    partialPayments: fitPartialPayments(input.salesHistory, today),
    billTiming: fitCollection(
      input.recurringHistory.flatMap((e) =>
        e.kind === "bill" && e.contactId && e.dueDate ? [billAsSalesEntry(e)] : [],
      ),
      today,
    ),
    curves,
    purchaseOrderTiming: fitPurchaseOrderTiming(input.purchaseOrderHistory ?? []),
    variableCosts,
  };
}

const SOURCE_INDEX: Record<ForecastSource, number> = {
  LEDGER_INVOICE: 0,
  LEDGER_BILL: 1,
  PURCHASE_ORDER: 2,
  RECURRING: 3,
  MANUAL: 4,
  PIPELINE: 5,
  PREDICTED: 6,
};
const SOURCES_BY_NAME = (Object.keys(SOURCE_INDEX) as ForecastSource[]).sort();

/** An account's inflow and outflow per week, and the weeks it appears in. */
interface AccountAcc {
  inflow: Float64Array;
  outflow: Float64Array;
  used: Uint8Array;
}

/**
 * The accumulators of one computation. Cents are whole numbers in Float64Arrays (exact below
 * 2^53; checked on output): one typed slot per week, not an object per week and category,
 * because 100,000 items must place in well under a second.
 */
class Weeks {
  readonly guaranteed = new Float64Array(WEEKS);
  readonly forecast = new Float64Array(WEEKS);
  readonly outflow = new Float64Array(WEEKS);
  readonly weighted = new Uint8Array(WEEKS);
  readonly itemIds: string[][] = Array.from({ length: WEEKS }, () => []);
  readonly overdue: string[][] = Array.from({ length: WEEKS }, () => []);
  readonly lines: ForecastLine[][] = Array.from({ length: WEEKS }, () => []);
  readonly srcIn = new Float64Array(7 * WEEKS);
  readonly srcOut = new Float64Array(7 * WEEKS);
  readonly srcUsed = new Uint8Array(7 * WEEKS);
  readonly accounts = new Map<string, AccountAcc>();

  category(
    w: number,
    source: ForecastSource,
    inflow: boolean,
    accountId: string | null,
    cents: Cents,
  ) {
    const k = SOURCE_INDEX[source] * WEEKS + w;
    if (inflow) this.srcIn[k] = (this.srcIn[k] ?? 0) + cents;
    else this.srcOut[k] = (this.srcOut[k] ?? 0) + cents;
    this.srcUsed[k] = 1;
    if (accountId === null) return;
    let a = this.accounts.get(accountId);
    if (!a) {
      a = {
        inflow: new Float64Array(WEEKS),
        outflow: new Float64Array(WEEKS),
        used: new Uint8Array(WEEKS),
      };
      this.accounts.set(accountId, a);
    }
    if (inflow) a.inflow[w] = (a.inflow[w] ?? 0) + cents;
    else a.outflow[w] = (a.outflow[w] ?? 0) + cents;
    a.used[w] = 1;
  }
}

/** A predicted customer or supplier with its expected orders (millionths) and cents per week. */
interface PredictedOrders {
  prediction: PredictedCustomer;
  micro: Float64Array;
  cents: Float64Array;
}

/** predictedOrders per model: they do not depend on the scenario, so are valued once. */
const predictedByModel = new WeakMap<ForecastModel, PredictedOrders[]>();

/**
 * The fitted customers' and suppliers' expected orders per week (seasonal), valued at their
 * typical order: the customers and suppliers with any, customers first, each in contact order.
 * The same for every scenario of a model: computed on first use and kept with the model (a
 * model is never changed once built).
 */
/**
 * The other customers' run rate on day j, as a multiple of its window's daily pace: the window's
 * pace is its middle's (RUN_RATE_DAYS / 2 ago), and the business's order trend
 * (customer-trend.ts) carries it from there to day j. The inflow forecast and the expected sales
 * the variable costs follow both use it, so the two agree.
 */
function runRateTrend(trend: CustomerTrend, j: number): number {
  return trendFactor(trend, j + RUN_RATE_DAYS / 2);
}

function predictedOrders(model: ForecastModel): PredictedOrders[] {
  const known = predictedByModel.get(model);
  if (known) return known;
  const out: PredictedOrders[] = [];
  const predict = (
    models: readonly CustomerModel[],
    weeklyOf: Map<string, Float64Array>,
    inflow: boolean,
  ) => {
    for (const c of models) {
      const weekly = weeklyOf.get(c.contactId);
      if (!weekly) continue;
      const expectedOrders: string[] = [];
      const amounts: string[] = [];
      const micros = new Float64Array(WEEKS);
      const cents = new Float64Array(WEEKS);
      let any = false;
      for (let w = 0; w < WEEKS; w++) {
        const micro = toMicro((weekly[w] ?? 0) * model.season);
        const value = weighCents(c.typicalOrder, micro);
        expectedOrders.push(microToDecimal(micro));
        amounts.push(centsToDecimal(value));
        micros[w] = micro;
        cents[w] = value;
        if (value !== 0) any = true;
      }
      if (!any) continue;
      out.push({
        prediction: {
          contactId: c.contactId,
          direction: inflow ? "in" : "out",
          accountId: c.accountId,
          typicalOrder: centsToDecimal(c.typicalOrder),
          paymentDelayDays: c.paymentDelayDays,
          medianIntervalDays: c.medianInterval,
          expectedOrders,
          amounts,
        },
        micro: micros,
        cents,
      });
    }
  };
  predict(model.customers, model.weeklyOrders, true);
  predict(model.suppliers, model.weeklyBills, false);
  predictedByModel.set(model, out);
  return out;
}

/**
 * The day a receivable is expected under the scenario's rules, or null when it is doubtful (no
 * past payment of the customer, or of the organisation, was ever this late).
 */
function receivableDay(
  rules: ScenarioRules,
  model: ForecastModel,
  expectedDay: number,
  dueDay: number,
  overdueDays: number,
  contactId: string | null,
): number | null {
  let day = expectedDay;
  // A ledger expected date (differing from the due date) is the credit controller's word: kept.
  const explicit = expectedDay !== dueDay;
  if (rules.noLatePayers) day = Math.min(day, dueDay);
  else if (rules.receivableTiming === "history" && !explicit) {
    const late = expectedLateness(model.collection, contactId, overdueDays);
    if (late === null) return null;
    if (late !== undefined) day = dueDay + late;
  }
  day += rules.receivableShiftDays;
  if (rules.customerDelay)
    day = Math.max(day, dueDay + medianLateness(model.collection, contactId));
  return day;
}

/**
 * Computes one scenario's 13 weeks. `model` (from buildForecastModel on the same input) may be
 * passed to share the scenario-independent fitting between scenarios; the result is the same.
 */
export function computeForecast(
  input: ForecastInput,
  model: ForecastModel = buildForecastModel(input),
): ForecastResult {
  const rules = rulesFor(input.scenario.kind, input.scenario.assumptions);
  const base = input.baseCurrency;
  const { todayDay, week1Start, horizonEnd, today } = model;
  const accountNames = new Map(input.accounts.map((a) => [a.id, a.name]));
  const acc = new Weeks();
  const excluded: { itemId: string; reason: string }[] = [];

  /** Puts one line in its week (overdue and earlier dates in week 1); false beyond week 13. */
  const place = (
    itemId: string,
    source: ForecastSource,
    inflow: boolean,
    day: number,
    amount: Cents,
    fullAmount: Cents,
    weightMicro: number | null,
    probabilityWeighted: boolean,
    overdue: boolean,
    accountId: string | null,
    contactId: string | null,
    note?: string,
    fullText?: string,
  ): void => {
    if (day > horizonEnd) {
      excluded.push({ itemId, reason: "beyond the 13-week horizon" });
      return;
    }
    const w = day < week1Start ? 0 : Math.floor((day - week1Start) / 7);
    if (inflow) acc.guaranteed[w] = (acc.guaranteed[w] ?? 0) + amount;
    else acc.outflow[w] = (acc.outflow[w] ?? 0) + amount;
    (acc.itemIds[w] as string[]).push(itemId);
    if (overdue) (acc.overdue[w] as string[]).push(itemId);
    if (probabilityWeighted) acc.weighted[w] = 1;
    acc.category(w, source, inflow, accountId, amount);
    const line: ForecastLine = {
      itemId,
      source,
      direction: inflow ? "in" : "out",
      weekIndex: w,
      date: dateOf(day),
      amount: centsToDecimal(amount),
      fullAmount:
        fullText ?? (amount === fullAmount ? centsToDecimal(amount) : centsToDecimal(fullAmount)),
      accountId,
      contactId,
    };
    if (weightMicro !== null) line.weight = microToDecimal(weightMicro);
    if (overdue) line.overdue = true;
    if (note) line.note = note;
    (acc.lines[w] as ForecastLine[]).push(line);
  };

  /**
   * An open receivable without a ledger expected date, spread over the weeks its customer's
   * past payments at least as late as it already is fell in (each past payment one equal share;
   * collection.ts, latenessSpread): one line per week, weighted by its share. Shares beyond the
   * horizon are left out. Cents are allocated by cumulative rounding, so the lines of an item
   * sum to its (weighted) amount within the horizon exactly.
   */
  const spreadReceivable = (
    item: ForecastInput["openItems"][number],
    spread: LatenessSpread,
    baseDay: number,
    full: Cents,
    weightMicro: number | null,
    bill = false,
    remainder = false,
  ) => {
    const total = weightMicro !== null ? weighCents(full, weightMicro) : full;
    // A bill is owed whatever the past says: its never-paid share is not left out.
    const unpaidShares = bill ? 0 : spread.unpaid;
    const shares = spreadCount(spread, 0, spread.values.length) + unpaidShares;
    // The amount is shared by weight (1 each, or Kaplan–Meier's for a pool with open invoices);
    // the notes count the past invoices.
    const totalWeight =
      spreadWeight(spread, 0, spread.values.length) + (bill ? 0 : unpaidWeight(spread));
    // Values are sorted: the horizon's end, then each week's last day, is found by binary
    // search, so an organisation-wide history of any length costs 14 searches per receivable.
    const values = spread.values;
    const end = lowerBound(values, week1Start + 7 * WEEKS - baseDay);
    const beyond = spreadCount(spread, end, values.length);
    const whose = spread.own
      ? bill
        ? "the supplier's"
        : "the customer's"
      : spread.similar
        ? "the similar customers'"
        : "the organisation's";
    const noun = bill ? "bills" : remainder ? "invoices paid in parts" : "invoices";
    // A part-paid invoice's remainder is spread over how long after the first part the rest came.
    const late = remainder ? "with the rest at least this long after the first part" : "this late";
    if (end === 0) {
      excluded.push({ itemId: item.id, reason: "beyond the 13-week horizon" });
      return;
    }
    if (beyond + unpaidShares > 0)
      excluded.push({
        itemId: item.id,
        reason: `${beyond + unpaidShares} of ${shares} of ${whose} past ${noun} ${late} were paid after the 13-week horizon${bill ? "" : " or not at all"}`,
      });
    // Invariant per item, so computed once rather than per week.
    const overdue = dayNumber(item.expectedDate) < todayDay;
    const fullText = centsToDecimal(full);
    let from = 0;
    let allocated = 0;
    for (let w = 0; w < WEEKS && from < end; w++) {
      const to = lowerBound(values, week1Start + 7 * (w + 1) - baseDay);
      if (to <= from) continue;
      const n = spreadCount(spread, from, to);
      const share = spreadWeight(spread, from, to) / totalWeight;
      const day = baseDay + (values[from] ?? 0);
      from = to;
      const upTo = Math.round((total * spreadWeight(spread, 0, to)) / totalWeight);
      const amount = upTo - allocated;
      allocated = upTo;
      if (amount === 0) continue;
      place(
        item.id,
        bill ? "LEDGER_BILL" : "LEDGER_INVOICE",
        !bill,
        day,
        amount,
        full,
        toMicro(share),
        false,
        overdue,
        item.accountId,
        item.contactId,
        remainder
          ? `${n} of ${shares} of ${whose} past ${noun} had the rest paid this long after the first part`
          : `${n} of ${shares} of ${whose} past ${noun} at least this late were paid in this week${spread.similar ? ", each customer weighed by how like this one they are" : ""}`,
        fullText,
      );
    }
  };

  // Open receivables, bills, manual and pipeline items.
  for (const item of input.openItems) {
    const isDoc = item.source === "LEDGER_INVOICE" || item.source === "LEDGER_BILL";
    if (isDoc && !OPEN_STATUSES.has(item.ledgerStatus ?? "")) continue;
    const signed = baseCents(item.amount, item.currency, base, item.currencyRate);
    if (signed === 0) continue;
    const expectedDay = dayNumber(item.expectedDate);
    const dueDay = item.dueDate ? dayNumber(item.dueDate) : expectedDay;
    const full = signed < 0 ? -signed : signed;
    let inflow: boolean;
    let day = expectedDay;
    let weightMicro: number | null = null;
    let probabilityWeighted = false;
    if (item.source === "LEDGER_INVOICE") {
      if (signed < 0) continue;
      inflow = true;
      const overdueDays = todayDay - dueDay;
      if (rules.atRiskAfterDays !== null && overdueDays > rules.atRiskAfterDays) {
        excluded.push({ itemId: item.id, reason: `at risk: ${overdueDays} days overdue` });
        continue;
      }
      if (rules.haircutPercent > 0 && overdueDays > rules.haircutAfterDays) {
        weightMicro = toMicro((100 - rules.haircutPercent) / 100);
      }
      const byHistory =
        rules.receivableTiming === "history" &&
        !rules.noLatePayers &&
        !rules.customerDelay &&
        expectedDay === dueDay;
      // Part-paid: the remainder follows the first part by the lags of past invoices paid in
      // parts (partial-payments.ts), not the due date as a fresh invoice would.
      if (byHistory && item.firstPaidDate !== undefined) {
        const firstDay = dayNumber(item.firstPaidDate);
        const lags = remainderLags(model.partialPayments, item.contactId, todayDay - firstDay);
        if (lags) {
          const baseDay = firstDay + rules.receivableShiftDays;
          spreadReceivable(item, lags, baseDay, full, weightMicro, false, true);
          continue;
        }
      }
      // The same pool receivableDay's median is taken from (so never doubtful when found).
      let spread = byHistory
        ? latenessSpread(model.collection, item.contactId, overdueDays)
        : undefined;
      // The customer's own record does not decide (too few invoices, or none this late): the
      // customers like them do, not every payment of the organisation (similar-customers.ts).
      if (spread && !spread.own)
        spread = similarCustomersSpread(model.collection, item.contactId, overdueDays) ?? spread;
      if (spread && spread.values.length === 0 && spread.unpaid > 0) {
        excluded.push({
          itemId: item.id,
          reason: `none of the customer's ${spread.unpaid} past invoices this late was ever paid`,
        });
        continue;
      }
      if (spread && spreadCount(spread, 0, spread.values.length) + spread.unpaid > 1) {
        spreadReceivable(item, spread, dueDay + rules.receivableShiftDays, full, weightMicro);
        continue;
      }
      const placed = receivableDay(rules, model, expectedDay, dueDay, overdueDays, item.contactId);
      if (placed === null) {
        excluded.push({
          itemId: item.id,
          reason: `doubtful: ${overdueDays} days overdue, later than any past payment`,
        });
        continue;
      }
      day = placed;
    } else if (item.source === "LEDGER_BILL") {
      if (signed < 0) continue;
      inflow = false;
      if (rules.billStretchDays > 0) day = Math.max(expectedDay, dueDay + rules.billStretchDays);
      else if (
        rules.receivableTiming === "history" &&
        !rules.noLatePayers &&
        !rules.customerDelay &&
        expectedDay === dueDay
      ) {
        // Without a planned date, a bill is paid as this business has paid its bills against
        // their due dates (a few days early, some late), spread like a receivable; the
        // supplier's own record decides only with MIN_OWN_PAYMENTS bills paid later than this
        // one already is (docs/forecast.md, "Open bills").
        const spread = latenessSpread(
          model.billTiming,
          item.contactId,
          todayDay - dueDay,
          MIN_OWN_PAYMENTS,
        );
        if (spread && spread.values.length > 1) {
          spreadReceivable(item, spread, dueDay, full, null, true);
          continue;
        }
      }
    } else {
      inflow = signed > 0;
      if (item.source === "PIPELINE") {
        const rate = rules.pipelineConversionRate;
        weightMicro =
          rate !== null
            ? toMicro(rate)
            : item.probability !== null
              ? decimalToMicro(item.probability)
              : null;
        probabilityWeighted = weightMicro !== null && weightMicro !== MICRO;
      }
    }
    const amount = weightMicro !== null ? weighCents(full, weightMicro) : full;
    place(
      item.id,
      item.source,
      inflow,
      day,
      amount,
      full,
      weightMicro,
      probabilityWeighted,
      expectedDay < todayDay,
      item.accountId,
      item.contactId,
    );
  }

  // Purchase orders not billed and not matched to a bill: at their delivery or expected date,
  // plus how long after delivery this supplier (else the organisation) has been paying orders.
  for (const po of input.purchaseOrders) {
    if (!PO_OPEN_STATUSES.has(po.status) || po.suppressedReason !== null) continue;
    const amount = baseCents(po.total, po.currency, base, po.currencyRate);
    if (amount <= 0) continue;
    const delivered = dayNumber(po.deliveryDate ?? po.expectedArrivalDate ?? po.issueDate ?? today);
    // Still unbilled today: only past orders paid later than that many days after delivery tell
    // when (the receivables' rule, timing.ts openOrderLag).
    const timing = openOrderLag(model.purchaseOrderTiming, po.contactId, todayDay - delivered);
    if (timing === null) {
      excluded.push({
        itemId: po.id,
        reason: `doubtful: delivered ${todayDay - delivered} days ago and unbilled, later than any past order was paid`,
      });
      continue;
    }
    const day = delivered + timing.lagDays;
    place(
      po.id,
      "PURCHASE_ORDER",
      false,
      day,
      amount,
      amount,
      null,
      false,
      delivered < todayDay,
      po.accountId,
      po.contactId,
      describeLag(timing.lag, timing.lagDays),
    );
  }

  // Recurring receipts and payments, minus occurrences an open bill already stands for.
  const openBills = input.openItems
    .filter((i) => i.source === "LEDGER_BILL" && OPEN_STATUSES.has(i.ledgerStatus ?? ""))
    .map((i) => ({ contactId: i.contactId, issueDate: i.issueDate, cashDate: i.expectedDate }));
  const { occurrences } = projectRecurring(model.streams, today, dateOf(horizonEnd), openBills);
  for (const o of occurrences) {
    const s = o.stream;
    place(
      o.itemId,
      "RECURRING",
      s.direction === "in",
      dayNumber(o.cashDate),
      s.amount,
      s.amount,
      null,
      false,
      false,
      s.accountId,
      s.contactId,
      `${s.kind} ${s.contactName ?? "(no contact)"}, ${s.cadence.name}`,
    );
  }

  // Predicted customer orders (statistical: forecastInflow) and supplier bills; one line per
  // week and direction, the customers and suppliers behind it in `predictions`.
  const predictions: PredictedCustomer[] = [];
  const predicted = {
    in: { cents: new Float64Array(WEEKS), orders: new Float64Array(WEEKS) },
    out: { cents: new Float64Array(WEEKS), orders: new Float64Array(WEEKS) },
  };
  const addPredicted = (
    inflow: boolean,
    w: number,
    accountId: string | null,
    value: Cents,
    micro: number,
  ) => {
    if (inflow) acc.forecast[w] = (acc.forecast[w] ?? 0) + value;
    else acc.outflow[w] = (acc.outflow[w] ?? 0) + value;
    acc.category(w, "PREDICTED", inflow, accountId, value);
    const p = inflow ? predicted.in : predicted.out;
    p.cents[w] = (p.cents[w] ?? 0) + value;
    p.orders[w] = (p.orders[w] ?? 0) + micro;
  };
  for (const p of predictedOrders(model)) {
    for (let w = 0; w < WEEKS; w++) {
      const value = p.cents[w] ?? 0;
      if (value !== 0)
        addPredicted(
          p.prediction.direction === "in",
          w,
          p.prediction.accountId,
          value,
          p.micro[w] ?? 0,
        );
    }
    predictions.push(p.prediction);
  }
  // Run rates: the window's total spread over the coming days (order day + delay = cash day).
  const runRates: ForecastRunRate[] = [];
  const horizonDays = horizonEnd - todayDay;
  for (const rate of model.runRates) {
    let days: ArrayLike<number>;
    if (rate.kind === "customers") {
      // Other customers' sales, a day's worth each day, collected along the organisation's curve.
      days = collectByWeek(
        Float64Array.from({ length: horizonDays + 1 }, (_, j) =>
          runRateTrend(model.customerTrend, j),
        ),
        model.curves.organisation,
        todayDay,
        week1Start,
        WEEKS,
      );
    } else {
      const d = new Array<number>(WEEKS).fill(0);
      for (let j = 1; j <= horizonDays; j++) {
        const w = Math.floor((todayDay + j + rate.delayDays - week1Start) / 7);
        if (w >= 0 && w < WEEKS) d[w] = (d[w] ?? 0) + 1;
      }
      days = d;
    }
    const amounts = Array.from(days, (n) =>
      weighCents(
        rate.windowTotal,
        toMicro(
          (n * (rate.kind === "spend" || rate.kind === "receive" ? 1 : model.season)) /
            RUN_RATE_DAYS,
        ),
      ),
    );
    amounts.forEach((value, w) => {
      if (value !== 0) addPredicted(rate.direction === "in", w, rate.accountId, value, 0);
    });
    runRates.push({
      kind: rate.kind,
      direction: rate.direction,
      windowTotal: centsToDecimal(rate.windowTotal),
      windowDays: RUN_RATE_DAYS,
      delayDays: rate.delayDays,
      accountId: rate.accountId,
      amounts: amounts.map(centsToDecimal),
    });
  }
  if (model.variableCosts) {
    const { fit, weekly } = model.variableCosts;
    const amounts = Array.from(weekly, (v) => Math.round(v));
    amounts.forEach((value, w) => {
      if (value !== 0) addPredicted(false, w, fit.accountId, value, 0);
    });
    runRates.push({
      kind: "suppliers",
      direction: "out",
      windowTotal: centsToDecimal(fit.billsTotal),
      windowDays: VARIABLE_COST_DAYS,
      delayDays: 0,
      accountId: fit.accountId,
      amounts: amounts.map(centsToDecimal),
    });
  }
  for (const inflow of [true, false]) {
    const p = inflow ? predicted.in : predicted.out;
    for (let w = 0; w < WEEKS; w++) {
      const value = p.cents[w] ?? 0;
      if (value === 0) continue;
      const weekStart = dateOf(week1Start + 7 * w);
      const itemId = inflow ? `pred_${weekStart}` : `pred_out_${weekStart}`;
      (acc.itemIds[w] as string[]).push(itemId);
      acc.weighted[w] = 1;
      (acc.lines[w] as ForecastLine[]).push({
        itemId,
        source: "PREDICTED",
        direction: inflow ? "in" : "out",
        weekIndex: w,
        date: weekStart,
        amount: centsToDecimal(assertSafeCents(value)),
        fullAmount: centsToDecimal(value),
        weight: microToDecimal(p.orders[w] ?? 0),
        accountId: null,
        contactId: null,
        note: inflow
          ? "predicted customer orders (hazard model) and other customers' run rate; see predictions and runRates"
          : model.variableCosts
            ? "variable costs (bills as their learned share of the expected sales) and other spending's run rate; see runRates"
            : "predicted supplier bills (hazard model) and other spending's run rate; see predictions and runRates",
      });
    }
  }

  // The chain, in exact integer cents.
  const weeks: ForecastWeek[] = [];
  let opening = toCents(input.startingCash);
  let minClosing = Number.POSITIVE_INFINITY;
  let minIndex = 0;
  let totalIn = 0;
  let totalOut = 0;
  const accountIds = [...acc.accounts.keys()].sort();
  for (let w = 0; w < WEEKS; w++) {
    const guaranteed = assertSafeCents(acc.guaranteed[w] ?? 0);
    const forecast = assertSafeCents(acc.forecast[w] ?? 0);
    const outflow = assertSafeCents(acc.outflow[w] ?? 0);
    const inflow = assertSafeCents(guaranteed + forecast);
    const net = assertSafeCents(inflow - outflow);
    const closing = assertSafeCents(opening + net);
    totalIn = assertSafeCents(totalIn + inflow);
    totalOut = assertSafeCents(totalOut + outflow);
    if (closing < minClosing) {
      minClosing = closing;
      minIndex = w;
    }
    const accounts: ForecastWeek["categories"]["accounts"] = {};
    for (const id of accountIds) {
      const a = acc.accounts.get(id);
      if (!a?.used[w]) continue;
      accounts[id] = {
        name: accountNames.get(id) ?? "Unknown account",
        inflow: centsToDecimal(assertSafeCents(a.inflow[w] ?? 0)),
        outflow: centsToDecimal(assertSafeCents(a.outflow[w] ?? 0)),
      };
    }
    const sources: Partial<Record<ForecastSource, Flow>> = {};
    for (const source of SOURCES_BY_NAME) {
      const k = SOURCE_INDEX[source] * WEEKS + w;
      if (!acc.srcUsed[k]) continue;
      sources[source] = {
        inflow: centsToDecimal(assertSafeCents(acc.srcIn[k] ?? 0)),
        outflow: centsToDecimal(assertSafeCents(acc.srcOut[k] ?? 0)),
      };
    }
    weeks.push({
      weekStart: dateOf(week1Start + 7 * w),
      weekEnd: dateOf(week1Start + 7 * w + 6),
      opening: centsToDecimal(opening),
      inflow: centsToDecimal(inflow),
      guaranteedInflow: centsToDecimal(guaranteed),
      forecastInflow: centsToDecimal(forecast),
      outflow: centsToDecimal(outflow),
      net: centsToDecimal(net),
      closing: centsToDecimal(closing),
      itemIds: acc.itemIds[w] as string[],
      overdueItemIds: acc.overdue[w] as string[],
      probabilityWeighted: acc.weighted[w] === 1,
      categories: { accounts, sources },
    });
    opening = closing;
  }
  return {
    engineVersion: ENGINE_VERSION,
    asOfDate: today,
    startingCash: centsToDecimal(toCents(input.startingCash)),
    endingCash: centsToDecimal(opening),
    minClosingCash: centsToDecimal(minClosing),
    minClosingCashWeekIndex: minIndex,
    totalInflow: centsToDecimal(totalIn),
    totalOutflow: centsToDecimal(totalOut),
    weeks,
    lines: ([] as ForecastLine[]).concat(...acc.lines),
    predictions,
    runRates,
    excluded,
  };
}
