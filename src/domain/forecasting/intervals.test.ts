import { describe, expect, it } from "vitest";
import { closingBands, errorBounds, MIN_RESIDUALS, sequentialCoverage } from "./intervals.ts";

/** A seeded stream of normal-ish errors (sum of uniforms), in cents. */
function residuals(seed: number, n: number, bias: number, spread: number): number[] {
  let s = seed >>> 0;
  const u = () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
  return Array.from({ length: n }, () => {
    const z = u() + u() + u() + u() + u() + u() - 3;
    return Math.round(bias + spread * z);
  });
}

describe("prediction intervals from backtest residuals", () => {
  it("takes the conformal ranks of the sorted errors, and none with too few", () => {
    const errs = Array.from({ length: 19 }, (_, i) => (i - 9) * 100); // −900 … 900
    // n = 19: ranks ⌊0.1·20⌋ = 2 and ⌈0.9·20⌉ = 18.
    expect(errorBounds(errs)).toEqual({ lower: -800, upper: 800 });
    expect(errorBounds(errs.slice(0, MIN_RESIDUALS - 1))).toBeNull();
  });

  it("bands each week around closing, shifted against the engine's bias", () => {
    const weeks = [{ closing: "1000" }, { closing: "2000" }];
    const high = Array.from({ length: 19 }, (_, i) => String(100 + i)); // always 100–118 too high
    expect(closingBands(weeks, { 1: high, 2: ["1"] })).toEqual([
      { low: "883", high: "899" },
      { low: null, high: null },
    ]);
    expect(closingBands(weeks, null)).toEqual([
      { low: null, high: null },
      { low: null, high: null },
    ]);
  });

  it("covers about 80% of later errors on a seeded family of error streams, judged in time order", () => {
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      const { judged, coverage } = sequentialCoverage(
        residuals(seed, 400, seed * 1000, 5000 * seed),
        4,
      );
      expect(judged).toBe(400 - MIN_RESIDUALS - 3);
      expect(coverage as number).toBeGreaterThanOrEqual(0.7);
      expect(coverage as number).toBeLessThanOrEqual(0.9);
    }
    // A stream whose errors grow is not covered: the check can fail.
    const drifting = Array.from({ length: 60 }, (_, i) => i * i * 10);
    expect(sequentialCoverage(drifting, 1).coverage).toBe(0);
  });
});
