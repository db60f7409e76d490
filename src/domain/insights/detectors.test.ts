import { describe, expect, it } from "vitest";
import {
  detectAr,
  detectConcentration,
  detectPipeline,
  detectSeasonality,
  detectTrend,
  rankNotes,
} from "./detectors.ts";

const weeks = (values: number[]) => values.map((v) => v.toFixed(2));

describe("trend detector (12 weeks, p < 0.05, last 4 against the 4 before)", () => {
  it("warns on falling receipts", () => {
    const n = detectTrend({
      metric: "receipts",
      weekly: weeks([120, 118, 121, 115, 112, 110, 108, 104, 100, 99, 95, 92]),
      currency: "AUD",
    });
    expect(n).toMatchObject({ kind: "trend", window: "next_4w", severity: "warn" });
    // last 4 = 386, prior 4 = 434: −11%.
    expect(n?.text).toMatch(
      /^Customer receipts are trending down: the last 4 weeks brought in AUD 386\.00, 11% less/,
    );
    expect(n?.impact).toBe(48);
  });

  it("informs on rising receipts and warns on rising spending", () => {
    const rising = weeks([50, 55, 52, 60, 62, 61, 66, 70, 72, 75, 78, 83]);
    expect(detectTrend({ metric: "receipts", weekly: rising, currency: "AUD" })?.severity).toBe(
      "info",
    );
    expect(detectTrend({ metric: "spending", weekly: rising, currency: "AUD" })?.severity).toBe(
      "warn",
    );
  });

  it("stays silent below the thresholds", () => {
    // Noisy and flat: p well above 0.05.
    expect(
      detectTrend({
        metric: "receipts",
        weekly: weeks([100, 80, 120, 90, 110, 95, 105, 85, 115, 100, 90, 110]),
        currency: "AUD",
      }),
    ).toBeNull();
    // Significant but tiny: a steady 0.5% a week gives under 10% over 4 weeks.
    expect(
      detectTrend({
        metric: "receipts",
        weekly: weeks(Array.from({ length: 12 }, (_, i) => 1000 + i)),
        currency: "AUD",
      }),
    ).toBeNull();
    // Too short a history.
    expect(
      detectTrend({
        metric: "receipts",
        weekly: weeks([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]),
        currency: "AUD",
      }),
    ).toBeNull();
  });
});

describe("seasonality detector (same month last year against the 12-month average)", () => {
  const history = (overrides: Record<string, number>) => {
    const m = new Map<string, string>();
    for (let i = 0; i < 24; i++) {
      const month = `${2024 + Math.floor((i + 2) / 12)}-${String(((i + 2) % 12) + 1).padStart(2, "0")}`;
      m.set(month, String(overrides[month] ?? 1000));
    }
    return m;
  };
  it("warns of last year's dip in this month", () => {
    // Current month 2026-01; January 2025 (600) against the average of 2025-01..2025-12 (966.67).
    const n = detectSeasonality({
      monthly: history({ "2025-01": 600 }),
      currentMonth: "2026-01",
      firstMonth: "2024-03",
      currency: "AUD",
    });
    expect(n).toMatchObject({ kind: "seasonality", window: "this_month", severity: "warn" });
    expect(n?.text).toContain("January receipts were 38% below");
  });
  it("informs of next month's lift, and keeps the larger of the two", () => {
    const n = detectSeasonality({
      monthly: history({ "2025-01": 900, "2025-02": 1500 }),
      currentMonth: "2026-01",
      firstMonth: "2024-03",
      currency: "AUD",
    });
    expect(n).toMatchObject({ window: "next_4w", severity: "info" });
    expect(n?.text).toContain("February receipts were");
  });
  it("needs a year of history and a 20% deviation", () => {
    expect(
      detectSeasonality({
        monthly: history({ "2025-01": 850 }),
        currentMonth: "2026-01",
        firstMonth: "2024-03",
        currency: "AUD",
      }),
    ).toBeNull();
    expect(
      detectSeasonality({
        monthly: history({ "2025-01": 100 }),
        currentMonth: "2026-01",
        firstMonth: "2025-06",
        currency: "AUD",
      }),
    ).toBeNull();
  });
});

describe("pipeline, AR and concentration detectors", () => {
  it("pipeline: coverage under 70% warns, over 130% informs, between is silent", () => {
    expect(
      detectPipeline({ next4wInflow: "6000", last4wReceipts: "10000", currency: "AUD" }),
    ).toMatchObject({ severity: "warn", impact: 4000 });
    expect(
      detectPipeline({ next4wInflow: "14000", last4wReceipts: "10000", currency: "AUD" })?.severity,
    ).toBe("info");
    expect(
      detectPipeline({ next4wInflow: "7000", last4wReceipts: "10000", currency: "AUD" }),
    ).toBeNull();
    expect(
      detectPipeline({ next4wInflow: "7000", last4wReceipts: "0", currency: "AUD" }),
    ).toBeNull();
  });

  it("ar: warns when the share over 60 days rose 5 points to at least 10%", () => {
    const n = detectAr({
      totalNow: "10000",
      over60Now: "1400",
      totalThen: "8000",
      over60Then: "400",
      currency: "AUD",
    });
    expect(n).toMatchObject({ kind: "ar", severity: "warn", window: "this_month" });
    expect(n?.text).toContain("grew from 5% to 14%");
    expect(
      detectAr({
        totalNow: "10000",
        over60Now: "1400",
        totalThen: "8000",
        over60Then: "800",
        currency: "AUD",
      }),
    ).toBeNull();
    expect(
      detectAr({
        totalNow: "10000",
        over60Now: "900",
        totalThen: "8000",
        over60Then: "0",
        currency: "AUD",
      }),
    ).toBeNull();
  });

  it("concentration: 20% informs, 35% warns, and a redacted text exists", () => {
    const top = { contactId: "c1", name: "Harbour Cafe", amount: "4000" };
    const warn = detectConcentration({ top, total: "10000", currency: "AUD" });
    expect(warn).toMatchObject({ severity: "warn", subjectContactId: "c1" });
    expect(warn?.text).toMatch(/^Harbour Cafe accounted for 40%/);
    expect(warn?.redactedText).toMatch(/^Sensitive contact accounted for 40%/);
    expect(
      detectConcentration({ top: { ...top, amount: "2500" }, total: "10000", currency: "AUD" })
        ?.severity,
    ).toBe("info");
    expect(
      detectConcentration({ top: { ...top, amount: "1500" }, total: "10000", currency: "AUD" }),
    ).toBeNull();
  });

  it("ranks by impact, warnings weighted double, and keeps 3", () => {
    const n = (
      kind: "ar" | "trend" | "pipeline" | "seasonality",
      severity: "info" | "warn",
      impact: number,
    ) => ({ kind, severity, impact });
    const ranked = rankNotes([
      n("trend", "info", 500),
      n("ar", "warn", 300),
      n("pipeline", "info", 100),
      n("seasonality", "warn", 40),
    ]);
    expect(ranked.map((r) => r.kind)).toEqual(["ar", "trend", "pipeline"]);
  });
});
