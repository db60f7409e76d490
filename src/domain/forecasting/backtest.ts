import { localDate } from "../timezones.ts";
import { type Books, booksAsOf } from "./books.ts";
import { type Cents, centsToDecimal, toCents } from "./cents.ts";
import {
  buildForecastModel,
  computeForecast,
  type ForecastModel,
  WEEKS,
} from "./compute-forecast.ts";
import { addDays, dateOf, dayNumber, mondayOnOrBefore } from "./dates.ts";
import { IntervalCalibration } from "./intervals.ts";
import type { ForecastInput, ForecastResult } from "./types.ts";

/**
 * Backtesting: replays the served engine on history. At each origin date the books are rebuilt
 * as they stood at the end of that day (`booksAsOf`, the very model the live forecast reads as of
 * today), the cash then is today's cash less every movement since, and `computeForecast` runs on
 * exactly what the live path would have loaded. Each week's forecast closing cash is compared
 * with the cash actually there at its end. docs/forecast.md, "Backtest", states the rules.
 */

/** Everything a backtest reads. */
export interface BacktestData {
  books: Books;
  /** The organisation's today: weeks ending before it are complete. */
  today: string;
  /** Cash at the end of today (Σ included bank accounts with unreconciled lines; no override). */
  currentCash: string;
  /** Signed movements of the included bank accounts (payments and bank lines), base currency. */
  movements: readonly { date: string; amount: string }[];
}

/** The horizons scored: every week of the forecast. */
export const HORIZONS: readonly number[] = Array.from({ length: WEEKS }, (_, i) => i + 1);

/**
 * Origins replayed by default: 52 weeks, so the 13-week horizon is scored 40 times and its
 * interval, calibrated only on errors known at each origin, is checked on about 22 of them.
 */
export const DEFAULT_ORIGINS = 52;

/** What is compared: the served BASE forecast and two naive baselines. */
export const BACKTEST_METHODS = ["BASE", "flat", "due_dates"] as const;
export type BacktestMethod = (typeof BACKTEST_METHODS)[number];

/** One method's error at one horizon. Errors are forecast − actual (positive: too high). */
export interface HorizonScore {
  horizon: number;
  /** Origins whose week h is complete. */
  count: number;
  /** Mean absolute error of weekly closing cash. */
  mae: string;
  /** Mean of |error| ÷ |actual| over weeks whose actual cash is not 0; a ratio (0.05 = 5%). */
  mape: number | null;
  /** Mean signed error: positive = the forecast was too high on average. */
  bias: string;
}

export interface BacktestResult {
  today: string;
  /** The origin dates replayed, oldest first. */
  origins: string[];
  horizons: number[];
  /** Per horizon: the average actual closing cash (to read MAE against). */
  averageCash: Record<number, string>;
  scores: Record<BacktestMethod, HorizonScore[]>;
  /** BASE's signed errors (forecast − actual) per horizon, in origin order: for intervals. */
  residuals: Record<number, string[]>;
  /**
   * Per horizon: the share of weeks whose actual cash fell inside the 80% interval built, at
   * that origin, from the errors already known then (earlier origins whose week h had ended);
   * null with too few. `intervalChecks`: how many weeks were judged.
   */
  intervalCoverage: Record<number, number | null>;
  intervalChecks: Record<number, number>;
  /**
   * The naive baselines' signed errors per horizon, like `residuals`, only when asked for
   * (`keepBaselineResiduals`): bench/forecast-corrections.ts replays forecast combinations on them.
   */
  baselineResiduals?: Record<Exclude<BacktestMethod, "BASE">, Record<number, string[]>>;
}

/** An instant whose local date in `timezone` is `date` (noon UTC, moved if the zone is far off). */
export function instantOn(date: string, timezone: string): Date {
  for (const hour of [12, 2, 22, 6, 18]) {
    const t = new Date(`${date}T${String(hour).padStart(2, "0")}:00:00Z`);
    if (localDate(t, timezone) === date) return t;
  }
  throw new RangeError(`no instant of ${date} found in ${timezone}`);
}

/** Cash at the end of every day from `from` to `to` (inclusive): cash now less later movements. */
export function dailyCash(data: BacktestData, from: string, to: string): Map<string, Cents> {
  const fromDay = dayNumber(from);
  const toDay = dayNumber(data.today);
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

/** The engine's input at `origin`: the books as of the end of that day, the cash then. */
export function inputAtOrigin(
  data: BacktestData,
  origin: string,
  cashThen: Cents,
): Omit<ForecastInput, "scenario"> {
  return booksAsOf(
    data.books,
    origin,
    centsToDecimal(cashThen),
    instantOn(origin, data.books.timezone),
  );
}

/**
 * The served BASE forecast as it would have been computed at `origin`, with the input and the
 * model it was computed from (the baselines and the benches' breakdowns read them).
 */
export function baseAtOrigin(
  data: BacktestData,
  origin: string,
  cashThen: Cents,
): { input: Omit<ForecastInput, "scenario">; model: ForecastModel; result: ForecastResult } {
  const input = inputAtOrigin(data, origin, cashThen);
  const model = buildForecastModel(input);
  const result = computeForecast(
    { ...input, scenario: { id: "BASE", name: "Base", kind: "BASE", assumptions: {} } },
    model,
  );
  return { input, model, result };
}

/** The served BASE forecast as it would have been computed at `origin`. */
export function forecastAtOrigin(
  data: BacktestData,
  origin: string,
  cashThen: Cents,
): ForecastResult {
  return baseAtOrigin(data, origin, cashThen).result;
}

/** The Mondays of the `count` weeks before the one holding `today`, oldest first. */
export function backtestOrigins(today: string, count: number): string[] {
  const thisMonday = mondayOnOrBefore(dayNumber(today));
  const out: string[] = [];
  for (let k = count; k >= 1; k--) out.push(dateOf(thisMonday - 7 * k));
  return out;
}

const mean = (xs: readonly number[]) =>
  xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length;

/**
 * Runs the backtest over `origins` Mondays before the current week. At each origin (the books as
 * of the end of that Monday) week h ends on the Sunday 7h − 1 days later; it is scored when that
 * Sunday is before today. Methods: BASE (the served engine); `flat` (cash stays as it is);
 * `due_dates` (every open item on its due date, overdue ones in week 1, nothing else).
 */
export function runBacktest(
  data: BacktestData,
  opts: { origins: number; keepBaselineResiduals?: boolean },
): BacktestResult {
  const origins = backtestOrigins(data.today, opts.origins);
  const first = origins[0] ?? data.today;
  const cash = dailyCash(data, addDays(first, -1), data.today);
  const lastComplete = dayNumber(data.today) - 1;
  const signed = new Map<string, number[]>();
  const relative = new Map<string, number[]>();
  const actuals = new Map<number, number[]>();
  const push = <K>(m: Map<K, number[]>, k: K, v: number) => {
    const l = m.get(k);
    if (l) l.push(v);
    else m.set(k, [v]);
  };
  for (const origin of origins) {
    const start = cash.get(origin) ?? 0;
    const { input, result: base } = baseAtOrigin(data, origin, start);
    const due = computeForecast({
      ...input,
      salesHistory: [],
      recurringHistory: [],
      customers: [],
      scenario: {
        id: "due_dates",
        name: "Due dates",
        kind: "CUSTOM",
        assumptions: { basedOn: "BASE", receivableTiming: "due" },
      },
    });
    const closings: Record<BacktestMethod, Cents[]> = {
      BASE: base.weeks.map((w) => toCents(w.closing)),
      flat: new Array<Cents>(WEEKS).fill(start),
      due_dates: due.weeks.map((w) => toCents(w.closing)),
    };
    for (const h of HORIZONS) {
      const weekEnd = dayNumber(origin) + 7 * h - 1;
      if (weekEnd > lastComplete) continue;
      const actual = cash.get(dateOf(weekEnd));
      if (actual === undefined) continue;
      push(actuals, h, actual);
      for (const m of BACKTEST_METHODS) {
        const err = (closings[m][h - 1] ?? start) - actual;
        push(signed, `${m}|${h}`, err);
        if (actual !== 0) push(relative, `${m}|${h}`, Math.abs(err) / Math.abs(actual));
      }
    }
  }
  const scores = Object.fromEntries(
    BACKTEST_METHODS.map((m) => [
      m,
      HORIZONS.map((h): HorizonScore => {
        const errs = signed.get(`${m}|${h}`) ?? [];
        const rel = relative.get(`${m}|${h}`) ?? [];
        return {
          horizon: h,
          count: errs.length,
          mae: centsToDecimal(Math.round(mean(errs.map(Math.abs)))),
          // A ratio for reading, not money.
          mape: rel.length > 0 ? mean(rel) : null,
          bias: centsToDecimal(Math.round(mean(errs))),
        };
      }),
    ]),
  ) as Record<BacktestMethod, HorizonScore[]>;
  const averageCash: Record<number, string> = {};
  const residuals: Record<number, string[]> = {};
  const intervalCoverage: Record<number, number | null> = {};
  const intervalChecks: Record<number, number> = {};
  // Residuals are in origin order; origin i's week h is known from origin i + h on.
  const calibration = new IntervalCalibration(
    Object.fromEntries(HORIZONS.map((h) => [h, signed.get(`BASE|${h}`) ?? []])),
  );
  for (const h of HORIZONS) {
    averageCash[h] = centsToDecimal(Math.round(mean(actuals.get(h) ?? [])));
    residuals[h] = (signed.get(`BASE|${h}`) ?? []).map(centsToDecimal);
    const seq = calibration.sequentialCoverage(h);
    intervalCoverage[h] = seq.coverage;
    intervalChecks[h] = seq.judged;
  }
  return {
    today: data.today,
    origins,
    horizons: [...HORIZONS],
    averageCash,
    scores,
    residuals,
    intervalCoverage,
    intervalChecks,
    ...(opts.keepBaselineResiduals && {
      baselineResiduals: {
        flat: baselineErrors(signed, "flat"),
        due_dates: baselineErrors(signed, "due_dates"),
      },
    }),
  };
}

const baselineErrors = (signed: Map<string, number[]>, method: BacktestMethod) =>
  Object.fromEntries(
    HORIZONS.map((h) => [h, (signed.get(`${method}|${h}`) ?? []).map(centsToDecimal)]),
  );
