import { describe, expect, it } from "vitest";
import { burnRunway, periodChange, runwayWeeks } from "./runway.ts";

const weeks = (closings: string[]) =>
  closings.map((closing, i) => ({
    weekStart: `2026-03-${String(2 + 7 * i).padStart(2, "0")}`,
    closing,
  }));

describe("runway", () => {
  it("counts the weeks before the first closing below the threshold, exactly", () => {
    expect(runwayWeeks(weeks(["100", "0", "-0.01", "50"]), "0")).toEqual({
      kind: "below",
      weeks: 2,
      weekNumber: 3,
      weekStart: "2026-03-16",
      closing: "-0.01",
    });
    expect(runwayWeeks(weeks(["100", "99.99"]), "100")).toMatchObject({ weeks: 1 });
    expect(runwayWeeks(weeks(["-1"]), "0")).toMatchObject({ weeks: 0, weekNumber: 1 });
    expect(runwayWeeks(weeks(["1", "2"]), "0")).toEqual({ kind: "beyond", horizonWeeks: 2 });
  });

  it("divides cash by the average monthly net burn of the last 4 weeks", () => {
    const b = burnRunway({
      cash: "52000",
      weeklyReceipts: ["999", "100", "100", "100", "100"],
      weeklySpending: ["0", "1100", "1100", "1100", "1100"],
    });
    // 4,000 net over 4 weeks = 1,000 a week = 4,333.33 a month; 52,000 / 4,333.33 = 12.0
    expect(b).toMatchObject({ weeks: 4, netBurn: "4000", monthlyBurn: "4333.33", months: "12.0" });
    expect(
      burnRunway({ cash: "10", weeklyReceipts: ["5"], weeklySpending: ["1"] }).months,
    ).toBeNull();
  });

  it("compares the latest 4 weeks with the 4 before", () => {
    expect(periodChange(["1", "1", "1", "1", "2", "2", "2", "2"])).toBe(1);
    expect(periodChange(["0", "0", "0", "0", "2", "2", "2", "2"])).toBeNull();
    expect(periodChange(["1"])).toBeNull();
  });
});
