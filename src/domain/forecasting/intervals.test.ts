import { describe, expect, it } from "vitest";
import type { Cents } from "./cents.ts";
import { closingBands, IntervalCalibration, MIN_RESIDUALS, MIN_SCORES } from "./intervals.ts";

/** A seeded stream of uniforms in [0, 1). */
function uniforms(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/**
 * A seeded backtest's residual table: origin j's error at horizon h is a bias growing with h plus
 * a normal-ish error (sum of uniforms) whose spread grows like √h; errors at a horizon exist for
 * the origins whose week h has ended.
 */
function table(seed: number, origins: number, bias: number, spread: number) {
  const u = uniforms(seed);
  const out: Record<number, Cents[]> = {};
  for (let h = 1; h <= 13; h++) {
    out[h] = Array.from({ length: Math.max(0, origins - h + 1) }, () => {
      const z = u() + u() + u() + u() + u() + u() - 3;
      return Math.round(bias * h + spread * Math.sqrt(h) * z) as Cents;
    });
  }
  return out;
}

describe("prediction intervals from backtest residuals", () => {
  it("centres the band on the median error and scales it by the errors' spread", () => {
    // One horizon, errors 700 … 1,300 (cents): always too high, by 1,000 at the median.
    const errs = Array.from({ length: 42 }, (_, i) => (1000 + ((i % 7) - 3) * 100) as Cents);
    const b = new IntervalCalibration({ 1: errs }).bounds(1);
    expect(b).not.toBeNull();
    const { lower, upper } = b as { lower: Cents; upper: Cents };
    expect(lower + upper).toBeCloseTo(2000, -1);
    expect(lower).toBeGreaterThanOrEqual(700);
    expect(upper).toBeLessThanOrEqual(1300);
    expect(upper - lower).toBeGreaterThan(200);
    // The week's band is shifted against the bias: closing − upper … closing − lower.
    const [week] = closingBands([{ closing: "50" }], { 1: errs.map((e) => String(e / 100)) });
    expect(week).toEqual({ low: String((5000 - upper) / 100), high: String((5000 - lower) / 100) });
  });

  it("gives no band without enough history, at a horizon or overall", () => {
    const errs = table(1, 40, 0, 1000)[1] ?? [];
    // A horizon's base needs MIN_RESIDUALS errors; scores need MIN_SCORES errors scored, each
    // against the base its horizon had at its own origin (so after MIN_RESIDUALS of them).
    const enough = MIN_RESIDUALS + MIN_SCORES;
    expect(new IntervalCalibration({ 1: errs.slice(0, enough) }).bounds(1)).not.toBeNull();
    expect(new IntervalCalibration({ 1: errs.slice(0, enough - 1) }).bounds(1)).toBeNull();
    expect(
      new IntervalCalibration({ 1: errs, 2: errs.slice(0, MIN_RESIDUALS - 1) }).bounds(2),
    ).toBeNull();
    // At origin 3 nothing is known yet.
    expect(new IntervalCalibration({ 1: errs }).bounds(1, 3)).toBeNull();
    expect(closingBands([{ closing: "1" }], null)).toEqual([{ low: null, high: null }]);
  });

  it("widens with the horizon and uses only the errors known at each origin", () => {
    const t = table(7, 52, 50, 2000);
    const c = new IntervalCalibration(t);
    const width = (h: number) => {
      const b = c.bounds(h);
      return b ? b.upper - b.lower : 0;
    };
    expect(width(13)).toBeGreaterThan(width(4));
    expect(width(4)).toBeGreaterThan(width(1));
    // At origin 30 the band is what a table cut at origin 30 gives: later errors change nothing.
    const cut = Object.fromEntries(
      Object.entries(t).map(([h, errs]) => [h, errs.slice(0, Math.max(0, 30 - Number(h) + 1))]),
    );
    const changed = Object.fromEntries(
      Object.entries(t).map(([h, errs]) => [
        h,
        errs.map((e, j) => (j + Number(h) > 30 ? ((e * 5 + 99_999) as Cents) : e)),
      ]),
    );
    for (const h of [1, 4, 13]) {
      expect(new IntervalCalibration(changed).bounds(h, 30)).toEqual(c.bounds(h, 30));
      expect(new IntervalCalibration(cut).bounds(h)).toEqual(c.bounds(h, 30));
    }
  });

  it("covers about 80% of later errors at every horizon on seeded backtests, judged in time order", () => {
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      const c = new IntervalCalibration(table(seed, 200, seed * 100, 1000 * seed));
      const coverages: number[] = [];
      for (let h = 1; h <= 13; h++) {
        const { judged, coverage } = c.sequentialCoverage(h);
        expect(judged, `seed ${seed} h ${h}`).toBeGreaterThan(150);
        coverages.push(coverage as number);
      }
      // About 180 weeks judged per horizon: binomial noise alone is ±3 points.
      const mean = coverages.reduce((a, b) => a + b, 0) / coverages.length;
      expect(mean, `seed ${seed}`).toBeGreaterThan(0.75);
      expect(mean, `seed ${seed}`).toBeLessThan(0.85);
      expect(Math.min(...coverages), `seed ${seed}`).toBeGreaterThanOrEqual(0.7);
      expect(Math.max(...coverages), `seed ${seed}`).toBeLessThanOrEqual(0.92);
    }
    // Errors that grow by 30% a week outrun every band: the check can fail.
    const exploding = Array.from({ length: 60 }, (_, i) => Math.round(100 * 1.3 ** i) as Cents);
    expect(new IntervalCalibration({ 1: exploding }).sequentialCoverage(1)).toEqual({
      judged: 60 - MIN_RESIDUALS - MIN_SCORES,
      coverage: 0,
    });
  });
});
