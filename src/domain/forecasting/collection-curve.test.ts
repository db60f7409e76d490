import { describe, expect, it } from "vitest";
import {
  CURVE_DAYS,
  collectByWeek,
  curveFor,
  fitCollectionCurves,
  SHRINK_INVOICES,
} from "./collection-curve.ts";
import { addDays, dayNumber, mondayOnOrBefore } from "./dates.ts";
import type { SalesHistoryEntry } from "./types.ts";

const TODAY = "2026-03-11";
const invoice = (
  contactId: string,
  ageDays: number,
  paidAfter: number | null,
  total = "100",
): SalesHistoryEntry => {
  const issue = addDays(TODAY, -ageDays);
  return {
    contactId,
    issueDate: issue,
    total,
    currency: "AUD",
    currencyRate: null,
    dueDate: addDays(issue, 14),
    paidDate: paidAfter === null ? null : addDays(issue, paidAfter),
    accountId: null,
  };
};

describe("collection curves: the share of new sales in the bank k days after issue", () => {
  // Ten old invoices: 6 paid after 10 days, 2 after 40, 2 never (a fifth of sales never paid).
  const history = [
    ...Array.from({ length: 6 }, () => invoice("A", 200, 10)),
    ...Array.from({ length: 2 }, () => invoice("A", 200, 40)),
    ...Array.from({ length: 2 }, () => invoice("B", 200, null)),
  ];
  const curves = fitCollectionCurves(history, TODAY, "AUD");

  it("learns the organisation's curve, levelling off at the share ever paid", () => {
    const c = curves.organisation.cumulative;
    expect(c[9]).toBe(0);
    expect(c[10]).toBeCloseTo(0.6);
    expect(c[40]).toBeCloseTo(0.8);
    expect(c[CURVE_DAYS]).toBeCloseTo(0.8);
    expect(curves.organisation).toMatchObject({ observations: 10 });
  });

  it("judges day k only on invoices at least k days old: a recent unpaid one is not a bad debt", () => {
    const withRecent = fitCollectionCurves([...history, invoice("A", 5, null)], TODAY, "AUD");
    expect(withRecent.organisation.cumulative[10]).toBeCloseTo(0.6);
  });

  it("shrinks a customer's own curve toward the organisation's by pseudo-invoices", () => {
    // B: 2 invoices never paid; at day 40: (0 + 4 × 0.8) / (2 + 4).
    expect(curveFor(curves, "B").cumulative[40]).toBeCloseTo(
      (SHRINK_INVOICES * 0.8) / (2 + SHRINK_INVOICES),
    );
    expect(curveFor(curves, "nobody")).toBe(curves.organisation);
  });

  it("spreads expected orders over the weeks their money arrives", () => {
    const todayDay = dayNumber(TODAY);
    const week1 = mondayOnOrBefore(todayDay);
    const orders = new Float64Array(2);
    orders[1] = 1; // one order tomorrow (Thu 12 Mar)
    const weeks = collectByWeek(orders, curves.organisation, todayDay, week1, 13);
    // 60% ten days later (22 Mar, week 2), 20% forty days later (21 Apr, week 7).
    expect(weeks[1]).toBeCloseTo(0.6);
    expect(weeks[6]).toBeCloseTo(0.2);
    expect(weeks.reduce((a, b) => a + b, 0)).toBeCloseTo(0.8);
  });
});
