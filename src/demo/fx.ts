import type { Prng } from "./prng.ts";

/** Foreign currencies the demo trades in, with a starting rate (units per 1 AUD, millionths). */
const START_RATES: Record<string, number> = { USD: 655_000, NZD: 1_090_000 };

/**
 * Daily exchange rates as the ledger quotes them: foreign units per one unit of base currency,
 * 6 decimals. A bounded random walk per currency over the window, so a document and its later
 * payment see slightly different rates (as real ones do).
 */
export class FxTable {
  private readonly rates = new Map<string, Int32Array>();

  constructor(
    prng: Prng,
    private readonly start: number,
    days: number,
  ) {
    for (const [ccy, base] of Object.entries(START_RATES)) {
      const series = new Int32Array(days + 1);
      let r = base;
      for (let i = 0; i <= days; i++) {
        // ±0.4% per day at most, pulled back towards the starting rate.
        r += Math.round(base * 0.004 * (prng.next() - 0.5) + (base - r) * 0.02);
        series[i] = r;
      }
      this.rates.set(ccy, series);
    }
  }

  /** Rate in millionths for `currency` on `day`; 1.000000 for the base currency. */
  rate6(currency: string, day: number): number {
    const series = this.rates.get(currency);
    if (!series) return 1_000_000;
    const i = Math.max(0, Math.min(series.length - 1, day - this.start));
    return series[i] ?? 1_000_000;
  }
}
