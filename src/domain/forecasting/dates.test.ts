import { describe, expect, it } from "vitest";
import {
  addDays,
  addMonths,
  dateOf,
  dayNumber,
  isCalendarDate,
  isoWeekday,
  mondayOnOrBefore,
} from "./dates.ts";

describe("calendar dates", () => {
  it("round-trips day numbers and finds Mondays", () => {
    expect(dateOf(dayNumber("2026-03-11"))).toBe("2026-03-11");
    expect(isoWeekday(dayNumber("2026-03-11"))).toBe(3);
    expect(isoWeekday(dayNumber("2026-03-15"))).toBe(7);
    expect(dateOf(mondayOnOrBefore(dayNumber("2026-03-15")))).toBe("2026-03-09");
    expect(dateOf(mondayOnOrBefore(dayNumber("2026-03-09")))).toBe("2026-03-09");
    expect(dateOf(mondayOnOrBefore(dayNumber("1969-12-31")))).toBe("1969-12-29");
  });

  it.each([
    ["2026-01-31", 1, undefined, "2026-02-28"],
    ["2024-01-31", 1, undefined, "2024-02-29"],
    ["2026-02-28", 1, 31, "2026-03-31"],
    ["2026-11-15", 3, undefined, "2027-02-15"],
    ["2026-03-31", -1, undefined, "2026-02-28"],
  ])("addMonths(%s, %s, anchor %s) = %s", (date, months, anchor, expected) => {
    expect(addMonths(date, months, anchor)).toBe(expected);
  });

  it("validates calendar dates", () => {
    expect(isCalendarDate("2026-02-28")).toBe(true);
    expect(isCalendarDate("2026-02-30")).toBe(false);
    expect(isCalendarDate("2026-2-3")).toBe(false);
    expect(isCalendarDate("yesterday")).toBe(false);
    expect(isCalendarDate("0000-01-01")).toBe(false); // not a PostgreSQL date: was a 500
    expect(isCalendarDate("0001-01-01")).toBe(true);
    for (const bad of ["2026-13-01", "2026-00-10", "2026-01-32", "2026-01-00"]) {
      expect(isCalendarDate(bad)).toBe(false); // never throws
    }
    expect(addDays("2026-03-01", -1)).toBe("2026-02-28");
  });
});

describe("day numbers without Date objects", () => {
  it("agree with Date.UTC over four centuries", () => {
    for (let day = -200_000; day <= 200_000; day += 7) {
      const iso = new Date(day * 86_400_000).toISOString().slice(0, 10);
      expect(dateOf(day)).toBe(iso);
      expect(dayNumber(iso)).toBe(day);
    }
  });
});
