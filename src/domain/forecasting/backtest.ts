import { localDate } from "../timezones.ts";
import { type Cents, centsToDecimal, toCents } from "./cents.ts";
import { buildForecastModel, computeForecast, WEEKS } from "./compute-forecast.ts";
import { addDays, dateOf, dayNumber, mondayOnOrBefore } from "./dates.ts";
import type {
  AccountInfo,
  CustomerInfo,
  ForecastInput,
  OpenItem,
  RecurringHistoryEntry,
  SalesHistoryEntry,
  ScenarioKind,
} from "./types.ts";

/**
 * Backtesting: replays history. For each of the last N weeks taken as "now", the forecast is
 * computed from what was known then (documents as they stood: issued by then, paid and credited
 * by then, not yet voided) and each week's forecast closing cash is compared with the cash that
 * was actually there. docs/forecast.md, "Backtest", states the rules.
 */

/** A document's whole life, from which its state on any day is rebuilt. */
export interface DocumentHistory {
  id: string;
  type: "ACCREC" | "ACCPAY";
  /** The ledger status now. */
  status: string;
  contactId: string | null;
  contactName: string | null;
  accountId: string | null;
  issueDate: string;
  dueDate: string | null;
  total: string;
  currency: string;
  currencyRate: string | null;
  /** VOIDED documents: the day it was voided (its last update), after which it no longer counts. */
  voidedOn: string | null;
  /** Payments (not deleted) in the document's currency. */
  payments: { date: string; amount: string }[];
  /** Credit-note allocations in the document's currency. */
  credits: { date: string; amount: string }[];
}

/** Everything a backtest reads. */
export interface BacktestData {
  timezone: string;
  baseCurrency: string;
  /** The organisation's today: weeks ending before it are complete. */
  today: string;
  /** Cash now (Σ included bank accounts), the end point of the cash history. */
  currentCash: string;
  /** Signed movements of the included bank accounts (payments and bank lines), base currency. */
  movements: { date: string; amount: string }[];
  documents: DocumentHistory[];
  /** Spend and receive money lines of the included accounts (recurring history). */
  bankHistory: RecurringHistoryEntry[];
  customers: CustomerInfo[];
  accounts: AccountInfo[];
}

/** The methods compared: the scenarios and two naive baselines. */
export const BACKTEST_METHODS = ["BASE", "BEST", "WORST", "flat", "due_dates"] as const;
export type BacktestMethod = (typeof BACKTEST_METHODS)[number];

export interface BacktestResult {
  horizons: number[];
  /** Per method and horizon: mean absolute error of weekly closing cash ÷ average actual cash. */
  errorShare: Record<BacktestMethod, Record<number, number | null>>;
  /** Per horizon: the (now, week) pairs compared and the average actual closing cash. */
  samples: Record<number, { count: number; averageCash: string }>;
  nows: string[];
}

const OPEN = new Set(["AUTHORISED", "SUBMITTED", "PAID", "VOIDED"]);

/** An instant whose local date in `timezone` is `date` (noon UTC, moved if the zone is far off). */
export function instantOn(date: string, timezone: string): Date {
  for (const hour of [12, 2, 22, 6, 18]) {
    const t = new Date(`${date}T${String(hour).padStart(2, "0")}:00:00Z`);
    if (localDate(t, timezone) === date) return t;
  }
  throw new RangeError(`no instant of ${date} found in ${timezone}`);
}

/** Cash on every day from `from` to `to` (inclusive): cash now minus what moved after each day. */
export function dailyCash(data: BacktestData, from: string, to: string): Map<string, Cents> {
  const fromDay = dayNumber(from);
  const toDay = dayNumber(data.today);
  // Net movement per day, from `from` on.
  const net = new Map<number, Cents>();
  for (const m of data.movements) {
    const d = dayNumber(m.date);
    if (d <= fromDay || d > toDay) continue;
    net.set(d, (net.get(d) ?? 0) + toCents(m.amount));
  }
  const out = new Map<string, Cents>();
  let cash = toCents(data.currentCash);
  for (let d = toDay; d >= fromDay; d--) {
    if (d <= dayNumber(to)) out.set(dateOf(d), cash);
    cash -= net.get(d) ?? 0;
  }
  return out;
}

function sumUpTo(list: readonly { date: string; amount: string }[], cutoff: string): Cents {
  let s = 0;
  for (const x of list) if (x.date <= cutoff) s += toCents(x.amount);
  return s;
}

/**
 * The engine's input as known at the end of `cutoff`: documents issued by then, not voided by
 * then, with what was still due then (total − payments − credits dated by then) at their due
 * dates (later edits such as expected payment dates are unknowable); paid dates only for those
 * paid by then; bank lines up to then.
 */
export function inputAsOf(
  data: BacktestData,
  cutoff: string,
  startingCash: Cents,
  now: Date,
): Omit<ForecastInput, "scenario"> {
  const openItems: OpenItem[] = [];
  const salesHistory: SalesHistoryEntry[] = [];
  const recurringHistory: RecurringHistoryEntry[] = [];
  for (const d of data.documents) {
    if (d.issueDate > cutoff || !OPEN.has(d.status)) continue;
    if (d.status === "VOIDED" && (d.voidedOn === null || d.voidedOn <= cutoff)) continue;
    const total = toCents(d.total);
    const settled = sumUpTo(d.payments, cutoff) + sumUpTo(d.credits, cutoff);
    const due = total - settled;
    let lastPaid: string | null = null;
    for (const p of d.payments)
      if (p.date <= cutoff && (lastPaid === null || p.date > lastPaid)) lastPaid = p.date;
    const dueDate = d.dueDate ?? d.issueDate;
    if (due > 0) {
      openItems.push({
        id: d.id,
        source: d.type === "ACCREC" ? "LEDGER_INVOICE" : "LEDGER_BILL",
        ledgerStatus: d.status === "SUBMITTED" ? "SUBMITTED" : "AUTHORISED",
        amount: centsToDecimal(due),
        currency: d.currency,
        currencyRate: d.currencyRate,
        expectedDate: dueDate,
        dueDate,
        issueDate: d.issueDate,
        contactId: d.contactId,
        accountId: d.accountId,
        probability: null,
      });
    }
    if (d.type === "ACCREC" && d.contactId) {
      salesHistory.push({
        contactId: d.contactId,
        issueDate: d.issueDate,
        total: d.total,
        currency: d.currency,
        currencyRate: d.currencyRate,
        dueDate,
        paidDate: due <= 0 ? lastPaid : null,
        accountId: d.accountId,
      });
    } else if (d.type === "ACCPAY") {
      recurringHistory.push({
        kind: "bill",
        contactId: d.contactId,
        contactName: d.contactName,
        accountId: d.accountId,
        date: d.issueDate,
        dueDate,
        amount: d.total,
        currency: d.currency,
        currencyRate: d.currencyRate,
      });
    }
  }
  for (const b of data.bankHistory) if (b.date <= cutoff) recurringHistory.push(b);
  return {
    now,
    timezone: data.timezone,
    baseCurrency: data.baseCurrency,
    startingCash: centsToDecimal(startingCash),
    openItems,
    purchaseOrders: [],
    salesHistory,
    recurringHistory,
    customers: data.customers,
    accounts: data.accounts,
  };
}

/**
 * Runs the backtest over the `weeks` Mondays before the current week: each Monday is "now"
 * (cash as at the Sunday before, documents as they stood then), compared at each horizon h with
 * the actual cash at the end of week h, where that week is complete. Methods: the BASE, BEST
 * and WORST scenarios; `flat` (cash stays as it is); `due_dates` (open receivables and bills
 * exactly at their due dates, overdue ones in week 1, nothing else).
 */
export function runBacktest(
  data: BacktestData,
  opts: { weeks: number; horizons?: number[] },
): BacktestResult {
  const horizons = opts.horizons ?? [1, 4, 13];
  const todayDay = dayNumber(data.today);
  const thisMonday = mondayOnOrBefore(todayDay);
  const nows: string[] = [];
  for (let k = opts.weeks; k >= 1; k--) nows.push(dateOf(thisMonday - 7 * k));
  const first = nows[0] ?? data.today;
  const cash = dailyCash(data, addDays(first, -1), data.today);
  const lastComplete = todayDay - 1;
  const errors = new Map<string, number[]>();
  const actuals = new Map<number, number[]>();
  const record = (method: BacktestMethod, h: number, err: number) => {
    const key = `${method}|${h}`;
    const list = errors.get(key) ?? [];
    list.push(err);
    errors.set(key, list);
  };
  for (const monday of nows) {
    const cutoff = addDays(monday, -1);
    const start = cash.get(cutoff) ?? 0;
    const now = instantOn(monday, data.timezone);
    const input = inputAsOf(data, cutoff, start, now);
    const model = buildForecastModel(input);
    const closings = new Map<BacktestMethod, Cents[]>();
    for (const kind of ["BASE", "BEST", "WORST"] as const satisfies readonly ScenarioKind[]) {
      const r = computeForecast(
        { ...input, scenario: { id: kind, name: kind, kind, assumptions: {} } },
        model,
      );
      closings.set(
        kind,
        r.weeks.map((w) => toCents(w.closing)),
      );
    }
    closings.set("flat", new Array<Cents>(WEEKS).fill(start));
    const dueOnly = { ...input, salesHistory: [], recurringHistory: [], customers: [] };
    const due = computeForecast({
      ...dueOnly,
      scenario: { id: "due", name: "due", kind: "BASE", assumptions: {} },
    });
    closings.set(
      "due_dates",
      due.weeks.map((w) => toCents(w.closing)),
    );
    for (const h of horizons) {
      const weekEnd = dayNumber(monday) + 7 * h - 1;
      if (weekEnd > lastComplete) continue;
      const actual = cash.get(dateOf(weekEnd));
      if (actual === undefined) continue;
      actuals.set(h, [...(actuals.get(h) ?? []), actual]);
      for (const method of BACKTEST_METHODS) {
        const forecast = closings.get(method)?.[h - 1] ?? start;
        record(method, h, Math.abs(forecast - actual));
      }
    }
  }
  const errorShare = Object.fromEntries(
    BACKTEST_METHODS.map((m) => [m, {} as Record<number, number | null>]),
  ) as Record<BacktestMethod, Record<number, number | null>>;
  const samples: BacktestResult["samples"] = {};
  for (const h of horizons) {
    const acts = actuals.get(h) ?? [];
    const avg = acts.length > 0 ? acts.reduce((a, b) => a + b, 0) / acts.length : 0;
    samples[h] = { count: acts.length, averageCash: centsToDecimal(Math.round(avg)) };
    for (const m of BACKTEST_METHODS) {
      const errs = errors.get(`${m}|${h}`) ?? [];
      // A ratio for reading, not money: the mean error as a share of average cash.
      errorShare[m][h] =
        errs.length > 0 && avg !== 0
          ? errs.reduce((a, b) => a + b, 0) / errs.length / Math.abs(avg)
          : null;
    }
  }
  return { horizons, errorShare, samples, nows };
}
