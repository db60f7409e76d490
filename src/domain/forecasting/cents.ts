import { Money } from "../money.ts";

/**
 * The engine counts money in integer cents of the base currency, held in plain numbers: every
 * value is a whole number of cents within ±2^53 (±90 trillion dollars), where integer arithmetic
 * on numbers is exact, and the engine checks its totals stay there (`assertSafeCents`). Amounts
 * enter as decimal strings, parsed digit by digit (never through a float), and leave as
 * canonical decimal strings. (BigInt was exact too but allocated on every addition: on 100,000
 * items garbage collection took most of the time.)
 */
export type Cents = number;

/**
 * The largest amount the engine holds exactly: 2^53 − 1 cents. Amounts that enter the projection
 * (a ledger's, an operator's) are refused above it, so no forecast can fail on one.
 */
export const MAX_AMOUNT = "90071992547409.91";

/** A total or amount outside the engine's exact range: a fact about the data, not a bug. */
export class AmountRangeError extends RangeError {
  constructor() {
    super("amount beyond ±90 trillion: outside the forecast engine's exact range");
    this.name = "AmountRangeError";
  }
}

/** Throws when a cents value left the range where number arithmetic is exact. */
export function assertSafeCents(value: Cents): Cents {
  if (!Number.isSafeInteger(value)) throw new AmountRangeError();
  return value;
}

/**
 * Cents of a decimal string, rounded half away from zero at the cent when it has more than two
 * decimals (`"12.345"` → 1235). Plain decimals are parsed digit by digit; other spellings
 * (exponents) go through decimal.js. Throws on anything that is not a number.
 */
export function toCents(value: string): Cents {
  const n = value.length;
  let i = 0;
  let negative = false;
  if (value.charCodeAt(0) === 45) {
    negative = true;
    i = 1;
  }
  let whole = 0;
  let digits = 0;
  let c = 0;
  for (; i < n; i++) {
    c = value.charCodeAt(i);
    if (c < 48 || c > 57) break;
    whole = whole * 10 + (c - 48);
    digits++;
  }
  let frac = 0;
  let fracDigits = 0;
  let roundUp = false;
  if (i < n && c === 46) {
    i++;
    for (; i < n; i++) {
      c = value.charCodeAt(i);
      if (c < 48 || c > 57) break;
      if (fracDigits < 2) frac = frac * 10 + (c - 48);
      else if (fracDigits === 2) roundUp = c >= 53;
      fracDigits++;
    }
    if (fracDigits === 0) i = -1;
  }
  if (i !== n || digits === 0 || digits > 13) {
    // Exponents, more than 13 integer digits, garbage: the exact slow path (which throws on garbage).
    return assertSafeCents(
      Number(new Money(value).times(100).toDecimalPlaces(0, Money.ROUND_HALF_UP).toFixed()),
    );
  }
  if (fracDigits === 1) frac *= 10;
  const cents = whole * 100 + frac + (roundUp ? 1 : 0);
  return negative ? -cents : cents;
}

/** The canonical decimal string of a cents amount: 123450 → "1234.5", 0 → "0". */
export function centsToDecimal(cents: Cents): string {
  if (cents === 0) return "0";
  const negative = cents < 0;
  const abs = negative ? -cents : cents;
  const frac = abs % 100;
  const whole = (abs - frac) / 100;
  let s = String(whole);
  if (frac !== 0) s += frac % 10 === 0 ? `.${frac / 10}` : frac < 10 ? `.0${frac}` : `.${frac}`;
  return negative ? `-${s}` : s;
}

/**
 * Plain decimals baseCents divides in integers: amounts of at most 35 digits, rates with at most
 * 14 decimals, so 2 · A · 10^(r + 2) < 10^59 (A, r as in baseCents), which keeps it exact.
 */
const PLAIN_AMOUNT = /^(-?)(\d{1,18})(?:\.(\d{1,17}))?$/;
const PLAIN_RATE = /^(\d{1,15})(?:\.(\d{1,14}))?$/;

/**
 * A document amount in base-currency cents. The ledger's CurrencyRate is foreign units per one
 * base unit (0.65 USD per AUD), so base = amount / rate, rounded half up at the cent. A missing,
 * zero or unparsable rate, or a document already in base currency, keeps the amount as it is.
 */
export function baseCents(
  amount: string,
  currency: string,
  baseCurrency: string,
  rate: string | null,
): Cents {
  if (currency === baseCurrency || rate === null || rate === "") return toCents(amount);
  const a = PLAIN_AMOUNT.exec(amount);
  const q = PLAIN_RATE.exec(rate);
  if (a && q && /[1-9]/.test(rate)) {
    // In integers: amount = A / 10^a and rate = R / 10^r, so the cents are
    // A · 10^(r + 2) / (R · 10^a), rounded half away from zero. Exact, and the same as the
    // decimal.js path below, which rounds the quotient at 60 digits first: a quotient that is not
    // exactly half a cent off a whole cent is at least 1 / (2 R · 10^a) from it, more than that
    // rounding moves it within these digit counts. decimal.js took ~20 µs per foreign document,
    // most of the sales history's parse (docs/benchmarks.md, stop 17).
    const aFrac = a[3] ?? "";
    const rFrac = q[2] ?? "";
    const num = BigInt(`${a[2]}${aFrac}`) * 10n ** BigInt(rFrac.length + 2);
    const den = BigInt(`${q[1]}${rFrac}`) * 10n ** BigInt(aFrac.length);
    let cents = num / den;
    if (2n * (num % den) >= den) cents += 1n;
    return assertSafeCents(a[1] === "-" && cents > 0n ? -Number(cents) : Number(cents));
  }
  const r = new Money(rate);
  if (!r.isFinite() || r.isZero() || r.isNegative()) return toCents(amount);
  return assertSafeCents(
    Number(new Money(amount).div(r).times(100).toDecimalPlaces(0, Money.ROUND_HALF_UP).toFixed()),
  );
}

/** Weights in millionths, so weighting stays integer arithmetic. */
export const MICRO = 1_000_000;

/** A weight in [0, ∞) as millionths, rounded half up: 0.35 → 350000. */
export function toMicro(weight: number): number {
  if (!Number.isFinite(weight) || weight <= 0) return 0;
  return Math.round(weight * MICRO);
}

/** A decimal-string weight (`"0.35"`) as millionths, rounded half up. */
export function decimalToMicro(weight: string): number {
  return Number(new Money(weight).times(MICRO).toDecimalPlaces(0, Money.ROUND_HALF_UP).toFixed());
}

/** `cents × micro / 1,000,000`, rounded half away from zero; exact (BigInt when large). */
export function weighCents(cents: Cents, micro: number): Cents {
  const abs = cents < 0 ? -cents : cents;
  let out: number;
  if (abs * micro <= Number.MAX_SAFE_INTEGER) {
    const product = abs * micro;
    const q = Math.floor(product / MICRO);
    out = product - q * MICRO >= MICRO / 2 ? q + 1 : q;
  } else {
    const p = BigInt(abs) * BigInt(micro);
    out = Number((p + BigInt(MICRO / 2)) / BigInt(MICRO));
  }
  return cents < 0 ? -out : out;
}

/** The median of cents amounts (the mean of the middle two, rounded half up, for an even count). */
export function medianCents(values: readonly Cents[]): Cents {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const upper = sorted[mid] ?? 0;
  if (sorted.length % 2 === 1) return upper;
  const sum = (sorted[mid - 1] ?? 0) + upper;
  return sum >= 0 ? Math.floor((sum + 1) / 2) : -Math.floor((-sum + 1) / 2);
}

/** Millionths as a canonical decimal: 350000 → "0.35". */
export function microToDecimal(micro: number): string {
  if (micro === 0) return "0";
  const cached = microText.get(micro);
  if (cached !== undefined) return cached;
  const frac = micro % MICRO;
  const whole = (micro - frac) / MICRO;
  // The fraction's six digits without their trailing zeros.
  let digits = frac;
  let width = 6;
  while (digits !== 0 && digits % 10 === 0) {
    digits /= 10;
    width -= 1;
  }
  const text = frac === 0 ? String(whole) : `${whole}.${String(digits).padStart(width, "0")}`;
  // Weights repeat (spread shares n/shares, probabilities): a bounded memo of their text.
  if (microText.size >= 4096) microText.clear();
  microText.set(micro, text);
  return text;
}
const microText = new Map<number, string>();
