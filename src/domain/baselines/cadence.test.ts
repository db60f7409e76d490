import { describe, expect, it } from "vitest";
import { addDays } from "../summaries/calendar.ts";
import { detectCadence } from "./cadence.ts";

const every = (start: string, days: number, n: number, jitter: number[] = []) =>
  Array.from({ length: n }, (_, i) => addDays(start, i * days + (jitter[i % jitter.length] ?? 0)));

describe("detectCadence", () => {
  it.each([
    ["WEEKLY", 7, 9, 100],
    ["FORTNIGHTLY", 14, 7, 100],
    ["MONTHLY", 30, 7, 100],
    ["QUARTERLY", 91, 4, 100],
    ["ANNUAL", 365, 3, 100],
  ] as const)("finds %s from regular orders", (cadence, days, n, confidence) => {
    expect(detectCadence(every("2024-01-01", days, n))).toMatchObject({ cadence, confidence });
  });

  it("tolerates jitter and the odd skipped order (the median decides)", () => {
    const dates = every("2025-01-06", 7, 12, [0, 1, 0, 2, 0, 1]).filter((_, i) => i !== 5);
    const r = detectCadence(dates);
    expect(r.cadence).toBe("WEEKLY");
    // 10 intervals, 9 in the band (one 14-day gap): 90% × full sample.
    expect(r.confidence).toBe(90);
  });

  it("scales confidence down with few intervals", () => {
    expect(detectCadence(every("2025-01-01", 30, 3))).toMatchObject({
      cadence: "MONTHLY",
      confidence: 33,
    });
    expect(detectCadence(every("2024-03-01", 365, 2))).toMatchObject({
      cadence: "ANNUAL",
      confidence: 50,
    });
  });

  it("answers NONE for irregular orders, a single order, or half the intervals off-band", () => {
    expect(
      detectCadence(["2025-01-01", "2025-01-20", "2025-03-30", "2025-04-02", "2025-09-01"]),
    ).toMatchObject({ cadence: "NONE", confidence: 0 });
    expect(detectCadence(["2025-01-01"])).toEqual({
      cadence: "NONE",
      confidence: 0,
      medianIntervalDays: null,
      intervals: 0,
    });
    // Intervals 30, 30, 3, 60, 60: median 30 (monthly) but only 2 of 5 in the band.
    expect(
      detectCadence([
        "2025-01-01",
        "2025-01-31",
        "2025-03-02",
        "2025-03-05",
        "2025-05-04",
        "2025-07-03",
      ]).cadence,
    ).toBe("NONE");
  });

  it("counts several invoices on one day as one order", () => {
    expect(detectCadence(["2025-01-01", "2025-01-01", "2025-01-08", "2025-01-15"]).intervals).toBe(
      2,
    );
  });
});
