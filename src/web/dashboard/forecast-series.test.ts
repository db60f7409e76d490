import { describe, expect, it } from "vitest";
import { type ForecastWeekInput, forecastSeries } from "./forecast-series.ts";

function week(i: number, w: Partial<ForecastWeekInput>): ForecastWeekInput {
  return {
    weekStart: `2026-03-${String(2 + 7 * i).padStart(2, "0")}`,
    weekEnd: `2026-03-${String(8 + 7 * i).padStart(2, "0")}`,
    opening: "0",
    inflow: "0",
    outflow: "0",
    closing: "0",
    ...w,
  };
}

describe("forecastSeries", () => {
  it("draws conservative from guaranteed inflows and optimistic with predicted ones, exactly", () => {
    const s = forecastSeries({
      computedAt: "2026-03-02T06:00:00Z",
      startingCash: "1000.10",
      weeks: [
        week(0, {
          inflow: "300.2",
          guaranteedInflow: "100.1",
          forecastInflow: "200.1",
          outflow: "50",
          closing: "1250.3",
        }),
        week(1, {
          inflow: "0.3",
          guaranteedInflow: "0.1",
          forecastInflow: "0.2",
          outflow: "2000",
          closing: "-749.4",
        }),
      ],
    });
    expect(s.points).toEqual([
      {
        weekStart: "2026-03-02",
        weekEnd: "2026-03-08",
        inflow: "300.2",
        outflow: "50",
        closing: "1250.3",
        conservative: "1050.2",
        optimistic: "1250.3",
      },
      {
        weekStart: "2026-03-09",
        weekEnd: "2026-03-15",
        inflow: "0.3",
        outflow: "2000",
        closing: "-749.4",
        conservative: "-949.7",
        optimistic: "-749.4",
      },
    ]);
    expect(s.maxFlow).toBe("2000");
    expect(s.min).toBe("-949.7");
    expect(s.max).toBe("1250.3");
    expect(s.endingCash).toBe("-749.4");
    expect(s.lowestClosing).toEqual({ value: "-749.4", weekStart: "2026-03-09" });
  });

  it("treats a snapshot without the split as all-guaranteed (forecastInflow 0)", () => {
    const s = forecastSeries({
      computedAt: "2026-03-02T06:00:00Z",
      startingCash: "10",
      weeks: [week(0, { inflow: "5", outflow: "1", closing: "14" })],
    });
    expect(s.points[0]).toMatchObject({ conservative: "14", optimistic: "14" });
    // The axis follows the figures, not zero.
    expect(s.min).toBe("14");
    expect(s.max).toBe("14");
  });

  it("widens the range to a prediction band where the forecast gives one", () => {
    const s = forecastSeries({
      computedAt: "2026-03-02T06:00:00Z",
      startingCash: "100",
      weeks: [
        week(0, { inflow: "5", outflow: "1", closing: "104", band: { low: "90", high: "120" } }),
      ],
    });
    expect(s.points[0]?.band).toEqual({ low: "90", high: "120" });
    expect([s.min, s.max]).toEqual(["90", "120"]);
  });
});
