/**
 * Calendar arithmetic on `YYYY-MM-DD` dates and `YYYY-MM` months. A calendar date is a label in
 * the organisation's timezone, never an instant: the arithmetic runs in UTC, where every day has
 * 24 hours, so no daylight-saving change can move a date.
 */

import { addDays, dayNumber } from "../forecasting/dates.ts";

const MONTH = /^(\d{4})-(\d{2})$/;

// One implementation of day arithmetic (forecasting/dates.ts: integer arithmetic, right for every
// year 0001–9999; `Date.UTC` read years 0–99 as 1900–1999).
export { addDays, dayNumber, isCalendarDate } from "../forecasting/dates.ts";

/** Whole days from `from` to `to` (negative when `to` is earlier). */
export function daysBetween(from: string, to: string): number {
  return dayNumber(to) - dayNumber(from);
}

/** `2026-03-10` -> `2026-03`. */
export function monthOf(date: string): string {
  return date.slice(0, 7);
}

function monthParts(month: string): { y: number; m: number } {
  const r = MONTH.exec(month);
  if (!r) throw new RangeError(`expected a YYYY-MM month, got "${month}"`);
  return { y: Number(r[1]), m: Number(r[2]) };
}

/** Months since year 0, for differences. */
export function monthIndex(month: string): number {
  const { y, m } = monthParts(month);
  return y * 12 + (m - 1);
}

export function monthOfIndex(index: number): string {
  const y = Math.floor(index / 12);
  const m = index - y * 12 + 1;
  return `${String(y).padStart(4, "0")}-${String(m).padStart(2, "0")}`;
}

export function addMonths(month: string, n: number): string {
  return monthOfIndex(monthIndex(month) + n);
}

/** Months from `from` to `to` (0 for the same month). */
export function monthsBetween(from: string, to: string): number {
  return monthIndex(to) - monthIndex(from);
}

/** First day of a month. */
export function firstDayOf(month: string): string {
  return `${month}-01`;
}

/** Last day of a month. */
export function lastDayOf(month: string): string {
  return addDays(firstDayOf(addMonths(month, 1)), -1);
}

/** Every month from `from` to `to` inclusive (empty when `to` is earlier). */
export function monthsFrom(from: string, to: string): string[] {
  const out: string[] = [];
  for (let i = monthIndex(from); i <= monthIndex(to); i++) out.push(monthOfIndex(i));
  return out;
}

/** ISO weekday: Monday 1 … Sunday 7. */
export function isoWeekday(date: string): number {
  // 1970-01-01 was a Thursday (ISO 4).
  return ((((dayNumber(date) + 3) % 7) + 7) % 7) + 1;
}

/** The Monday on or before `date`. */
export function mondayOf(date: string): string {
  return addDays(date, 1 - isoWeekday(date));
}

/**
 * First day of the financial year holding `date`, for a year ending on (endMonth, endDay). A
 * year-end day past the month's length (31 June, 29 February in a common year) means the
 * month's last day.
 */
export function financialYearStart(date: string, endMonth: number, endDay: number): string {
  const year = Number(date.slice(0, 4));
  const endIn = (y: number) => {
    const month = `${String(y).padStart(4, "0")}-${String(endMonth).padStart(2, "0")}`;
    const last = lastDayOf(month);
    const day = Math.min(endDay, Number(last.slice(8, 10)));
    return `${month}-${String(day).padStart(2, "0")}`;
  };
  // The year starts the day after the latest year end strictly before `date`.
  const thisYearsEnd = endIn(year);
  const previousEnd = thisYearsEnd < date ? thisYearsEnd : endIn(year - 1);
  return addDays(previousEnd, 1);
}

/** `date` as an ISO instant at midnight UTC, the ledger's encoding of a calendar date. */
export function dateTimeOf(date: string): string {
  return `${date}T00:00:00.000Z`;
}
