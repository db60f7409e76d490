/**
 * Calendar-date arithmetic on `YYYY-MM-DD` strings, through day numbers (days since
 * 1970-01-01). Pure and zone-free: a calendar date is a label, never an instant.
 */

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil): plain
 * integer arithmetic, no Date objects, because the engine converts hundreds of thousands of dates.
 */
function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

const digit = (s: string, i: number) => s.charCodeAt(i) - 48;

/** Day number of a `YYYY-MM-DD` date; throws on anything else. */
export function dayNumber(date: string): number {
  if (date.length !== 10 || date.charCodeAt(4) !== 45 || date.charCodeAt(7) !== 45) {
    throw new RangeError(`expected a YYYY-MM-DD date, got "${date}"`);
  }
  const y = digit(date, 0) * 1000 + digit(date, 1) * 100 + digit(date, 2) * 10 + digit(date, 3);
  const m = digit(date, 5) * 10 + digit(date, 6);
  const d = digit(date, 8) * 10 + digit(date, 9);
  if (!(y >= 0 && m >= 1 && m <= 12 && d >= 1 && d <= 31)) {
    throw new RangeError(`expected a YYYY-MM-DD date, got "${date}"`);
  }
  return daysFromCivil(y, m, d);
}

const pad2 = (n: number) => (n < 10 ? `0${n}` : `${n}`);

/** The `YYYY-MM-DD` date of a day number (Hinnant's civil_from_days). */
export function dateOf(day: number): string {
  const z = day + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  return `${String(y).padStart(4, "0")}-${pad2(m)}-${pad2(d)}`;
}

/**
 * True for a real calendar date in `YYYY-MM-DD` form, year 0001 to 9999 (`2026-02-30` is not;
 * nor is `0000-01-01`, which PostgreSQL's `date` does not accept).
 */
export function isCalendarDate(value: string): boolean {
  const m = ISO_DATE.exec(value);
  if (!m || m[1] === "0000") return false;
  const month = Number(m[2]);
  const day = Number(m[3]);
  // Out of range for dayNumber (which throws): answered here, so this never throws.
  if (month < 1 || month > 12 || day < 1 || day > 31) return false;
  return dateOf(dayNumber(value)) === value;
}

/** `date` plus `days` (negative goes back). */
export function addDays(date: string, days: number): string {
  return dateOf(dayNumber(date) + days);
}

/** ISO weekday of a day number: Monday 1 … Sunday 7. */
export function isoWeekday(day: number): number {
  // 1970-01-01 was a Thursday (ISO 4).
  return ((((day + 3) % 7) + 7) % 7) + 1;
}

/** The Monday on or before `day`. */
export function mondayOnOrBefore(day: number): number {
  return day - (isoWeekday(day) - 1);
}

/**
 * `date` plus `months` calendar months, keeping the day of the month of `anchorDay` (default:
 * `date`'s own) and clamping it to the month's length: 31 Jan + 1 month = 28 or 29 Feb, and
 * with anchor 31, 28 Feb + 1 month = 31 Mar.
 */
export function addMonths(date: string, months: number, anchorDay?: number): string {
  const m = ISO_DATE.exec(date);
  if (!m) throw new RangeError(`expected a YYYY-MM-DD date, got "${date}"`);
  const total = Number(m[1]) * 12 + (Number(m[2]) - 1) + months;
  const year = Math.floor(total / 12);
  const month = total - year * 12;
  const last =
    daysFromCivil(month === 11 ? year + 1 : year, month === 11 ? 1 : month + 2, 1) -
    daysFromCivil(year, month + 1, 1);
  const day = Math.min(anchorDay ?? Number(m[3]), last);
  return dateOf(daysFromCivil(year, month + 1, day));
}
