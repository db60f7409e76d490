import { describe, expect, it } from "vitest";
import { money } from "../money.ts";
import {
  type ContactHistory,
  churnClass,
  classifyAbc,
  computeBaselines,
  expectedLifetimeYears,
  historicalLtv,
  projectedLtv,
} from "./customer-baselines.ts";
import { linearRegression, median, studentTTwoSided } from "./stats.ts";

describe("churnClass", () => {
  it.each([
    // Monthly (30.44 days): Active up to 45.66 days, At-risk up to 91.3.
    ["MONTHLY", null, "2026-01-25", "Active"],
    ["MONTHLY", null, "2026-01-15", "At-risk"],
    ["MONTHLY", null, "2025-11-30", "Churned"],
    // Weekly: the 14- and 45-day floors apply.
    ["WEEKLY", null, "2026-02-26", "Active"],
    ["WEEKLY", null, "2026-02-10", "At-risk"],
    ["WEEKLY", null, "2026-01-10", "Churned"],
    // No cadence, one order: a 90-day period.
    ["NONE", null, "2025-12-10", "Active"],
    ["NONE", null, "2025-10-01", "At-risk"],
    ["NONE", null, "2025-05-01", "Churned"],
    // Irregular: the median interval (bounded to 30–365) is the period.
    ["NONE", 200, "2025-03-01", "At-risk"],
    ["NONE", 5, "2026-01-10", "At-risk"],
  ] as const)(
    "%s (median %s), last order %s → %s on 2026-03-10",
    (cadence, mid, last, expected) => {
      expect(
        churnClass({
          lastOrderDate: last,
          cadence,
          medianIntervalDays: mid,
          asOfDate: "2026-03-10",
        }),
      ).toBe(expected);
    },
  );
});

describe("classifyAbc", () => {
  const c = (id: string, revenue: string, first: string | null = "2025-01-01") => ({
    id,
    trailingRevenue: money(revenue),
    firstPaidDate: first,
  });
  it("applies 80/20: A until 80% is reached, B until 95%, C after", () => {
    const r = classifyAbc(
      [c("a", "500"), c("b", "300"), c("c", "100"), c("d", "60"), c("e", "40"), c("z", "0")],
      "2026-03-10",
    );
    // Before each: a 0%, b 50%, c 80%, d 90%, e 96%.
    expect(Object.fromEntries(r)).toEqual({ a: "A", b: "A", c: "B", d: "B", e: "C", z: "C" });
  });
  it("leaves warming customers unclassified (first paid invoice under 90 days old or none)", () => {
    const r = classifyAbc(
      [c("old", "10"), c("new", "1000", "2026-01-01"), c("never", "0", null)],
      "2026-03-10",
    );
    expect(Object.fromEntries(r)).toEqual({ old: "A", new: null, never: null });
  });
});

describe("lifetime and LTV", () => {
  it("takes the median tenure of engaged customers, clamped to [1, 5] years", () => {
    const asOf = "2026-03-10";
    expect(expectedLifetimeYears([], asOf)).toBe(1);
    expect(
      expectedLifetimeYears(
        [
          { firstOrderDate: "2023-03-10", lastOrderDate: "2024-03-10", churned: true }, // 1.0
          { firstOrderDate: "2023-03-10", lastOrderDate: "2026-03-01", churned: false }, // 3.0 (to asOf)
          { firstOrderDate: "2024-03-10", lastOrderDate: "2026-01-01", churned: false }, // 2.0
        ],
        asOf,
      ),
    ).toBe(2);
    expect(
      expectedLifetimeYears(
        [{ firstOrderDate: "2010-01-01", lastOrderDate: "2026-01-01", churned: false }],
        asOf,
      ),
    ).toBe(5);
    expect(
      expectedLifetimeYears(
        [{ firstOrderDate: "2026-01-01", lastOrderDate: "2026-02-01", churned: true }],
        asOf,
      ),
    ).toBe(1);
  });

  it("computes the LTVs of the spec, null without a margin, 0 when churned", () => {
    expect(historicalLtv("10000", "0.6")).toBe("6000");
    expect(historicalLtv("10000", null)).toBeNull();
    const base = { revenueTrailing12m: "1000", grossMargin: "0.5", expectedLifetimeYears: 3 };
    expect(projectedLtv({ ...base, churn: "Active" })).toBe("1500");
    expect(projectedLtv({ ...base, churn: "At-risk" })).toBe("750");
    expect(projectedLtv({ ...base, churn: "Churned" })).toBe("0");
    expect(projectedLtv({ ...base, grossMargin: null, churn: "Active" })).toBeNull();
  });
});

describe("computeBaselines", () => {
  const h = (over: Partial<ContactHistory> & { contactId: string }): ContactHistory => ({
    isCustomer: true,
    orderDates: [],
    orderCount: 0,
    firstPaidDate: null,
    paidInvoiceCount: 0,
    revenueAllTime: "0",
    revenueTrailing12m: "0",
    paymentDelays: [],
    spendAllTime: "0",
    billCount: 0,
    ...over,
  });
  it("fills every field of a customer and only spend for a supplier", () => {
    const monthly = [
      "2025-09-01",
      "2025-10-01",
      "2025-11-01",
      "2025-12-01",
      "2026-01-01",
      "2026-02-01",
      "2026-03-01",
    ];
    const run = computeBaselines(
      [
        h({
          contactId: "cust",
          orderDates: monthly,
          orderCount: 8,
          firstPaidDate: "2025-09-01",
          paidInvoiceCount: 6,
          revenueAllTime: "12000",
          revenueTrailing12m: "9000",
          paymentDelays: [3, -1, 10, 4],
        }),
        h({ contactId: "supp", isCustomer: false, spendAllTime: "5000", billCount: 4 }),
      ],
      { asOfDate: "2026-03-10", grossMargin: "0.4" },
    );
    expect(run.expectedLifetimeYears).toBe(1); // 0.52 years of tenure, clamped up
    expect(run.engagedCustomers).toBe(1);
    expect(run.contacts[0]).toEqual({
      contactId: "cust",
      isCustomer: true,
      firstOrderDate: "2025-09-01",
      lastOrderDate: "2026-03-01",
      firstPaidDate: "2025-09-01",
      orderCount: 8,
      paidInvoiceCount: 6,
      revenueAllTime: "12000",
      revenueTrailing12m: "9000",
      cadence: "MONTHLY",
      cadenceConfidence: 100,
      medianIntervalDays: 30.5,
      paymentDelayMedianDays: "3.5",
      churnClass: "Active",
      abcClass: "A",
      ltvCumulative: "4800",
      projectedLtv: "3600",
      spendAllTime: "0",
      billCount: 0,
    });
    expect(run.contacts[1]).toMatchObject({
      contactId: "supp",
      cadence: "NONE",
      churnClass: null,
      abcClass: null,
      ltvCumulative: null,
      projectedLtv: null,
      spendAllTime: "5000",
      billCount: 4,
    });
  });
});

describe("stats", () => {
  it("median and a regression with a Student-t p-value", () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 2, 3])).toBe(2.5);
    // Known value: t = 2.228 with 10 df is the two-sided 5% point.
    expect(studentTTwoSided(2.228, 10)).toBeCloseTo(0.05, 3);
    expect(studentTTwoSided(0, 5)).toBeCloseTo(1, 10);
    const up = linearRegression([1, 2.1, 2.9, 4.2, 5, 5.8, 7.1, 8, 9.2, 9.9, 11, 12.1]);
    expect(up.slope).toBeCloseTo(1, 1);
    expect(up.pValue).toBeLessThan(0.001);
    const flat = linearRegression([5, 7, 4, 6, 5, 7, 4, 6, 5, 7, 4, 6]);
    expect(flat.pValue).toBeGreaterThan(0.5);
  });
});
