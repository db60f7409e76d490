import { describe, expect, it } from "vitest";
import { collectByWeek, curveFor } from "./collection-curve.ts";
import { buildForecastModel, computeForecast, WEEKS } from "./compute-forecast.ts";
import { fitCustomerTrend, trendFactor } from "./customer-trend.ts";
import { addDays, dayNumber } from "./dates.ts";
import { type CustomerModel, expectedOrdersByDay } from "./hazard.ts";
import { learnedParameters } from "./learned.ts";
import type { ForecastInput, SalesHistoryEntry } from "./types.ts";

const TODAY = "2026-03-11";
const T = dayNumber(TODAY);

/** A fitted customer whose orders fell on `days` (day numbers, oldest first). */
const customer = (contactId: string, days: number[]): CustomerModel => ({
  contactId,
  accountId: null,
  orderDays: days,
  intervals: days.slice(1).map((d, i) => d - (days[i] ?? d)),
  medianInterval: 14,
  typicalOrder: 10_000,
  paymentDelayDays: 0,
  bandwidth: 3.5,
});

/** Orders every `step` days over (from, to], the last one on `to`. */
const every = (step: number, from: number, to: number) => {
  const out: number[] = [];
  for (let d = to; d > from; d -= step) out.unshift(d);
  return out;
};

describe("growth and decline within regular customers", () => {
  it("finds no trend when customers order at the same pace a year apart", () => {
    const steady = Array.from({ length: 4 }, (_, i) => customer(`C${i}`, every(7, T - 600, T - i)));
    const t = fitCustomerTrend(steady, T);
    expect(t.earlier).toBe(t.later);
    expect(t).toMatchObject({ logPerYear: 0, rawLogPerYear: 0, customers: 4 });
  });

  it("halves the pace of customers whose orders went from weekly to fortnightly", () => {
    // Weekly until a year ago, fortnightly since: 26 orders in each customer's earlier
    // half-year (days T−545 … T−370), 13 in the last half-year (T−168 … T).
    const slowing = Array.from({ length: 10 }, (_, i) =>
      customer(`C${i}`, [...every(7, T - 560, T - 370), ...every(14, T - 364, T)]),
    );
    const t = fitCustomerTrend(slowing, T);
    expect(t).toMatchObject({ earlier: 260, later: 130, customers: 10 });
    const g = (Math.log(0.5) * 365) / 364;
    expect(t.rawLogPerYear).toBeCloseTo(g, 12);
    // Shrunk by its Poisson standard error: se² = (1/260 + 1/130) ÷ (364/365)².
    const se2 = (1 / 260 + 1 / 130) / (364 / 365) ** 2;
    expect(t.logPerYear).toBeCloseTo(g ** 3 / (g ** 2 + se2), 12);
    expect(t.from).toBe(T - 545);
    expect(t.to).toBe(T);
  });

  it("counts only customers already ordering before the earlier half-year, and keeps thin evidence near 0", () => {
    const young = customer("young", every(7, T - 300, T));
    expect(fitCustomerTrend([young], T)).toMatchObject({
      logPerYear: 0,
      earlier: 0,
      later: 0,
      customers: 0,
      from: null,
    });
    // One order against two: ln ½ is no evidence next to its standard error (√1.5 ≈ 1.22).
    const thin = customer("thin", [T - 700, T - 500, T - 450, T - 10]);
    const t = fitCustomerTrend([thin], T);
    expect(t).toMatchObject({ earlier: 2, later: 1 });
    expect(Math.abs(t.logPerYear)).toBeLessThan(Math.abs(t.rawLogPerYear) / 3);
  });

  it("carries expected orders from today to each coming day along the trend, within [½, 2]", () => {
    const trend = { ...fitCustomerTrend([], T), logPerYear: Math.log(0.5) };
    expect(trendFactor(trend, 0)).toBe(1);
    expect(trendFactor(trend, 73)).toBeCloseTo(0.5 ** (73 / 365), 12);
    // Two years on the factor would be ¼: held at ½; a tripling a year, two years on, at 2.
    expect(trendFactor(trend, 730)).toBe(0.5);
    expect(trendFactor({ ...trend, logPerYear: Math.log(3) }, 730)).toBe(2);
    expect(trendFactor({ ...trend, logPerYear: 0 }, 73)).toBe(1);
  });
});

describe("the forecast with the customer trend", () => {
  const sale = (contactId: string, day: number): SalesHistoryEntry => {
    const issueDate = addDays(TODAY, day - T);
    return {
      contactId,
      issueDate,
      total: "100",
      currency: "AUD",
      currencyRate: null,
      dueDate: addDays(issueDate, 14),
      paidDate: day + 10 <= T ? addDays(issueDate, 10) : null,
      accountId: null,
    };
  };
  // Twelve customers ordering weekly until a year ago, fortnightly since; invoices after today
  // must not be read (they would say the decline went on).
  const ids = Array.from({ length: 12 }, (_, i) => `C${i}`);
  const history = ids.flatMap((id) =>
    [...every(7, T - 600, T - 365), ...every(14, T - 364, T), ...every(28, T, T + 120)].map((d) =>
      sale(id, d),
    ),
  );
  const input: Omit<ForecastInput, "scenario"> = {
    now: new Date(`${TODAY}T02:00:00Z`),
    timezone: "UTC",
    baseCurrency: "AUD",
    startingCash: "0",
    openItems: [],
    purchaseOrders: [],
    salesHistory: history,
    recurringHistory: [],
    customers: ids.map((contactId) => ({ contactId, name: contactId, active: true })),
    accounts: [],
  };

  it("lowers expected orders of customers who order less, from orders up to today only, and lists its evidence", () => {
    const model = buildForecastModel(input);
    expect(model.customerTrend).toMatchObject({ earlier: 12 * 26, later: 12 * 13, customers: 12 });
    const truncated = buildForecastModel({
      ...input,
      salesHistory: history.filter((e) => dayNumber(e.issueDate) <= T),
    });
    expect(truncated.customerTrend).toEqual(model.customerTrend);
    const orders = [...model.weeklyOrders.values()].map((w) => w.reduce((a, b) => a + b, 0));
    // Without the trend: the same customer's orders collected the same way.
    const c0 = model.customers[0] as CustomerModel;
    const raw = collectByWeek(
      expectedOrdersByDay(c0, T, model.horizonEnd - T),
      curveFor(model.curves, c0.contactId),
      T,
      model.week1Start,
      WEEKS,
    ).reduce((a, b) => a + b, 0);
    // The pace halved in a year (ln ½ shrunk to −0.681 a year), carried from today to days
    // 1 … 88 of the horizon: factors from e^(−0.681/365) = 0.998 down to e^(−0.681·88/365) =
    // 0.849; the orders of days 8 … 88 hold nearly all of the 13 weeks' collections.
    expect(orders).toHaveLength(12);
    expect(raw).toBeGreaterThan(5);
    for (const n of orders) {
      expect(n / raw).toBeGreaterThan(0.849);
      expect(n / raw).toBeLessThan(0.985);
    }
    const learned = learnedParameters(model, {
      lines: [],
      predictions: [],
    } as unknown as Parameters<typeof learnedParameters>[1]);
    expect(learned.customerTrend).toEqual([
      {
        contactId: null,
        changePerYear: Math.round((Math.exp(model.customerTrend.logPerYear) - 1) * 1000) / 1000,
        measuredChangePerYear: -0.501,
        ordersEarlier: 312,
        ordersLater: 156,
        customers: 12,
        observations: 468,
        from: addDays(TODAY, -545),
        to: TODAY,
      },
    ]);
  });

  it("carries the trend on the other customers' run rate from the middle of its window", () => {
    // Thirteen customers with one order each in the last 91 days: the run rate of other
    // customers, 9,100.00 in the window.
    const others = Array.from({ length: 13 }, (_, k) => ({
      ...sale(`O${k}`, T - 7 * k),
      total: "700",
    }));
    const withOthers = { ...input, salesHistory: [...history, ...others] };
    const model = buildForecastModel(withOthers);
    const scenario = { id: "base", name: "Base", kind: "BASE" as const, assumptions: {} };
    const runRate = (m: typeof model) =>
      computeForecast({ ...withOthers, scenario }, m)
        .runRates.find((r) => r.kind === "customers")
        ?.amounts.map(Number) ?? [];
    const trended = runRate(model);
    const flat = runRate({ ...model, customerTrend: { ...model.customerTrend, logPerYear: 0 } });
    // The window's pace is its middle's, 45.5 days ago: day j of the horizon is at
    // e^(−0.681·(j + 45.5)/365), from 0.919 (today) down to 0.779 (day 88).
    const ratio = (w: number) => (trended[w] ?? 0) / (flat[w] ?? 1);
    const total = (a: number[]) => a.reduce((x, y) => x + y, 0);
    expect(total(flat)).toBeGreaterThan(5_000);
    expect(total(trended) / total(flat)).toBeGreaterThan(0.779);
    expect(total(trended) / total(flat)).toBeLessThan(0.919);
    for (let w = 2; w < WEEKS; w++) expect(ratio(w)).toBeLessThan(ratio(w - 1));
  });
});
