import { describe, expect, it } from "vitest";
import { addDays } from "./dates.ts";
import { detectRecurring } from "./recurring.ts";
import { fitRunRates, seasonalFactor } from "./run-rates.ts";
import type { RecurringHistoryEntry, SalesHistoryEntry } from "./types.ts";

const TODAY = "2026-03-11";
const sale = (
  contactId: string,
  daysAgo: number,
  total: string,
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
    paidDate: paidAfter === null ? null : addDays(issueDate, paidAfter),
    accountId: "acc_sales",
  };
};
const line = (
  kind: RecurringHistoryEntry["kind"],
  contactId: string,
  daysAgo: number,
  amount: string,
): RecurringHistoryEntry => ({
  kind,
  contactId,
  contactName: contactId,
  accountId: `acc_${contactId}`,
  date: addDays(TODAY, -daysAgo),
  dueDate: kind === "bill" ? addDays(TODAY, -daysAgo + 30) : null,
  amount,
  currency: "AUD",
  currencyRate: null,
});

describe("run rates of what no other model explains", () => {
  it("sums the last 91 days of unfitted customers, suppliers and non-recurring lines", () => {
    const sales = [
      sale("NEW", 10, "500"),
      sale("NEW", 95, "999"),
      sale("FIT", 5, "700"),
      sale("OLD", 200, "100", 6),
    ];
    const history = [
      line("bill", "ODD", 20, "300"),
      line("bill", "ODD", 100, "999"),
      line("bill", "FITSUP", 3, "800"),
      line("spend", "FUEL", 7, "60"),
      line("spend", "FUEL", 50, "40"),
      line("receive", "MARKET", 12, "90"),
      // A monthly stream: recurring, so not in any run rate.
      ...[120, 90, 60, 30].map((d) => line("spend", "RENT", d, "1000")),
    ];
    const streams = detectRecurring(history, TODAY, "AUD");
    expect(streams.map((s) => s.contactId)).toEqual(["RENT"]);
    const rates = fitRunRates({
      today: TODAY,
      baseCurrency: "AUD",
      salesHistory: sales,
      recurringHistory: history,
      streams,
      fittedCustomers: new Set(["FIT"]),
      fittedSuppliers: new Set(["FITSUP"]),
    });
    expect(rates).toEqual([
      // Delay: the median of every paid invoice of the last year (10, 10, 10, 6 → 10).
      {
        kind: "customers",
        direction: "in",
        windowTotal: 50000,
        delayDays: 10,
        accountId: "acc_sales",
      },
      {
        kind: "suppliers",
        direction: "out",
        windowTotal: 30000,
        delayDays: 30,
        accountId: "acc_ODD",
      },
      { kind: "spend", direction: "out", windowTotal: 10000, delayDays: 0, accountId: "acc_FUEL" },
      {
        kind: "receive",
        direction: "in",
        windowTotal: 9000,
        delayDays: 0,
        accountId: "acc_MARKET",
      },
    ]);
  });

  it("measures the season from last year's same quarters, and is neutral without the history", () => {
    // Last year: 1000 in the quarter before today − 364 days, 1500 in the quarter after it.
    const sales = [
      sale("A", 364 + 30, "1000"),
      sale("A", 364 - 30, "1500"),
      sale("A", 364 + 100, "1"),
    ];
    expect(seasonalFactor(sales, TODAY, "AUD")).toBe(1.5);
    expect(seasonalFactor([sale("A", 364 - 30, "1500")], TODAY, "AUD")).toBe(1);
    expect(
      seasonalFactor(
        [sale("A", 364 + 30, "100"), sale("A", 364 - 30, "1000"), sale("A", 500, "1")],
        TODAY,
        "AUD",
      ),
    ).toBe(2);
  });
});

describe("the account a run rate is forecast under", () => {
  it("is the one most sales used, a tie going to the account first in the chart", () => {
    const on = (accountId: string, daysAgo: number) => ({
      ...sale("NEW", daysAgo, "100"),
      accountId,
    });
    const chosen = (order: ReadonlyMap<string, number>) =>
      fitRunRates({
        today: TODAY,
        baseCurrency: "AUD",
        salesHistory: [on("id_b", 10), on("id_a", 20)],
        recurringHistory: [],
        streams: [],
        fittedCustomers: new Set(),
        fittedSuppliers: new Set(),
        order,
      }).find((r) => r.kind === "customers")?.accountId;
    // The same books imported twice get other ids; the chart's order decides, not the ids.
    expect(
      chosen(
        new Map([
          ["id_b", 0],
          ["id_a", 1],
        ]),
      ),
    ).toBe("id_b");
    expect(
      chosen(
        new Map([
          ["id_a", 0],
          ["id_b", 1],
        ]),
      ),
    ).toBe("id_a");
  });
});
