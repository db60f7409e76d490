import type { LRUCache } from "lru-cache";
import { boundedCache } from "../cache.ts";

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
 * `en-CA` formatters by options and zone, made once (building an `Intl.DateTimeFormat` costs far
 * more than formatting with one). `options` must be a constant object of the caller's module:
 * it is the key, by identity; each one's formatters are a bounded cache (src/cache.ts,
 * `zonedFormats`).
 */
const formats = new WeakMap<Intl.DateTimeFormatOptions, LRUCache<string, Intl.DateTimeFormat>>();

export function zonedFormat(
  options: Intl.DateTimeFormatOptions,
  timezone: string,
): Intl.DateTimeFormat {
  let byZone = formats.get(options);
  if (!byZone) {
    byZone = boundedCache("zonedFormats");
    formats.set(options, byZone);
  }
  let format = byZone.get(timezone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-CA", { ...options, timeZone: timezone });
    byZone.set(timezone, format);
  }
  return format;
}

const DATE_PARTS: Intl.DateTimeFormatOptions = {
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
};

/** The calendar date (`YYYY-MM-DD`) of `instant` in `timezone`. */
export function localDate(instant: Date, timezone: string): string {
  let year = "";
  let month = "";
  let day = "";
  for (const part of zonedFormat(DATE_PARTS, timezone).formatToParts(instant)) {
    if (part.type === "year") year = part.value;
    else if (part.type === "month") month = part.value;
    else if (part.type === "day") day = part.value;
  }
  return `${year}-${month}-${day}`;
}
