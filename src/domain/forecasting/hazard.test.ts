import { describe, expect, it } from "vitest";
import { computeForecast } from "./compute-forecast.ts";
import { addDays, dayNumber } from "./dates.ts";
import { expectedOrdersByDay, fitCustomers } from "./hazard.ts";
import type { ForecastInput, SalesHistoryEntry } from "./types.ts";

const TODAY = "2026-03-11";
const order = (
  contactId: string,
  daysAgo: number,
  total = "100",
  paidAfter: number | null = 10,
): SalesHistoryEntry => {
  const issueDate = addDays(TODAY, -daysAgo);
  return {
    contactId,
    issueDate,
    total,
    currency: "AUD",
    currencyRate: null,
    dueDate: addDays(issueDate, 14),
    paidDate: paidAfter === null || daysAgo - paidAfter < 0 ? null : addDays(issueDate, paidAfter),
    accountId: "acc_sales",
  };
};
const every = (
  contactId: string,
  interval: number,
  count: number,
  lastDaysAgo: number,
  total = "100",
) =>
  Array.from({ length: count }, (_, i) =>
    order(contactId, lastDaysAgo + interval * (count - 1 - i), total),
  );
const active = (...ids: string[]) =>
  ids.map((contactId) => ({ contactId, name: contactId, active: true }));
const sum = (a: Float64Array) => a.reduce((x, y) => x + y, 0);

describe("hazard model of customer orders", () => {
  it("fits a regular customer: median order, median payment delay, median interval", () => {
    const history = [
      order("A", 42, "100", 5),
      order("A", 28, "1000", 9),
      order("A", 14, "100", 9),
      order("A", 0, "120", null),
    ];
    const [m] = fitCustomers(history, active("A"), TODAY, "AUD");
    expect(m).toMatchObject({
      contactId: "A",
      typicalOrder: 11000,
      paymentDelayDays: 9,
      medianInterval: 14,
      accountId: "acc_sales",
    });
  });

  it("leaves out irregular, lapsed, inactive and barely known customers", () => {
    // Bursty: intervals 1, 1, 150, 2, 1 (coefficient of variation about 1.9).
    const irregular = [
      order("I", 160),
      order("I", 159),
      order("I", 158),
      order("I", 8),
      order("I", 6),
      order("I", 5),
    ];
    const young = every("Y", 14, 2, 5); // two orders: one interval
    const archived = every("X", 14, 6, 5);
    const fitted = fitCustomers(
      [...irregular, ...young, ...archived],
      [...active("I", "Y"), { contactId: "X", name: "X", active: false }],
      TODAY,
      "AUD",
    );
    expect(fitted).toEqual([]);
    // Fitted, but silent for 60 days on a 14-day habit: lapsed, no expected orders.
    const [lapsed] = fitCustomers(every("L", 14, 6, 60), active("L"), TODAY, "AUD");
    expect(lapsed).toBeDefined();
    if (lapsed) expect(sum(expectedOrdersByDay(lapsed, dayNumber(TODAY), 90))).toBe(0);
  });

  it("places the next order where the habit says, and later ones by renewal", () => {
    // Every 14 days, the last one 7 days ago: next expected in 7 days, then every 14.
    const [m] = fitCustomers(every("F", 14, 8, 7), active("F"), TODAY, "AUD");
    if (!m) throw new Error("not fitted");
    const perDay = expectedOrdersByDay(m, dayNumber(TODAY), 84);
    const firstTen = [...perDay.slice(1, 11)];
    expect(firstTen.indexOf(Math.max(...firstTen)) + 1).toBe(7);
    // Six orders within 84 days, around days 7, 21, 35, 49, 63 and 77.
    expect(sum(perDay)).toBeGreaterThan(5.8);
    expect(sum(perDay)).toBeLessThan(6.2);
    // A customer further into the cycle is due sooner: mass in the next 3 days.
    const [late] = fitCustomers(every("G", 14, 8, 13), active("G"), TODAY, "AUD");
    if (!late) throw new Error("not fitted");
    const soon = expectedOrdersByDay(late, dayNumber(TODAY), 3);
    expect(sum(soon)).toBeGreaterThan(0.5);
  });

  it("feeds forecastInflow: one line per week, the customers' amounts adding up to it", () => {
    const input: ForecastInput = {
      now: new Date("2026-03-11T01:00:00Z"),
      timezone: "Australia/Sydney",
      baseCurrency: "AUD",
      startingCash: "0",
      openItems: [],
      purchaseOrders: [],
      salesHistory: [...every("F", 14, 8, 7, "500"), ...every("M", 30, 6, 20, "2000")],
      recurringHistory: [],
      customers: active("F", "M"),
      accounts: [{ id: "acc_sales", name: "Sales" }],
      scenario: { id: "s", name: "Base", kind: "BASE", assumptions: {} },
    };
    const r = computeForecast(input);
    expect(r.predictions.map((p) => p.contactId)).toEqual(["F", "M"]);
    r.weeks.forEach((w, i) => {
      const fromCustomers = r.predictions.reduce(
        (a, p) => a + BigInt(Math.round(Number(p.amounts[i]) * 100)),
        0n,
      );
      expect(BigInt(Math.round(Number(w.forecastInflow) * 100))).toBe(fromCustomers);
      expect(w.guaranteedInflow).toBe("0");
      expect(w.inflow).toBe(w.forecastInflow);
      if (w.forecastInflow !== "0") {
        expect(w.itemIds).toEqual([`pred_${w.weekStart}`]);
        expect(w.probabilityWeighted).toBe(true);
        expect(w.categories.sources.PREDICTED?.inflow).toBe(w.forecastInflow);
      }
    });
    // F: 500 every 14 days paid 10 days after ordering → about 6 × 500 over 13 weeks.
    const total = Number(r.totalInflow);
    expect(total).toBeGreaterThan(5000);
  });
});
