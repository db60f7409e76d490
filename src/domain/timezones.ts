/** True for a zone name the runtime's ICU knows (e.g. `Australia/Sydney`, `UTC`). */
export function isIanaTimezone(name: string): boolean {
  if (!/^[A-Za-z_]+(\/[A-Za-z0-9_+-]+)*$/.test(name)) return false;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/**
 * One formatter per zone: building an `Intl.DateTimeFormat` costs about a hundred times what
 * formatting with one does (measured: `localDate` was a third of the cash-position route's CPU
 * when it built one per call). Zones are few; the map is bounded all the same.
 */
const dateFormats = new Map<string, Intl.DateTimeFormat>();
const DATE_FORMATS_MAX = 512;

function dateFormat(timezone: string): Intl.DateTimeFormat {
  let format = dateFormats.get(timezone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-CA", {
      timeZone: timezone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
    });
    if (dateFormats.size >= DATE_FORMATS_MAX) dateFormats.clear();
    dateFormats.set(timezone, format);
  }
  return format;
}

/** The calendar date (`YYYY-MM-DD`) of `instant` in `timezone`. */
export function localDate(instant: Date, timezone: string): string {
  let year = "";
  let month = "";
  let day = "";
  for (const part of dateFormat(timezone).formatToParts(instant)) {
    if (part.type === "year") year = part.value;
    else if (part.type === "month") month = part.value;
    else if (part.type === "day") day = part.value;
  }
  return `${year}-${month}-${day}`;
}
