import { describe, expect, it } from "vitest";
import { type CohortData, clampPeriods, cohortSummary, retentionMatrix } from "./cohorts.ts";

/*
 * Current month 2026-03. Cohort 2025-12: 4 customers; offsets 0..3 elapsed.
 *   customers transacting: M0 4, M1 2, M2 0, M3 1; last transactions at M0 (1), M1 (2), M3 (1).
 * Cohort 2026-02: 2 customers; M0 2, M1 1; last at M0 (1), M1 (1).
 */
const DATA: CohortData = {
  cohorts: [
    { month: "2025-12", size: 4, repeaters: 3, activeNow: 2 },
    { month: "2026-02", size: 2, repeaters: 1, activeNow: 2 },
  ],
  cells: [
    { month: "2025-12", offset: 0, customers: 4, revenue: "400" },
    { month: "2025-12", offset: 1, customers: 2, revenue: "150.5" },
    { month: "2025-12", offset: 3, customers: 1, revenue: "80" },
    { month: "2026-02", offset: 0, customers: 2, revenue: "300" },
    { month: "2026-02", offset: 1, customers: 1, revenue: "90" },
  ],
  lastActive: [
    { month: "2025-12", offset: 0, customers: 1 },
    { month: "2025-12", offset: 1, customers: 2 },
    { month: "2025-12", offset: 3, customers: 1 },
    { month: "2026-02", offset: 0, customers: 1 },
    { month: "2026-02", offset: 1, customers: 1 },
  ],
};

describe("retentionMatrix", () => {
  it("gives survival shares with null for months not started (distinct from 0)", () => {
    const m = retentionMatrix(DATA, { metric: "retention", periods: 5, currentMonth: "2026-03" });
    expect(m.periodLabels).toEqual(["M0", "M1", "M2", "M3", "M4"]);
    expect(m.cohorts).toEqual([
      {
        cohort: "2025-12",
        customers: 4,
        revenue: "630.5",
        activeNow: 2,
        values: [1, 0.75, 0.25, 0.25, null],
      },
      {
        cohort: "2026-02",
        customers: 2,
        revenue: "390",
        activeNow: 2,
        values: [1, 0.5, null, null, null],
      },
    ]);
  });

  it("gives transacting customers and revenue per month, with real zeros", () => {
    const c = retentionMatrix(DATA, { metric: "customers", periods: 4, currentMonth: "2026-03" });
    expect(c.cohorts.map((r) => r.values)).toEqual([
      [4, 2, 0, 1],
      [2, 1, null, null],
    ]);
    const r = retentionMatrix(DATA, { metric: "revenue", periods: 2, currentMonth: "2026-03" });
    expect(r.cohorts.map((x) => x.values)).toEqual([
      ["400", "150.5"],
      ["300", "90"],
    ]);
    // Row revenue spans every elapsed month, whatever `periods` is.
    expect(r.cohorts[0]?.revenue).toBe("630.5");
  });

  it("clamps periods into 1–24", () => {
    expect([
      clampPeriods(undefined),
      clampPeriods(0),
      clampPeriods(-3),
      clampPeriods(30),
      clampPeriods(7),
    ]).toEqual([12, 1, 1, 24, 7]);
  });
});

describe("cohortSummary", () => {
  it("computes the KPIs of the recent 6 months against the prior 6, and the top cohorts", () => {
    const s = cohortSummary(
      {
        cohorts: [
          ...DATA.cohorts,
          { month: "2025-06", size: 5, repeaters: 1, activeNow: 1 },
          { month: "2025-08", size: 5, repeaters: 4, activeNow: 3 },
        ],
        cells: [
          ...DATA.cells,
          { month: "2025-06", offset: 0, customers: 5, revenue: "1000" },
          { month: "2025-08", offset: 0, customers: 5, revenue: "500" },
        ],
        lastActive: [
          ...DATA.lastActive,
          { month: "2025-06", offset: 0, customers: 4 },
          { month: "2025-06", offset: 5, customers: 1 },
          { month: "2025-08", offset: 4, customers: 5 },
        ],
      },
      "2026-03",
    );
    // Recent half 2025-10..2026-03: 2025-12 (4) and 2026-02 (2). Prior 2025-04..2025-09: 2025-06, 2025-08.
    expect(s.window).toEqual({ from: "2025-06", to: "2026-02" });
    expect(s.kpis.newCustomers).toEqual({ value: 6, delta: -0.4, deltaKind: "rate" });
    // Repeat: recent 4/6, prior 5/10.
    expect(s.kpis.repeatOrderRate).toEqual({ value: 0.6667, delta: 0.1667, deltaKind: "pct" });
    // Revenue per customer: recent 1020.5 / 6, prior 1500 / 10.
    expect(s.kpis.avgRevenuePerCustomer).toEqual({
      value: 170.08,
      delta: 0.1339,
      deltaKind: "rate",
    });
    // M3 survival: recent only 2025-12 (1 of 4); prior 2025-06 (1 of 5) and 2025-08 (5 of 5).
    expect(s.kpis.retention90d).toEqual({ value: 0.25, delta: -0.35, deltaKind: "pct" });
    expect(s.topCohorts).toEqual([
      { acquisitionMonth: "2025-08", cohortSize: 5, retention3: 1 },
      { acquisitionMonth: "2025-12", cohortSize: 4, retention3: 0.25 },
      { acquisitionMonth: "2025-06", cohortSize: 5, retention3: 0.2 },
    ]);
  });

  it("has null deltas without a prior base and empty windows without cohorts", () => {
    const s = cohortSummary(DATA, "2026-03");
    expect(s.kpis.newCustomers.delta).toBeNull();
    expect(s.kpis.retention90d.delta).toBeNull();
    expect(cohortSummary({ cohorts: [], cells: [], lastActive: [] }, "2026-03")).toMatchObject({
      window: { from: "", to: "" },
      kpis: { newCustomers: { value: 0, delta: null }, retention90d: { value: 0, delta: null } },
      topCohorts: [],
    });
  });
});
