import { describe, expect, it } from "vitest";
import { financialYearStart, isCalendarDate, lastDayOf, mondayOf, monthsFrom } from "./calendar.ts";
import { forecastHeadline } from "./forecast-headline.ts";
import { dailyNarrative, formatMoney, netPhrase } from "./narrative.ts";
import { lastFullMonths, resolveWindow } from "./window.ts";

describe("calendar", () => {
  it("knows real dates, month ends, Mondays and months", () => {
    expect([
      isCalendarDate("2024-02-29"),
      isCalendarDate("2025-02-29"),
      isCalendarDate("2025-13-01"),
    ]).toEqual([true, false, false]);
    expect(lastDayOf("2024-02")).toBe("2024-02-29");
    expect(mondayOf("2026-03-01")).toBe("2026-02-23"); // a Sunday
    expect(mondayOf("2026-03-02")).toBe("2026-03-02");
    expect(monthsFrom("2025-11", "2026-02")).toEqual(["2025-11", "2025-12", "2026-01", "2026-02"]);
  });

  it("finds the financial year start from the year end", () => {
    expect(financialYearStart("2026-03-10", 6, 30)).toBe("2025-07-01");
    expect(financialYearStart("2026-06-30", 6, 30)).toBe("2025-07-01");
    expect(financialYearStart("2026-07-01", 6, 30)).toBe("2026-07-01");
    expect(financialYearStart("2026-03-10", 12, 31)).toBe("2026-01-01");
    expect(financialYearStart("2026-03-31", 3, 31)).toBe("2025-04-01");
    // A year end on 29 February means the last day of February in common years.
    expect(financialYearStart("2026-03-01", 2, 29)).toBe("2026-03-01");
    expect(financialYearStart("2026-02-28", 2, 29)).toBe("2025-03-01");
  });

  it("reads years 0001-0099 as written (Date.UTC took them for 1900-1999)", () => {
    expect(financialYearStart("0100-06-01", 6, 30)).toBe("0099-07-01");
    expect(financialYearStart("0050-03-10", 12, 31)).toBe("0050-01-01");
    expect([isCalendarDate("0001-01-01"), isCalendarDate("0099-02-29")]).toEqual([true, false]);
    expect(isCalendarDate("0000-01-01")).toBe(false); // PostgreSQL's date has no year 0000
  });
});

describe("summary windows", () => {
  const org = { today: "2026-03-10", yearEndMonth: 6, yearEndDay: 30 };
  it("works in the first centuries, and never starts before 0001-01-01", () => {
    expect(resolveWindow({ ...org, dateTo: "0100-06-01" })).toEqual({
      from: "0099-07-01",
      to: "0100-06-01",
    });
    expect(resolveWindow({ ...org, dateFrom: "0001-01-01", dateTo: "0001-12-31" })).toEqual({
      from: "0001-01-01",
      to: "0001-12-31",
    });
    // The financial year holding 0001-03-01 began on 0000-07-01: counted from 0001-01-01.
    expect(resolveWindow({ ...org, dateTo: "0001-03-01" })).toEqual({
      from: "0001-01-01",
      to: "0001-03-01",
    });
    expect(resolveWindow({ ...org, dateTo: "0000-12-31" })).toMatchObject({
      parameter: "dateTo",
    });
  });

  it("defaults to the financial year to date and honours dateFrom / dateTo", () => {
    expect(resolveWindow(org)).toEqual({ from: "2025-07-01", to: "2026-03-10" });
    expect(resolveWindow({ ...org, dateTo: "2025-03-31" })).toEqual({
      from: "2024-07-01",
      to: "2025-03-31",
    });
    expect(resolveWindow({ ...org, dateFrom: "2026-01-01" })).toEqual({
      from: "2026-01-01",
      to: "2026-03-10",
    });
  });
  it("refuses impossible windows", () => {
    expect(resolveWindow({ ...org, dateFrom: "2026-02-30" })).toMatchObject({
      parameter: "dateFrom",
    });
    expect(resolveWindow({ ...org, dateFrom: "2026-04-01" })).toMatchObject({
      parameter: "dateFrom",
    });
    expect(resolveWindow({ ...org, dateTo: "2025-01-01", dateFrom: undefined })).toEqual({
      from: "2024-07-01",
      to: "2025-01-01",
    });
    expect(resolveWindow({ ...org, dateFrom: "2000-01-01" })).toMatchObject({
      parameter: "dateFrom",
    });
  });
  it("takes the last three full months for gross profit", () => {
    expect(lastFullMonths("2026-03-01")).toEqual({ from: "2025-12-01", to: "2026-02-28" });
    expect(lastFullMonths("2026-01-31")).toEqual({ from: "2025-10-01", to: "2025-12-31" });
  });
});

describe("narrative", () => {
  it("phrases the 7-day net by the 5% threshold", () => {
    expect(netPhrase("1000", "940")).toBe("net positive");
    expect(netPhrase("1000", "951")).toBe("roughly flat");
    expect(netPhrase("950", "1000")).toBe("roughly flat");
    expect(netPhrase("900", "1000")).toBe("net negative");
    expect(netPhrase("0", "0")).toBe("roughly flat");
  });
  it("formats money and writes 2 to 4 sentences", () => {
    expect(formatMoney("-1234567.5", "AUD")).toBe("-AUD 1,234,567.50");
    const base = {
      currency: "AUD",
      cashToday: "48210.55",
      bankAccounts: 3,
      inflow: "18250",
      outflow: "12100.4",
      net: "6149.6",
      arTotal: "0",
      overdueAmount: "0",
      overdueCount: 0,
      forecast: null,
    };
    expect(dailyNarrative(base)).toBe(
      "Cash today is AUD 48,210.55 across 3 bank accounts. The last 7 days were net positive: AUD 18,250.00 in and AUD 12,100.40 out (net AUD 6,149.60).",
    );
    expect(
      dailyNarrative({
        ...base,
        bankAccounts: 1,
        arTotal: "5000",
        overdueAmount: "1200",
        overdueCount: 1,
        forecast: {
          endingCash: "61200",
          minClosingCash: "39850",
          minClosingWeekStart: "2026-04-13",
        },
      }),
    ).toBe(
      "Cash today is AUD 48,210.55 across 1 bank account. The last 7 days were net positive: AUD 18,250.00 in and AUD 12,100.40 out (net AUD 6,149.60). Receivables stand at AUD 5,000.00, of which AUD 1,200.00 across 1 invoice is overdue. The 13-week forecast ends at AUD 61,200.00, with a low of AUD 39,850.00 in the week of 2026-04-13.",
    );
  });
});

describe("forecast headline", () => {
  const w = (weekStart: string, weekEnd: string, closing: string) => ({
    weekStart,
    weekEnd,
    closing,
  });
  it("finds the low point and the break-even date", () => {
    expect(
      forecastHeadline({
        startingCash: "1000",
        endingCash: "1500",
        weeks: [
          w("2026-03-09", "2026-03-15", "900"),
          w("2026-03-16", "2026-03-22", "700"),
          w("2026-03-23", "2026-03-29", "1000"),
          w("2026-03-30", "2026-04-05", "1500"),
        ],
      }),
    ).toEqual({
      endingCash: "1500",
      minClosingCash: "700",
      minClosingWeekStart: "2026-03-16",
      breakEvenDate: "2026-03-29",
    });
  });
  it("has no break-even date when cash never dips below the start, or never recovers", () => {
    expect(
      forecastHeadline({
        startingCash: "1000",
        endingCash: "1200",
        weeks: [w("a", "b", "1100"), w("c", "d", "1200")],
      })?.breakEvenDate,
    ).toBeNull();
    expect(
      forecastHeadline({
        startingCash: "1000",
        endingCash: "500",
        weeks: [w("a", "b", "900"), w("c", "d", "500")],
      })?.breakEvenDate,
    ).toBeNull();
    expect(forecastHeadline({ startingCash: "1000", endingCash: "0", weeks: [] })).toBeNull();
  });
});
