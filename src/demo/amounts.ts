/**
 * Exact money for the demo generator. Amounts are integer cents (safe integers: sums stay far
 * below 2^53), unit prices integer ten-thousandths, quantities integer hundredths, discount
 * rates integer hundredths of a percent. Products and quotients go through BigInt so that no
 * float ever rounds a cent; the ledger's numbers are then written as decimal text directly.
 */

/** Rounds a/b to the nearest integer, halves away from zero (b > 0). */
export function divRound(a: bigint, b: bigint): bigint {
  if (a >= 0n) return (2n * a + b) / (2n * b);
  return -((-2n * a + b) / (2n * b));
}

/**
 * The ledger's line amount in cents: Quantity × UnitAmount × (100 − DiscountRate)/100, rounded
 * to the cent. `qtyH` hundredths, `unit4` ten-thousandths, `discH` hundredths of a percent.
 */
export function lineAmountCents(qtyH: number, unit4: number, discH = 0): number {
  const p = BigInt(qtyH) * BigInt(unit4) * BigInt(10_000 - discH);
  // qty/100 × unit/1e4 × (1e4 − d)/1e4 dollars = p / 1e10 dollars = p / 1e8 cents.
  return Number(divRound(p, 100_000_000n));
}

/** GST at 10% on an ex-tax amount, to the cent. */
export function gstExclusive(cents: number): number {
  return Number(divRound(BigInt(cents), 10n));
}

/** The GST inside a tax-inclusive amount at 10%: amount / 11, to the cent. */
export function gstInclusive(cents: number): number {
  return Number(divRound(BigInt(cents), 11n));
}

/** `cents × num / den`, to the cent (shares of a total, pro-rata GST, interest). */
export function prorate(cents: number, num: number, den: number): number {
  return Number(divRound(BigInt(cents) * BigInt(num), BigInt(den)));
}

/**
 * Converts a foreign amount to base currency at a ledger rate (foreign units per one base unit,
 * `rate6` in millionths): amount / rate, to the cent.
 */
export function toBase(cents: number, rate6: number): number {
  return Number(divRound(BigInt(cents) * 1_000_000n, BigInt(rate6)));
}

function fixed(value: number, scale: number, minDecimals: number): string {
  const negative = value < 0;
  const abs = Math.abs(value);
  const unit = 10 ** scale;
  const whole = Math.floor(abs / unit);
  let frac = String(abs - whole * unit).padStart(scale, "0");
  while (frac.length > minDecimals && frac.endsWith("0")) frac = frac.slice(0, -1);
  const text = frac.length > 0 ? `${whole}.${frac}` : String(whole);
  return negative ? `-${text}` : text;
}

/** Cents as a 2-dp decimal literal, as the ledger writes money: 1234.50, -3.07, 0.00. */
export function money2(cents: number): string {
  if (!Number.isSafeInteger(cents)) throw new Error(`not an integer cent amount: ${cents}`);
  return fixed(cents, 2, 2);
}

/** A unit price (ten-thousandths) with 2 to 4 decimals: 32.50, 14.3275. */
export function unit4Text(unit4: number): string {
  return fixed(unit4, 4, 2);
}

/** A quantity (hundredths) without needless zeros: 2, 37.5, 0.25. */
export function qtyText(qtyH: number): string {
  return fixed(qtyH, 2, 0);
}

/** A discount rate (hundredths of a percent) as the ledger's percentage: 10, 12.5. */
export function discountText(discH: number): string {
  return fixed(discH, 2, 0);
}

/** A currency rate (millionths), as the ledger writes it: 1.000000, 0.654321. */
export function rateText(rate6: number): string {
  return fixed(rate6, 6, 6);
}
