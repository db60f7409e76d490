import { describe, expect, it } from "vitest";
import { canonical, sum as moneySum } from "../money.ts";
import { buildForecastModel, computeForecast, ENGINE_VERSION } from "./compute-forecast.ts";
import { addDays } from "./dates.ts";
import { learnedParameters } from "./learned.ts";
import type {
  ForecastInput,
  ForecastResult,
  OpenItem,
  OpenPurchaseOrder,
  RecurringHistoryEntry,
  ScenarioAssumptions,
  ScenarioKind,
} from "./types.ts";

/*
 * A hand-computed golden scenario. Pinned: Wednesday 11 March 2026, noon in Sydney. Week 1 is
 * Mon 9 – Sun 15 March; week 13 ends Sun 7 June. Every expected number below was worked out by
 * hand from the items (see the comments), not read back from the engine.
 */
const NOW = new Date("2026-03-11T01:00:00Z");

function item(
  p: Partial<OpenItem> & Pick<OpenItem, "id" | "source" | "amount" | "expectedDate">,
): OpenItem {
  return {
    ledgerStatus: p.source === "LEDGER_INVOICE" || p.source === "LEDGER_BILL" ? "AUTHORISED" : null,
    currency: "AUD",
    currencyRate: null,
    dueDate: p.expectedDate,
    issueDate: null,
    contactId: null,
    accountId: null,
    probability: null,
    ...p,
  };
}

const OPEN_ITEMS: OpenItem[] = [
  // Receivables.
  item({
    id: "inv1",
    source: "LEDGER_INVOICE",
    amount: "1000",
    expectedDate: "2026-03-20",
    contactId: "CUST1",
    accountId: "acc_sales",
  }),
  item({
    id: "inv2",
    source: "LEDGER_INVOICE",
    amount: "500",
    expectedDate: "2026-03-01",
    contactId: "CUST2",
    accountId: "acc_sales",
  }), // 10 days overdue
  item({
    id: "inv3",
    source: "LEDGER_INVOICE",
    amount: "300",
    expectedDate: "2026-01-01",
    contactId: "CUST2",
    accountId: "acc_sales",
  }), // 69 days overdue
  item({
    id: "inv4",
    source: "LEDGER_INVOICE",
    ledgerStatus: "DRAFT",
    amount: "999",
    expectedDate: "2026-03-18",
    contactId: "CUST2",
  }), // drafts never count
  item({
    id: "inv5",
    source: "LEDGER_INVOICE",
    ledgerStatus: "SUBMITTED",
    amount: "200",
    expectedDate: "2026-04-02",
    contactId: "CUST2",
    accountId: "acc_sales",
  }),
  item({
    id: "inv6",
    source: "LEDGER_INVOICE",
    amount: "650",
    currency: "USD",
    currencyRate: "0.65",
    expectedDate: "2026-03-26",
    contactId: "CUST1",
    accountId: "acc_sales",
  }), // 650 USD = 1000 AUD
  item({
    id: "inv7",
    source: "LEDGER_INVOICE",
    amount: "700",
    expectedDate: "2026-04-15",
    dueDate: "2026-03-25",
    contactId: "CUST2",
    accountId: "acc_sales",
  }), // expected after due
  item({
    id: "inv8",
    source: "LEDGER_INVOICE",
    amount: "5000",
    expectedDate: "2026-07-01",
    contactId: "CUST2",
  }), // beyond week 13
  item({
    id: "inv9",
    source: "LEDGER_INVOICE",
    amount: "50",
    expectedDate: "2025-12-01",
    contactId: "CUST2",
    accountId: "acc_sales",
  }), // 100 days overdue
  // Bills: bill1 has a planned date before its due date.
  item({
    id: "bill1",
    source: "LEDGER_BILL",
    amount: "400",
    expectedDate: "2026-03-13",
    dueDate: "2026-03-20",
    contactId: "SUPP1",
    accountId: "acc_cogs",
  }),
  item({
    id: "bill2",
    source: "LEDGER_BILL",
    amount: "150",
    expectedDate: "2026-03-05",
    contactId: "SUPP1",
    accountId: "acc_cogs",
  }), // overdue
  // March's rent bill is open: it stands for March's occurrence of the monthly rent.
  item({
    id: "rentMar",
    source: "LEDGER_BILL",
    amount: "2000",
    expectedDate: "2026-03-15",
    issueDate: "2026-03-01",
    contactId: "RENT",
    accountId: "acc_rent",
  }),
  // Manual and pipeline items.
  item({ id: "man1", source: "MANUAL", amount: "250", expectedDate: "2026-03-17" }),
  item({ id: "man2", source: "MANUAL", amount: "-100", expectedDate: "2026-04-01" }),
  item({
    id: "pipe1",
    source: "PIPELINE",
    amount: "1000",
    probability: "0.4",
    expectedDate: "2026-04-08",
    accountId: "acc_sales",
  }),
];

const PURCHASE_ORDERS: OpenPurchaseOrder[] = [
  {
    id: "po1",
    status: "AUTHORISED",
    total: "330",
    currency: "AUD",
    currencyRate: null,
    issueDate: "2026-03-02",
    deliveryDate: "2026-03-24",
    expectedArrivalDate: null,
    contactId: "SUPP1",
    accountId: "acc_cogs",
    suppressedReason: null,
  },
  {
    id: "po2",
    status: "AUTHORISED",
    total: "999",
    currency: "AUD",
    currencyRate: null,
    issueDate: "2026-03-02",
    deliveryDate: "2026-03-24",
    expectedArrivalDate: null,
    contactId: "SUPP1",
    accountId: "acc_cogs",
    suppressedReason: "REFERENCE",
  },
  {
    id: "po3",
    status: "BILLED",
    total: "999",
    currency: "AUD",
    currencyRate: null,
    issueDate: "2026-03-02",
    deliveryDate: "2026-03-24",
    expectedArrivalDate: null,
    contactId: "SUPP1",
    accountId: null,
    suppressedReason: null,
  },
  {
    id: "po4",
    status: "DRAFT",
    total: "999",
    currency: "AUD",
    currencyRate: null,
    issueDate: "2026-03-02",
    deliveryDate: "2026-03-24",
    expectedArrivalDate: null,
    contactId: "SUPP1",
    accountId: null,
    suppressedReason: null,
  },
];

const rent = (issue: string, due: string): RecurringHistoryEntry => ({
  kind: "bill",
  contactId: "RENT",
  contactName: "Landlord",
  accountId: "acc_rent",
  date: issue,
  dueDate: due,
  amount: "2000",
  currency: "AUD",
  currencyRate: null,
});
const pay = (date: string): RecurringHistoryEntry => ({
  kind: "spend",
  contactId: "PAYROLL",
  contactName: "Payroll",
  accountId: "acc_wages",
  date,
  dueDate: null,
  amount: "3000",
  currency: "AUD",
  currencyRate: null,
});
// Paid rent bills on the 1st, due on the 15th; payroll every second Thursday, last 5 March.
const RECURRING: RecurringHistoryEntry[] = [
  rent("2025-09-01", "2025-09-15"),
  rent("2025-10-01", "2025-10-15"),
  rent("2025-11-01", "2025-11-15"),
  rent("2025-12-01", "2025-12-15"),
  rent("2026-01-01", "2026-01-15"),
  rent("2026-02-01", "2026-02-15"),
  pay("2025-12-11"),
  pay("2025-12-25"),
  pay("2026-01-08"),
  pay("2026-01-22"),
  pay("2026-02-05"),
  pay("2026-02-19"),
  pay("2026-03-05"),
];

// Payment history (lateness = paid − due): CUST1 5, 7, 9 days; CUST2 10, 12, 14, 80; CUST3 and
// CUST4 on time. Across the organisation: −1, 0, 0, 0, 5, 7, 9, 10, 12, 14, 80.
const paid = (contactId: string, due: string, paidOn: string) => ({
  contactId,
  issueDate: "2025-10-01",
  total: "100",
  currency: "AUD",
  currencyRate: null,
  dueDate: due,
  paidDate: paidOn,
  accountId: "acc_sales",
});
const SALES = [
  paid("CUST1", "2025-11-01", "2025-11-06"),
  paid("CUST1", "2025-12-01", "2025-12-08"),
  paid("CUST1", "2026-01-01", "2026-01-10"),
  paid("CUST2", "2025-11-01", "2025-11-11"),
  paid("CUST2", "2025-12-01", "2025-12-13"),
  paid("CUST2", "2026-01-01", "2026-01-15"),
  paid("CUST2", "2026-02-01", "2026-04-22"),
  paid("CUST3", "2025-11-01", "2025-11-01"),
  paid("CUST3", "2025-12-01", "2025-11-30"),
  paid("CUST3", "2026-01-01", "2026-01-01"),
  paid("CUST4", "2026-02-01", "2026-02-01"),
];

function input(kind: ScenarioKind, assumptions: ScenarioAssumptions = {}): ForecastInput {
  return {
    now: NOW,
    timezone: "Australia/Sydney",
    baseCurrency: "AUD",
    startingCash: "10000",
    openItems: OPEN_ITEMS,
    purchaseOrders: PURCHASE_ORDERS,
    salesHistory: SALES,
    recurringHistory: RECURRING,
    customers: [], // no predicted orders in this scenario (see hazard.test.ts)
    accounts: [
      { id: "acc_sales", name: "Sales" },
      { id: "acc_cogs", name: "Purchases" },
      { id: "acc_rent", name: "Rent" },
      { id: "acc_wages", name: "Wages" },
    ],
    scenario: { id: `scn_${kind}`, name: kind, kind, assumptions },
  };
}

const closings = (r: ForecastResult) => r.weeks.map((w) => w.closing);
const weekOf = (r: ForecastResult, id: string) =>
  r.weeks.findIndex((w) => w.itemIds.includes(id)) + 1;

describe("computeForecast, golden scenario pinned to Wed 11 March 2026 (Sydney)", () => {
  it("builds 13 Monday-to-Sunday weeks, the first holding today", () => {
    const r = computeForecast(input("BASE"));
    expect(r.engineVersion).toBe(ENGINE_VERSION);
    expect(r.asOfDate).toBe("2026-03-11");
    expect(r.weeks).toHaveLength(13);
    expect(r.weeks[0]).toMatchObject({
      weekStart: "2026-03-09",
      weekEnd: "2026-03-15",
      opening: "10000",
    });
    expect(r.weeks[12]).toMatchObject({ weekStart: "2026-06-01", weekEnd: "2026-06-07" });
  });

  it("BASE: receivables when their customer habitually pays, overdue ones from week 1, the chain exact", () => {
    const r = computeForecast(input("BASE"));
    // Week 1: inv2 (due 1 Mar, 10 days late and unpaid at the end of today) spread over CUST2's
    // payments more than 10 days late: 12, 14 (13, 15 Mar: ⅔ of 500 in week 1) and 80 (20 May:
    // ⅓ in week 11); out bill1 400 (planned 13 Mar) + bill2 150 + March rent 2000.
    expect(r.weeks[0]).toMatchObject({
      inflow: "333.33",
      guaranteedInflow: "333.33",
      forecastInflow: "0",
      outflow: "2550",
      net: "-2216.67",
      closing: "7783.33",
      itemIds: ["inv2", "bill1", "bill2", "rentMar"],
      overdueItemIds: ["inv2", "bill2"],
      probabilityWeighted: false,
    });
    // Week 2: inv3, 69 days late: only CUST2's 80-day payment was that late → 1 Jan + 80 = 22 Mar;
    // manual 250 in; payroll 19 Mar out.
    expect(r.weeks[1]).toMatchObject({
      inflow: "550",
      outflow: "3000",
      closing: "5333.33",
      overdueItemIds: ["inv3"],
    });
    // Week 3: inv1 (due 20 Mar; CUST1 paid 5, 7 and 9 days late → 25, 27, 29 Mar); po1 330 out.
    expect(r.weeks[2]).toMatchObject({
      inflow: "1000",
      outflow: "330",
      closing: "6003.33",
      itemIds: ["inv1", "po1"],
    });
    expect(r.weeks[2]?.categories).toEqual({
      accounts: {
        acc_cogs: { name: "Purchases", inflow: "0", outflow: "330" },
        acc_sales: { name: "Sales", inflow: "1000", outflow: "0" },
      },
      sources: {
        LEDGER_INVOICE: { inflow: "1000", outflow: "0" },
        PURCHASE_ORDER: { inflow: "0", outflow: "330" },
      },
    });
    // Week 4: inv6 650 USD at 0.65 = 1000 AUD (due 26 Mar + 7); manual −100 and payroll 2 Apr out.
    expect(r.weeks[3]).toMatchObject({ inflow: "1000", outflow: "3100", closing: "3903.33" });
    // Week 5: the pipeline deal weighted 1000 × 0.4; ¼ of inv5 (SUBMITTED, due 2 Apr; CUST2's
    // 10 days → 12 Apr).
    expect(r.weeks[4]).toMatchObject({
      inflow: "450",
      guaranteedInflow: "450",
      outflow: "0",
      closing: "4353.33",
      probabilityWeighted: true,
    });
    // Week 6: half of inv5 (12 and 14 days → 14, 16 Apr; its last quarter, 80 days, is after
    // the horizon), inv7 at its ledger expected date 15 Apr; April rent (15 Apr) and payroll.
    expect(r.weeks[5]).toMatchObject({
      inflow: "800",
      outflow: "5000",
      closing: "153.33",
      itemIds: ["inv5", "inv7", expect.stringMatching(/^rec_/), expect.stringMatching(/^rec_/)],
    });
    // inv2's extra third (41.67) moves from week 1 to week 11.
    expect(closings(r)).toEqual([
      "7783.33",
      "5333.33",
      "6003.33",
      "3903.33",
      "4353.33",
      "153.33",
      "153.33",
      "-2846.67",
      "-2846.67",
      "-7846.67",
      "-7680",
      "-10680",
      "-10680",
    ]);
    expect(r).toMatchObject({
      startingCash: "10000",
      endingCash: "-10680",
      totalInflow: "4300",
      totalOutflow: "24980",
      minClosingCash: "-10680",
      minClosingCashWeekIndex: 11,
    });
    // inv2's last third lands in week 11 (1 Mar + 80 = 20 May).
    expect(r.lines.filter((l) => l.itemId === "inv2").map((l) => [l.weekIndex, l.amount])).toEqual([
      [0, "333.33"],
      [10, "166.67"],
    ]);
    // Drafts, suppressed / billed / draft purchase orders and items past week 13 never appear;
    // inv9 is later than any payment the organisation ever received: doubtful, left out.
    const all = r.weeks.flatMap((w) => w.itemIds);
    for (const id of ["inv4", "po2", "po3", "po4", "inv8", "inv9"]) expect(all).not.toContain(id);
    expect(r.excluded).toEqual([
      {
        itemId: "inv5",
        reason:
          "1 of 4 of the customer's past invoices this late were paid after the 13-week horizon or not at all",
      },
      { itemId: "inv8", reason: "beyond the 13-week horizon" },
      { itemId: "inv9", reason: "doubtful: 100 days overdue, later than any past payment" },
    ]);
  });

  it("receivableTiming `due` (a CUSTOM option) is the ledger's date rule: overdue ones all in week 1", () => {
    const r = computeForecast(input("CUSTOM", { receivableTiming: "due" }));
    expect(r.weeks[0]?.overdueItemIds).toEqual(["inv2", "inv3", "inv9", "bill2"]);
    expect(weekOf(r, "inv1")).toBe(2); // 20 Mar
    expect(weekOf(r, "inv7")).toBe(6); // its ledger expected date, 15 Apr
  });

  it("recurring: projects rent and payroll, and the open March rent bill is not counted twice", () => {
    const r = computeForecast(input("BASE"));
    const recurring = r.lines.filter((l) => l.source === "RECURRING");
    expect(recurring.map((l) => [l.date, l.amount, l.direction])).toEqual([
      // Payroll (fortnightly, from 5 Mar) and rent (monthly, 1st + 14 days), by week.
      ["2026-03-19", "3000", "out"],
      ["2026-04-02", "3000", "out"],
      ["2026-04-15", "2000", "out"],
      ["2026-04-16", "3000", "out"],
      ["2026-04-30", "3000", "out"],
      ["2026-05-15", "2000", "out"],
      ["2026-05-14", "3000", "out"],
      ["2026-05-28", "3000", "out"],
    ]);
    // March's occurrence (issued 1 Mar, due 15 Mar) is the open bill, not a projection.
    expect(recurring.some((l) => l.date === "2026-03-15")).toBe(false);
    expect(r.weeks[0]?.itemIds.filter((id) => id.startsWith("rec_"))).toEqual([]);
    // The same holds when the open bill is part of the stream's history (as the loader passes it).
    const withOpen = input("BASE");
    const r2 = computeForecast({
      ...withOpen,
      recurringHistory: [...RECURRING, rent("2026-03-01", "2026-03-15")],
    });
    expect(closings(r2)).toEqual(closings(r));
  });

  it("BEST: receivables 7 days early from the ledger's dates, no late payers, the pipeline fully converted", () => {
    const r = computeForecast(input("BEST"));
    expect(weekOf(r, "inv1")).toBe(1); // 20 Mar − 7 = 13 Mar
    expect(weekOf(r, "inv6")).toBe(2); // 26 Mar − 7
    expect(weekOf(r, "inv7")).toBe(2); // due 25 Mar (not the later expected date) − 7 = 18 Mar
    expect(weekOf(r, "inv5")).toBe(3); // 2 Apr − 7 = 26 Mar
    expect(r.weeks[0]?.overdueItemIds).toEqual(["inv2", "inv3", "inv9", "bill2"]); // inv1 is early, not overdue
    expect(r.weeks[4]).toMatchObject({ inflow: "1000", probabilityWeighted: false });
    expect(closings(r)).toEqual([
      "9300",
      "8250",
      "8120",
      "5020",
      "6020",
      "1020",
      "1020",
      "-1980",
      "-1980",
      "-6980",
      "-6980",
      "-9980",
      "-9980",
    ]);
    expect(r).toMatchObject({ totalInflow: "5000", totalOutflow: "24980", endingCash: "-9980" });
  });

  it("WORST: no receivable before due + its customer's median lateness, >60 days overdue left out", () => {
    const r = computeForecast(input("WORST"));
    expect(weekOf(r, "inv1")).toBe(3); // CUST1 median 7: 27 Mar
    // CUST2's median 13 days (14 Mar) or, later, its median among payments more than 10 days
    // late: 14 days (15 Mar).
    expect(r.lines.find((l) => l.itemId === "inv2")?.date).toBe("2026-03-15");
    expect(r.lines.find((l) => l.itemId === "inv5")?.date).toBe("2026-04-15"); // 2 Apr + 13
    expect(weekOf(r, "inv3")).toBe(0); // 69 days overdue: at risk
    expect(r.excluded).toContainEqual({ itemId: "inv3", reason: "at risk: 69 days overdue" });
    expect(r.excluded).toContainEqual({ itemId: "inv9", reason: "at risk: 100 days overdue" });
    expect(closings(r)).toEqual([
      "7950",
      "5200",
      "5870",
      "3770",
      "4170",
      "70",
      "70",
      "-2930",
      "-2930",
      "-7930",
      "-7930",
      "-10930",
      "-10930",
    ]);
    expect(r).toMatchObject({ totalInflow: "4050", totalOutflow: "24980", endingCash: "-10930" });
  });

  it("CUSTOM: payment lag, AR haircut past a threshold, pipeline conversion and bill stretch", () => {
    const r = computeForecast(
      input("CUSTOM", {
        paymentLagDays: 3,
        arHaircutPercent: 50,
        arHaircutAfterDays: 30,
        pipelineConversionRate: 0.5,
        billStretchDays: 10,
      }),
    );
    // inv3 is 69 days overdue: half of 300; inv2 (10 days) keeps its amount.
    expect(r.lines.find((l) => l.itemId === "inv3")).toMatchObject({
      amount: "150",
      fullAmount: "300",
      weight: "0.5",
    });
    // inv1: CUST1's 5, 7, 9 days late + 3 = 28 Mar (week 3), 30 Mar and 1 Apr (week 4).
    expect(r.lines.filter((l) => l.itemId === "inv1").map((l) => [l.weekIndex, l.amount])).toEqual([
      [2, "333.33"],
      [3, "666.67"],
    ]);
    expect(weekOf(r, "bill1")).toBe(4); // due 20 Mar + 10 = 30 Mar, later than its planned 13 Mar
    expect(weekOf(r, "rentMar")).toBe(3); // 15 + 10 = 25 Mar
    // The pipeline deal 1000 × 0.5, and a third of inv6 (due 26 Mar + 9 + 3 = 7 Apr).
    expect(r.weeks[4]).toMatchObject({ inflow: "833.33" });
    // inv2: CUST2's payments more than 10 days late (12, 14, 80) + 3 → 16 and 18 Mar (⅔ of 500
    // in week 2), 23 May (⅓ in week 11).
    expect(closings(r)).toEqual([
      "9850",
      "7433.33",
      "5586.66",
      "3420",
      "4253.33",
      "103.33",
      "103.33",
      "-2896.67",
      "-2896.67",
      "-7896.67",
      "-7730",
      "-10730",
      "-10730",
    ]);
    expect(r).toMatchObject({ totalInflow: "4250", totalOutflow: "24980" });
  });

  it("a CUSTOM scenario with no overrides equals BASE", () => {
    const base = computeForecast(input("BASE"));
    const custom = computeForecast(input("CUSTOM", {}));
    expect(custom.weeks).toEqual(base.weeks);
  });

  it("every week is explained by its lines", () => {
    for (const kind of ["BASE", "BEST", "WORST"] as const) {
      const r = computeForecast(input(kind));
      r.weeks.forEach((w, i) => {
        const lines = r.lines.filter((l) => l.weekIndex === i);
        expect(lines.map((l) => l.itemId)).toEqual(w.itemIds);
        const sum = (dir: "in" | "out") =>
          canonical(moneySum(lines.filter((l) => l.direction === dir).map((l) => l.amount)));
        expect(sum("in")).toBe(w.inflow);
        expect(sum("out")).toBe(w.outflow);
      });
    }
  });
});

describe("open bills: paid as this business has paid its bills against their due dates", () => {
  // Supplier S's last four bills were paid 3, 2 and 1 days early and on the day (lateness −3,
  // −2, −1, 0). An open bill of 400 due Monday 16 March (week 2), no planned date: a quarter on
  // each of 13, 14, 15 March (week 1: 300) and 16 March (week 2: 100).
  const paidBill = (due: string, paidOn: string): RecurringHistoryEntry => ({
    kind: "bill",
    contactId: "S",
    contactName: "Supplier",
    accountId: "acc_cogs",
    date: "2026-01-01",
    dueDate: due,
    paidDate: paidOn,
    amount: "100",
    currency: "AUD",
    currencyRate: null,
  });
  const bills = [
    paidBill("2026-01-20", "2026-01-17"),
    paidBill("2026-01-27", "2026-01-25"),
    paidBill("2026-02-03", "2026-02-02"),
    paidBill("2026-02-10", "2026-02-10"),
  ];
  const open = item({
    id: "billS",
    source: "LEDGER_BILL",
    amount: "400",
    expectedDate: "2026-03-16",
    contactId: "S",
    accountId: "acc_cogs",
  });
  const inputFor = (kind: ScenarioKind, planned?: string): ForecastInput => ({
    ...input(kind),
    openItems: [planned ? { ...open, expectedDate: planned, dueDate: "2026-03-16" } : open],
    purchaseOrders: [],
    recurringHistory: bills,
    salesHistory: [],
  });
  const run = (kind: ScenarioKind, planned?: string) => computeForecast(inputFor(kind, planned));

  it("BASE spreads it over the weeks past payments fell in", () => {
    const r = run("BASE");
    expect(r.lines.filter((l) => l.itemId === "billS").map((l) => [l.weekIndex, l.amount])).toEqual(
      [
        [0, "300"],
        [1, "100"],
      ],
    );
    expect(r.weeks[0]?.outflow).toBe("300");
  });

  it("explain lists the timing learnt, with its evidence", () => {
    const model = buildForecastModel(inputFor("BASE"));
    const learned = learnedParameters(model, computeForecast(inputFor("BASE"), model));
    // Lower middle of −3, −2, −1, 0.
    const entry = { medianDaysAfterDue: -2, observations: 4, from: null, to: null };
    expect(learned.billPaymentTiming).toEqual([
      { contactId: null, ...entry },
      { contactId: "S", ...entry },
    ]);
  });

  it("an overdue bill of a supplier who paid only one bill that late follows the organisation's late bills", () => {
    // Supplier S paid eleven bills on the due date and one 20 days late; supplier T paid three
    // 10, 17 and 24 days late. S's bill of 400 was due Monday 9 March, 2 days ago: one of S's own
    // bills was paid later than that, too few to decide (MIN_OWN_PAYMENTS), so it is spread over
    // the organisation's bills paid more than 2 days late: 19 March (week 2), 26 and 29 March
    // (week 3), 2 April (week 4), a quarter each. Judged by S's single late bill it stayed on its
    // due date, in week 1, where nothing of it was paid.
    const late = (contactId: string, due: string, days: number): RecurringHistoryEntry => ({
      ...paidBill(due, addDays(due, days)),
      contactId,
    });
    const history = [
      ...Array.from({ length: 11 }, (_, i) => late("S", addDays("2025-11-03", 7 * i), 0)),
      late("S", "2026-01-26", 20),
      late("T", "2026-01-05", 10),
      late("T", "2026-01-12", 17),
      late("T", "2026-01-19", 24),
    ];
    const r = computeForecast({
      ...inputFor("BASE"),
      openItems: [{ ...open, expectedDate: "2026-03-09", dueDate: "2026-03-09" }],
      recurringHistory: history,
    });
    expect(r.lines.filter((l) => l.itemId === "billS").map((l) => [l.weekIndex, l.amount])).toEqual(
      [
        [1, "100"],
        [2, "200"],
        [3, "100"],
      ],
    );
    expect(r.lines.find((l) => l.itemId === "billS")?.note).toBe(
      "1 of 4 of the organisation's past bills at least this late were paid in this week",
    );
  });

  it("a supplier's bill left unpaid does not stand in for bills paid that late", () => {
    // As above, but S's late bill was never paid: due 24 November, 107 days overdue today (an
    // unpaid bill, UNPAID_AFTER_DAYS). None of S's bills was paid later than 2 days, so the
    // organisation's bills paid that late decide (T's: 19 March, 26 March, 2 April), as for a
    // supplier with no late bill. Counted as S's own record, it kept the bill on its due date, in
    // week 1: a bill is owed, so its unpaid ones are no share of the spread and said nothing.
    const bill = (contactId: string, due: string, days: number | null): RecurringHistoryEntry => ({
      ...paidBill(due, addDays(due, days ?? 0)),
      paidDate: days === null ? null : addDays(due, days),
      contactId,
    });
    const r = computeForecast({
      ...inputFor("BASE"),
      openItems: [{ ...open, expectedDate: "2026-03-09", dueDate: "2026-03-09" }],
      recurringHistory: [
        ...Array.from({ length: 11 }, (_, i) => bill("S", addDays("2025-11-03", 7 * i), 0)),
        bill("S", "2025-11-24", null),
        bill("T", "2026-01-05", 10),
        bill("T", "2026-01-12", 17),
        bill("T", "2026-01-19", 24),
      ],
    });
    const lines = r.lines.filter((l) => l.itemId === "billS");
    expect(lines.map((l) => l.weekIndex)).toEqual([1, 2, 3]);
    for (const l of lines) expect(l.note).toContain("of the organisation's past bills");
  });

  it("a planned payment date is kept, and WORST keeps the due date", () => {
    expect(run("BASE", "2026-03-20").lines.find((l) => l.itemId === "billS")).toMatchObject({
      weekIndex: 1,
      amount: "400",
    });
    expect(run("WORST").lines.find((l) => l.itemId === "billS")).toMatchObject({
      date: "2026-03-16",
      amount: "400",
    });
  });
});
