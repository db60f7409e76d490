import { quoted } from "../quoted.ts";
import {
  addMonths,
  financialYearStart,
  firstDayOf,
  isCalendarDate,
  lastDayOf,
  monthOf,
} from "./calendar.ts";

/** The inclusive date range a summary covers. */
export interface SummaryWindow {
  from: string;
  to: string;
}

/** The first date a window can start on (`YYYY-MM-DD` strings of four-digit years sort). */
const FIRST_DATE = "0001-01-01";
const maxDate = (a: string, b: string) => (a > b ? a : b);

/** A window may span at most this many years (byMonth lists every month of it). */
export const MAX_WINDOW_YEARS = 20;

/** Why a window was refused: the parameter and a message for `invalid_parameter`. */
export interface WindowError {
  parameter: "dateFrom" | "dateTo";
  message: string;
}

/**
 * The window of a revenue or expenses summary. Defaults: `dateTo` = today (the organisation's
 * local date), `dateFrom` = the first day of the financial year holding `dateTo` (from the
 * organisation's year end). So no parameters = financial year to date.
 */
export function resolveWindow(input: {
  dateFrom?: string | undefined;
  dateTo?: string | undefined;
  today: string;
  yearEndMonth: number;
  yearEndDay: number;
}): SummaryWindow | WindowError {
  for (const p of ["dateFrom", "dateTo"] as const) {
    const v = input[p];
    if (v !== undefined && !isCalendarDate(v)) {
      return { parameter: p, message: `${p} must be a calendar date YYYY-MM-DD, got ${quoted(v)}` };
    }
  }
  const to = input.dateTo ?? input.today;
  // A financial year that began before the first calendar date (year 0000, which PostgreSQL's
  // `date` does not accept) is counted from that first date.
  const from =
    input.dateFrom ??
    maxDate(financialYearStart(to, input.yearEndMonth, input.yearEndDay), FIRST_DATE);
  if (from > to) {
    return {
      parameter: input.dateFrom !== undefined ? "dateFrom" : "dateTo",
      message: `dateFrom (${from}) is after dateTo (${to})`,
    };
  }
  const latestFrom = `${String(Number(to.slice(0, 4)) - MAX_WINDOW_YEARS).padStart(4, "0")}${to.slice(4)}`;
  if (from < latestFrom) {
    return {
      parameter: "dateFrom",
      message: `the window may span at most ${MAX_WINDOW_YEARS} years`,
    };
  }
  return { from, to };
}

export function isWindowError(w: SummaryWindow | WindowError): w is WindowError {
  return "parameter" in w;
}

/**
 * The gross-profit window: the last `n` full calendar months before the month of `today`. The
 * month in progress is left out (the "buffer"): its bills are still arriving, and a partial
 * month would swing the margin from day to day.
 */
export function lastFullMonths(today: string, n = 3): SummaryWindow {
  const current = monthOf(today);
  return { from: firstDayOf(addMonths(current, -n)), to: lastDayOf(addMonths(current, -1)) };
}
