import { money } from "../domain/money.ts";
import { zonedFormat } from "../domain/timezones.ts";

/**
 * An amount for people: thousands separators and two decimals, from the exact decimal string
 * (never through a float), e.g. `-1234567.5` -> `-1,234,567.50`.
 */
export function formatAmount(value: string): string {
  // Round first, so an amount that rounds to zero never shows as "-0.00".
  const d = money(value).toDecimalPlaces(2);
  const fixed = d.abs().toFixed(2);
  const [whole = "0", cents = "00"] = fixed.split(".");
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return `${d.isNegative() && !d.isZero() ? "-" : ""}${grouped}.${cents}`;
}

const INSTANT_PARTS: Intl.DateTimeFormatOptions = {
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
  hourCycle: "h23",
  timeZoneName: "short",
};

/**
 * `2026-03-02 14:04` in the organisation's zone (with `seconds`, `…:05`; with `zone`, the zone's
 * short name after it), or an em dash for never.
 */
export function formatInstant(
  value: string | Date | null | undefined,
  timezone = "UTC",
  opts: { seconds?: boolean; zone?: boolean } = {},
): string {
  if (!value) return "—";
  const d = typeof value === "string" ? new Date(value) : value;
  if (Number.isNaN(d.getTime())) return "—";
  const parts = zonedFormat(INSTANT_PARTS, timezone).formatToParts(d);
  const get = (t: string) => parts.find((p) => p.type === t)?.value ?? "";
  const time = `${get("hour")}:${get("minute")}${opts.seconds ? `:${get("second")}` : ""}`;
  return `${get("year")}-${get("month")}-${get("day")} ${time}${opts.zone ? ` ${get("timeZoneName")}` : ""}`;
}

/** `cr_live_abcdefghjk_…`: the public part of a key as people recognise it. */
export function displayPrefix(family: "cr_live" | "crun", prefix: string): string {
  return `${family}_${prefix}_…`;
}
