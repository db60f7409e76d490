import { describe, expect, it } from "vitest";
import { median, pairedRatios } from "../bench/load.ts";

const rps = (...values: number[]) => values.map((requestsPerSecond) => ({ requestsPerSecond }));

describe("pairedRatios (npm run bench, round by round)", () => {
  it("divides each round's figure by the same round's, not median by median", () => {
    // The machine slows down for the baseline's last two rounds but only for real's last one:
    // round by round real is 0.8 of the baseline twice, the medians' ratio says 1.6.
    const baseline = rps(2000, 1000, 1000);
    const real = rps(1600, 1600, 800);
    expect(pairedRatios(real, baseline)).toEqual({ median: 0.8, min: 0.8, max: 1.6 });
    const values = (rounds: { requestsPerSecond: number }[]) =>
      rounds.map((r) => r.requestsPerSecond);
    expect(median(values(real)) / median(values(baseline))).toBe(1.6);
  });

  it("reports the median, min and max over rounds", () => {
    expect(pairedRatios(rps(70, 90, 80), rps(100, 100, 100))).toEqual({
      median: 0.8,
      min: 0.7,
      max: 0.9,
    });
  });

  it("refuses rounds that do not pair up", () => {
    expect(() => pairedRatios(rps(1, 2), rps(1))).toThrow(/different counts/);
  });
});
