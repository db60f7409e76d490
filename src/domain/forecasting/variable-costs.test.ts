import { describe, expect, it } from "vitest";
import { buildForecastModel, computeForecast } from "./compute-forecast.ts";
import { addDays } from "./dates.ts";
import { learnedParameters } from "./learned.ts";
import type {
  ForecastInput,
  OpenPurchaseOrder,
  RecurringHistoryEntry,
  SalesHistoryEntry,
} from "./types.ts";
import { fitVariableCosts, variableBillsByDay } from "./variable-costs.ts";

/*
 * Variable costs on a hand-built ledger. Today is Wednesday 11 March 2026 in Sydney: week 1 is
 * Mon 9 – Sun 15 March, so its coming days are Thu 12 – Sun 15 (4 days); week 13 ends Sun 7 June
 * (88 coming days in all).
 */
const NOW = new Date("2026-03-11T01:00:00Z");
const TODAY = "2026-03-11";

/** A one-off sale `daysAgo`: customers with one order are the run rate of other customers. */
const sale = (contactId: string, daysAgo: number, total: string): SalesHistoryEntry => {
  const issueDate = addDays(TODAY, -daysAgo);
  return {
    contactId,
    issueDate,
    total,
    currency: "AUD",
    currencyRate: null,
    dueDate: addDays(issueDate, 14),
    paidDate: addDays(issueDate, 14),
    accountId: "acc_sales",
  };
};

/** A supplier's bill `daysAgo`, paid `paidAfter` days after issue (null: still open). */
const bill = (
  contactId: string,
  daysAgo: number,
  amount: string,
  paidAfter: number | null,
  accountId = "acc_stock",
): RecurringHistoryEntry => {
  const date = addDays(TODAY, -daysAgo);
  return {
    kind: "bill",
    contactId,
    contactName: contactId,
    accountId,
    date,
    dueDate: addDays(date, 30),
    paidDate: paidAfter === null ? null : addDays(date, paidAfter),
    amount,
    currency: "AUD",
    currencyRate: null,
  };
};

// Sales of the last 91 days: 9,100.00, i.e. 100.00 a day at the run rate; none earlier.
const SALES = [
  sale("C1", 10, "2000"),
  sale("C2", 30, "3100"),
  sale("C3", 50, "1500"),
  sale("C4", 80, "2500"),
];
// Stock bills of irregular suppliers over the year: 2,275.00 = 25% of sales, each paid on its
// issue date. The monthly rent is a recurring stream: not a variable cost.
const BILLS = [
  bill("BEANS", 5, "500", 0),
  bill("BEANS", 40, "400", 0),
  bill("BEANS", 85, "300", 0),
  bill("CUPS", 20, "375", 0),
  bill("CUPS", 60, "300", 0),
  bill("FREIGHT", 70, "400", 0),
  bill("BEANS", 400, "9999", 0), // older than a year: not in the window
  ...[150, 120, 90, 60, 30].map((d) => bill("RENT", d, "3000", 0, "acc_rent")),
];

/** The fit as at TODAY of `bills` against `sales`; the RENT stream's bills are recurring. */
const fitOn = (bills: RecurringHistoryEntry[] = BILLS, sales: SalesHistoryEntry[] = SALES) =>
  fitVariableCosts({
    today: TODAY,
    baseCurrency: "AUD",
    salesHistory: sales,
    recurringHistory: bills,
    excludedSuppliers: new Set(["RENT"]),
  });

const input = (purchaseOrders: OpenPurchaseOrder[] = []): ForecastInput => ({
  now: NOW,
  timezone: "Australia/Sydney",
  baseCurrency: "AUD",
  startingCash: "50000",
  openItems: [],
  purchaseOrders,
  salesHistory: SALES,
  recurringHistory: BILLS,
  customers: ["C1", "C2", "C3", "C4"].map((id) => ({ contactId: id, name: id, active: true })),
  accounts: [],
  scenario: { id: "base", name: "Base", kind: "BASE", assumptions: {} },
});

const order = (id: string, total: string): OpenPurchaseOrder => ({
  id,
  status: "AUTHORISED",
  total,
  currency: "AUD",
  currencyRate: null,
  issueDate: "2026-03-09",
  deliveryDate: "2026-03-20",
  expectedArrivalDate: null,
  contactId: "BEANS",
  accountId: "acc_stock",
  suppressedReason: null,
});

describe("variable costs: bills as the share of sales they have been", () => {
  it("learns the share from the last year's bills outside recurring streams", () => {
    const fit = fitOn();
    expect(fit).toMatchObject({
      ratio: 0.25,
      billsTotal: 227_500,
      bills: 6,
      salesTotal: 910_000,
      invoices: 4,
      from: "2025-03-12",
      to: TODAY,
      accountId: "acc_stock",
    });
    // Every bill paid on its issue date: the whole amount on day 0.
    expect(fit?.payment.cumulative[0]).toBe(1);
  });

  it("needs six bills and some sales", () => {
    expect(fitOn(BILLS.slice(0, 5), SALES)).toBeNull();
    expect(fitOn(BILLS.slice(0, 6), [])).toBeNull();
    expect(fitOn(BILLS.slice(0, 6), SALES)?.ratio).toBe(0.25);
  });

  it("learns when bills are paid from the bills themselves", () => {
    // Half the amount paid 10 days after issue, half 30 days after; an open bill 5 days old
    // judges only days 0 to 5.
    const fit = fitOn([
      ...[100, 110, 120].map((d) => bill("A", d, "100", 10)),
      ...[130, 140, 150].map((d) => bill("B", d, "100", 30)),
      bill("C", 5, "100", null),
    ]);
    const c = fit?.payment.cumulative;
    expect([c?.[9], c?.[10], c?.[29], c?.[30]]).toEqual([0, 0.5, 0.5, 1]);
  });

  it("open purchase orders stand for the first coming bills", () => {
    const fit = fitOn();
    if (!fit) throw new Error("no fit");
    // 25% of 100.00 a day is 25.00 a day; 60.00 already ordered takes the first 2.4 days.
    const byDay = variableBillsByDay(fit, [0, 10_000, 10_000, 10_000, 10_000], 6_000);
    expect(Array.from(byDay)).toEqual([0, 0, 0, 1_500, 2_500]);
  });

  it("forecasts the share of the expected sales, paid as the bills have been", () => {
    const result = computeForecast(input());
    const predictedOut = result.weeks.map((w) => w.categories.sources.PREDICTED?.outflow ?? "0");
    // 25.00 a day of coming sales (the run rate of other customers, 100.00 a day), paid on the
    // day: 4 days in week 1, 7 in every later week.
    expect(predictedOut).toEqual(["100", ...Array(12).fill("175")]);
    expect(result.runRates.find((r) => r.direction === "out")).toMatchObject({
      kind: "suppliers",
      windowTotal: "2275",
      windowDays: 365,
      amounts: ["100", ...Array(12).fill("175")],
    });
    // The rent stays a recurring stream: nothing of it in the variable costs.
    expect(result.lines.some((l) => l.source === "RECURRING" && l.contactId === "RENT")).toBe(true);
  });

  it("takes an open purchase order's amount from the first predicted bills", () => {
    // 150.00 ordered: week 1's 100.00 and 50.00 of week 2's 175.00.
    const result = computeForecast(input([order("po1", "150")]));
    const predictedOut = result.weeks.map((w) => w.categories.sources.PREDICTED?.outflow ?? "0");
    expect(predictedOut.slice(0, 3)).toEqual(["0", "125", "175"]);
  });

  it("explain lists the share with its evidence", () => {
    const i = input();
    const model = buildForecastModel(i);
    const learned = learnedParameters(model, computeForecast(i, model));
    expect(learned.variableCosts).toEqual([
      {
        contactId: null,
        shareOfSales: 0.25,
        bills: "2275",
        sales: "9100",
        paidBy30Days: 1,
        observations: 6,
        invoices: 4,
        from: "2025-03-12",
        to: TODAY,
      },
    ]);
  });
});
