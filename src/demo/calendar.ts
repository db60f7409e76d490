/**
 * Calendar arithmetic on day numbers (days since 1970-01-01). The ledger encodes calendar dates
 * as midnight UTC, so a day number maps to its wire form without any timezone shift.
 */

const MS_PER_DAY = 86_400_000;

/** `YYYY-MM-DD` → day number. */
export function dayOf(isoDate: string): number {
  const [y, m, d] = isoDate.split("-").map(Number);
  return Math.round(Date.UTC(y ?? 1970, (m ?? 1) - 1, d ?? 1) / MS_PER_DAY);
}

/** Day number → `YYYY-MM-DD`. */
export function isoOf(day: number): string {
  return new Date(day * MS_PER_DAY).toISOString().slice(0, 10);
}

/** The ledger's calendar date: `/Date(1539993600000+0000)/`. */
export function msDate(day: number): string {
  return `/Date(${day * MS_PER_DAY}+0000)/`;
}

/** The ledger's instant (UpdatedDateUTC, CreatedDateUTC). */
export function msInstant(epochMs: number): string {
  return `/Date(${epochMs}+0000)/`;
}

/** Epoch milliseconds of a day's midnight UTC. */
export function dayStartMs(day: number): number {
  return day * MS_PER_DAY;
}

/** A calendar date's parts. */
export interface Ymd {
  y: number;
  /** 1–12 */
  m: number;
  d: number;
}

/** Day number → year, month (1–12) and day. */
export function ymdOf(day: number): Ymd {
  const dt = new Date(day * MS_PER_DAY);
  return { y: dt.getUTCFullYear(), m: dt.getUTCMonth() + 1, d: dt.getUTCDate() };
}

/** Year, month (1–12) and day → day number. */
export function dayFromYmd(y: number, m: number, d: number): number {
  return Math.round(Date.UTC(y, m - 1, d) / MS_PER_DAY);
}

/** Days in month `m` (1–12) of year `y`. */
export function daysInMonth(y: number, m: number): number {
  return new Date(Date.UTC(y, m, 0)).getUTCDate();
}

/** The same day of month `n` months later, clamped to the month's end (31 Jan + 1 → 28/29 Feb). */
export function addMonths(day: number, n: number, dayOfMonth?: number): number {
  const { y, m, d } = ymdOf(day);
  const total = y * 12 + (m - 1) + n;
  const ny = Math.floor(total / 12);
  const nm = (total % 12) + 1;
  return dayFromYmd(ny, nm, Math.min(dayOfMonth ?? d, daysInMonth(ny, nm)));
}

/** 0 = Sunday … 6 = Saturday. */
export function weekday(day: number): number {
  return (((day + 4) % 7) + 7) % 7;
}

/** `YYYY-MM` of a day: the month bucket used for seasonality and summaries. */
export function monthKey(day: number): string {
  return isoOf(day).slice(0, 7);
}

/** First day of the day's month. */
export function monthStart(day: number): number {
  const { y, m } = ymdOf(day);
  return dayFromYmd(y, m, 1);
}

/** Last day of the day's month. */
export function monthEnd(day: number): number {
  const { y, m } = ymdOf(day);
  return dayFromYmd(y, m, daysInMonth(y, m));
}

const MONTH_NAMES = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];

/** `23 April 2019`, as the ledger's report titles write dates. */
export function longDate(day: number): string {
  const { y, m, d } = ymdOf(day);
  return `${d} ${MONTH_NAMES[m - 1]} ${y}`;
}
