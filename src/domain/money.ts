import { Decimal } from "decimal.js";

/**
 * Money is exact: NUMERIC in the database, decimal.js here, canonical strings on the wire.
 * Precision is set far above any ledger amount so arithmetic never rounds silently.
 */
export const Money = Decimal.clone({
  precision: 60,
  rounding: Decimal.ROUND_HALF_EVEN,
  toExpNeg: -60,
  toExpPos: 60,
});
export type Money = Decimal;

export type DecimalInput = Decimal | string | number | bigint | null | undefined;

/** Parses a decimal from a string (or Decimal); empty or null is zero. Throws on garbage. */
export function money(value: DecimalInput): Decimal {
  if (value === null || value === undefined || value === "") return new Money(0);
  if (typeof value === "bigint") return new Money(value.toString());
  return new Money(value);
}

/**
 * The canonical decimal string of the API: no exponent, trailing zeros trimmed, `0` for empty or
 * null, never `-0`. Every decimal that leaves the service goes through here.
 */
export function canonical(value: DecimalInput): string {
  const d = money(value);
  if (d.isZero()) return "0";
  // toFixed() without arguments never uses exponent notation and keeps only significant digits.
  const s = d.toFixed();
  if (!s.includes(".")) return s;
  return s.replace(/\.?0+$/, "");
}

/** canonical() for nullable fields: null stays null. */
export function canonicalOrNull(value: DecimalInput): string | null {
  return value === null || value === undefined ? null : canonical(value);
}

/** Sums decimal inputs exactly. */
export function sum(values: Iterable<DecimalInput>): Decimal {
  let total = new Money(0);
  for (const v of values) total = total.plus(money(v));
  return total;
}

/** True when the string is a plain decimal literal (what NUMERIC and canonical() accept). */
export function isDecimalString(value: string): boolean {
  return /^-?\d+(\.\d+)?$/.test(value);
}

/**
 * True when `value` is an amount of money an operator may enter: a plain decimal of whole cents
 * (at most 2 decimals), within ±`max`. A sub-cent amount would be shown as entered by one view and
 * rounded to the cent by the forecast.
 */
export function isWholeCentsWithin(value: string, max: string): boolean {
  if (!/^-?\d+(\.\d{1,2})?$/.test(value)) return false;
  return money(value).abs().lte(max);
}
