import { describe, expect, it } from "vitest";
import { inflowSplit } from "./get-forecast.ts";

describe("inflowSplit: reading the guaranteed/forecast split of a stored week", () => {
  it("takes a version 2 week as stored", () => {
    expect(
      inflowSplit({ inflow: "150", guaranteedInflow: "100", forecastInflow: "50" }, 2),
    ).toEqual({
      guaranteedInflow: "100",
      forecastInflow: "50",
    });
  });

  it("reads a version 1 week, written before the split, as all guaranteed and no forecast", () => {
    expect(inflowSplit({ inflow: "150" }, 1)).toEqual({
      guaranteedInflow: "150",
      forecastInflow: "0",
    });
  });
});
