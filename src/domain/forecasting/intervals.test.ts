import { describe, expect, it } from "vitest";
import type { Cents } from "./cents.ts";
import {
  ACI_STEP,
  closingBands,
  fitSpread,
  IntervalCalibration,
  MIN_RESIDUALS,
  MIN_SCORES,
  NEIGHBOUR_FROM,
  weightedQuantile,
} from "./intervals.ts";

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

/** A table whose error at horizon h is ±size(h, j) for origin j, signs alternating. */
function exact(origins: number, size: (h: number, j: number) => number, horizons = 13) {
  const out: Record<number, Cents[]> = {};
  for (let h = 1; h <= horizons; h++)
    out[h] = Array.from(
      { length: Math.max(0, origins - h + 1) },
      (_, j) => (j % 2 === 0 ? size(h, j) : -size(h, j)) as Cents,
    );
  return out;
}

describe("the spread model and the weighted quantile", () => {
  it("fits the spread's growth with the horizon as s·h^β", () => {
    const fit = fitSpread([1, 4, 9].map((k) => ({ k, rms: 100 * Math.sqrt(k) })));
    expect(fit?.beta).toBeCloseTo(0.5, 12);
    expect(Math.exp(fit?.a ?? 0)).toBeCloseTo(100, 9);
    // One horizon cannot say how the spread grows.
    expect(fitSpread([{ k: 1, rms: 100 }])).toBeNull();
    expect(
      fitSpread([
        { k: 1, rms: 100 },
        { k: 2, rms: 0 },
      ]),
    ).toBeNull();
  });

  it("takes the conformal rank of weighted scores, the new point weighing 1", () => {
    const nine = [1, 2, 3, 4, 5, 6, 7, 8, 9].map((score) => ({ score, weight: 1 }));
    // 0.8 × (9 + 1) = 8: the 8th smallest.
    expect(weightedQuantile(nine, 0.8)).toBe(8);
    // 0.95 × 10 = 9.5 is more than the scores weigh: the largest.
    expect(weightedQuantile(nine, 0.95)).toBe(9);
    expect(weightedQuantile(nine, 0)).toBe(0);
    // Old scores weigh less: 1 (weight 1) and 10 (weight 0.25): 0.5 × 2.25 = 1.125 > 1.
    expect(
      weightedQuantile(
        [
          { score: 1, weight: 1 },
          { score: 10, weight: 0.25 },
        ],
        0.5,
      ),
    ).toBe(10);
    expect(weightedQuantile([], 0.8)).toBeNull();
  });
});

describe("prediction intervals from backtest residuals", () => {
  it("bands every horizon by the spread its errors grow with, centred on the forecast", () => {
    // |error| = 100·h at every origin: spread 100·h (β = 1), every score 1, band ±100·h.
    const t = exact(52, (h) => 100 * h);
    const c = new IntervalCalibration(t);
    for (const h of [1, 4, 13]) expect(c.bounds(h)).toEqual({ lower: -100 * h, upper: 100 * h });
    // The week's band is closing − upper … closing − lower.
    const [week] = closingBands([{ closing: "50" }], {
      1: (t[1] ?? []).map((e) => String(e / 100)),
      2: (t[2] ?? []).map((e) => String(e / 100)),
    });
    expect(week).toEqual({ low: "49", high: "51" });
  });

  it("gives no band without enough history, at a horizon or overall", () => {
    // Bands need MIN_RESIDUALS errors at the horizon, two horizons with as many to fit the
    // spread, and MIN_SCORES errors scored (each against the fit of its own origin).
    const t = exact(40, (h) => 100 * h, 2);
    expect(new IntervalCalibration(t).bounds(1)).not.toBeNull();
    expect(new IntervalCalibration({ 1: t[1] ?? [] }).bounds(1)).toBeNull();
    const short = { 1: t[1] ?? [], 2: t[2] ?? [], 3: (t[2] ?? []).slice(0, MIN_RESIDUALS - 1) };
    expect(new IntervalCalibration(short).bounds(3)).toBeNull();
    expect(new IntervalCalibration(short).bounds(2)).not.toBeNull();
    // Origin 7: horizons 1 and 2 have their 6 errors (origins 0–5 at horizon 2), the fit exists
    // from there, and its scores become known from origin 8 on: 12 of them at origin 13.
    const c = new IntervalCalibration(t);
    const first = Array.from({ length: 40 }, (_, at) => c.bounds(1, at)).findIndex((b) => b);
    expect(first).toBeGreaterThan(MIN_RESIDUALS);
    expect(first).toBeLessThanOrEqual(MIN_RESIDUALS + MIN_SCORES);
    expect(closingBands([{ closing: "1" }], null)).toEqual([{ low: null, high: null }]);
  });

  it("widens a horizon's band after it misses, and narrows it after it holds", () => {
    // Errors of ±100·h until origin 30, ±300·h after: the fixed 80% level keeps the old band
    // while the weighted scores still hold mostly 1s; the adaptive level widens it once misses
    // come back (h weeks late).
    const t = exact(52, (h, j) => (j < 30 ? 100 : 300) * h);
    const adaptive = new IntervalCalibration(t);
    const fixed = new IntervalCalibration(t, { step: 0 });
    const covered = (c: IntervalCalibration, h: number, from: number) => {
      const errs = t[h] ?? [];
      let inside = 0;
      for (let j = from; j < errs.length; j++) {
        const b = c.bounds(h, j);
        if (b && (errs[j] as number) >= b.lower && (errs[j] as number) <= b.upper) inside += 1;
      }
      return inside;
    };
    expect(covered(adaptive, 1, 30)).toBeGreaterThan(covered(fixed, 1, 30));
    // Before the shift every error is inside: each hit raises the level by ACI_STEP × 0.2, and
    // the band stays ±100·h (no score beyond 1 to reach).
    expect(adaptive.bounds(1, 29)).toEqual({ lower: -100, upper: 100 });
    expect(ACI_STEP).toBeGreaterThan(0);
  });

  it("widens a long horizon's band while the running weeks of later origins drift", () => {
    // Errors ±100·h until origin 30, then +400·h at every horizon (a trend the engine misses).
    // Origin 30's 13-week error is known only at origin 43; its 1…12-week errors are known at
    // origins 31…42, and carried to 13 weeks (× 13 ÷ k) each falls outside its ±1,300 band.
    const t = exact(52, (h) => 100 * h);
    for (const [h, errs] of Object.entries(t))
      t[Number(h)] = errs.map((e, j) => (j < 30 ? e : ((400 * Number(h)) as Cents)));
    const provisional = new IntervalCalibration(t);
    const ended = new IntervalCalibration(t, { provisional: false });
    // Before the drift both are the same band.
    expect(provisional.bounds(13, 30)).toEqual({ lower: -1300, upper: 1300 });
    expect(ended.bounds(13, 30)).toEqual({ lower: -1300, upper: 1300 });
    // Seven weeks into it the provisional misses have widened the band; weeks that ended have
    // not. (A week later than without the 12-week verdicts: origins 31–36 heard two hits a week,
    // the 13-week and the 12-week verdicts of origins before the drift, and start higher.)
    const half = (c: IntervalCalibration, at: number) => c.bounds(13, at)?.upper ?? 0;
    expect(half(provisional, 37)).toBeGreaterThan(3 * half(ended, 37));
    expect(half(ended, 42)).toBeLessThan(1300);
    // From origin 43 on the drift's 13-week error (5,200) is inside the provisional band only.
    for (let at = 43; at < 46; at++) {
      expect(half(provisional, at), `origin ${at}`).toBeGreaterThanOrEqual(5200);
      expect(half(ended, at), `origin ${at}`).toBeLessThan(5200);
    }
  });

  it("adapts a long horizon's level on the verdicts of the horizon a week shorter too", () => {
    // Errors of 300·h·(1, 2 or 3) until origin 20, a third of that after (a business whose early
    // errors were large): the long horizons' bands are too wide once the errors shrink.
    const t = exact(52, (h, j) => (j < 20 ? 300 : 100) * h * (1 + (j % 3)));
    const heard = new IntervalCalibration(t);
    const own = new IntervalCalibration(t, { neighbourFrom: Number.POSITIVE_INFINITY });
    // Below NEIGHBOUR_FROM nothing changes, at any origin.
    for (let h = 1; h < NEIGHBOUR_FROM; h++)
      for (let at = 0; at < 52; at++) expect(heard.bounds(h, at)).toEqual(own.bounds(h, at));
    // At 13 weeks the first verdict ends before origin 31 (first band at origin 18): until then
    // the bands are the same; from it on the level hears two hits a week and narrows sooner.
    for (let at = 18; at < 31; at++) expect(heard.bounds(13, at)).toEqual(own.bounds(13, at));
    expect(heard.bounds(13, 31)?.upper).toBeLessThan(own.bounds(13, 31)?.upper ?? 0);
    expect(heard.sequentialCoverage(13).coverage).toBeLessThan(
      own.sequentialCoverage(13).coverage ?? 0,
    );
    // Without a shorter horizon (1 week) or with the option off, the calibration is the same.
    expect(new IntervalCalibration(t, { neighbourFrom: 1 }).bounds(1, 30)).toEqual(
      own.bounds(1, 30),
    );
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
      expect(Math.max(...coverages), `seed ${seed}`).toBeLessThanOrEqual(0.9);
    }
    // Every other week an error 9 times the last such one: each is beyond every score known
    // before it, so half the weeks miss whatever the level: the check can fail.
    const jumping = exact(28, (h, j) => (j % 2 === 1 ? 100 * h * 3 ** j : 100 * h), 2);
    const { judged, coverage } = new IntervalCalibration(jumping).sequentialCoverage(1);
    expect(judged).toBeGreaterThan(10);
    expect(coverage).toBeLessThan(0.6);
  });
});
