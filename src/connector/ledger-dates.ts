/**
 * Ledger date encodings. Xero sends dates in the MS-AJAX form `/Date(1539993600000+0000)/`:
 * milliseconds since the epoch (UTC), with an optional offset suffix that is informational only.
 * Exports may also carry ISO strings (`2024-01-31`, `2024-01-31T00:00:00`, `…Z`, `…+13:00`).
 */

const MS_DATE = /^\/Date\((-?\d+)([+-]\d{4})?\)\/$/;
const ISO_DATE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * The years a ledger date may have: what PostgreSQL's `date` and ISO 8601's four digits hold.
 * (Not `Date.UTC(1, 0, 1)`: Date.UTC reads years 0–99 as 1900–1999.)
 */
const FIRST_MS = Date.parse("0001-01-01T00:00:00Z");
const AFTER_LAST_MS = Date.UTC(10000, 0, 1);

function validDay(y: number, m: number, d: number): boolean {
  if (y < 1 || m < 1 || m > 12 || d < 1) return false;
  const last = new Date(Date.UTC(y, m, 0)).getUTCDate();
  return d <= last;
}

/**
 * A calendar date field (`x-is-msdate`: Date, DueDate, FullyPaidOnDate, …) as `YYYY-MM-DD`.
 * Xero encodes these as midnight UTC of the organisation's local date, so the UTC calendar date
 * of the milliseconds *is* the date: it is never converted to another timezone (converting to a
 * negative-offset zone would move it back a day). An ISO string gives its own date part as
 * written, whatever time or offset follows. Returns undefined for anything else.
 */
export function parseLedgerDate(value: string): string | undefined {
  const ms = MS_DATE.exec(value);
  if (ms) {
    const d = msDate(ms[1]);
    return d ? d.toISOString().slice(0, 10) : undefined;
  }
  const iso = ISO_DATE.exec(value);
  if (iso && validDay(Number(iso[1]), Number(iso[2]), Number(iso[3]))) {
    return `${iso[1]}-${iso[2]}-${iso[3]}`;
  }
  return undefined;
}

/**
 * An instant field (`x-is-msdate-time`: UpdatedDateUTC, CreatedDateUTC) as a Date. The MS form's
 * milliseconds are already UTC; its offset suffix (`+1300`) only says where the writer was, so it
 * is ignored. ISO strings with `Z` or an offset are honoured; without one they are read as UTC,
 * since these fields are UTC by name. Returns undefined for anything else.
 */
export function parseLedgerInstant(value: string): Date | undefined {
  const ms = MS_DATE.exec(value);
  if (ms) return msDate(ms[1]);
  const iso = ISO_DATE.exec(value);
  if (!iso || !validDay(Number(iso[1]), Number(iso[2]), Number(iso[3]))) return undefined;
  const [, y, mo, d, h = "00", mi = "00", s = "00", frac = "", zone] = iso;
  let offset = "Z";
  if (zone && zone !== "Z") {
    const digits = zone.replace(":", "");
    offset = `${digits.slice(0, 3)}:${digits.slice(3)}`;
  }
  const fraction = frac ? frac.slice(0, 4).padEnd(4, "0") : ".000";
  const date = new Date(`${y}-${mo}-${d}T${h}:${mi}:${s}${fraction}${offset}`);
  return inRange(date.getTime()) ? date : undefined;
}

/** The instant of an MS date's milliseconds, if it falls in the years 0001–9999. */
function msDate(digits: string | undefined): Date | undefined {
  const ms = Number(digits);
  return inRange(ms) ? new Date(ms) : undefined;
}

function inRange(ms: number): boolean {
  return Number.isFinite(ms) && ms >= FIRST_MS && ms < AFTER_LAST_MS;
}
