import { describe, expect, it } from "vitest";
import { buildForecastModel } from "./compute-forecast.ts";
import { addDays, dayNumber } from "./dates.ts";
import { learnedParameters } from "./learned.ts";
import { CHECK_QUARTERS, checkNewSales } from "./new-sales.ts";
import type { ForecastInput, SalesHistoryEntry } from "./types.ts";

const TODAY = "2026-03-11";
const T = dayNumber(TODAY);

const sale = (contactId: string, day: number, total = "100"): SalesHistoryEntry => {
  const issueDate = addDays(TODAY, day - T);
  return {
    contactId,
    issueDate,
    total,
    currency: "AUD",
    currencyRate: null,
    dueDate: addDays(issueDate, 14),
    paidDate: day + 10 <= T ? addDays(issueDate, 10) : null,
    accountId: null,
  };
};

/**
 * One-off customers only (each invoice a new contact, so none has a cadence): `counts[k]`
 * invoices of 100.00 in the quarter (T − 91(k+1), T − 91k], the last quarter first.
 */
const oneOffs = (counts: number[]): SalesHistoryEntry[] =>
  counts.flatMap((n, k) =>
    Array.from({ length: n }, (_, i) => sale(`q${k}-${i}`, T - 91 * k - 90 + (i % 91))),
  );

const inputOf = (history: SalesHistoryEntry[]): Omit<ForecastInput, "scenario"> => ({
  now: new Date(`${TODAY}T02:00:00Z`),
  timezone: "UTC",
  baseCurrency: "AUD",
  startingCash: "0",
  openItems: [],
  purchaseOrders: [],
  salesHistory: history,
  recurringHistory: [],
  customers: [...new Set(history.map((e) => e.contactId))].map((contactId) => ({
    contactId,
    name: contactId,
    active: true,
  })),
  accounts: [],
});

describe("new sales replayed over the last quarters", () => {
  it("moves the run rate to the quarters' mean sales of customers without a cadence, shrunk by its error", () => {
    // Quarters of 20, 10, 10 and 8 invoices (the last first), and a fifth quarter of books
    // before them. The run rate is the last quarter's 2,000.00; the quarters' mean 1,200.00.
    const history = oneOffs([20, 10, 10, 8, 5]);
    const check = checkNewSales({
      history,
      customers: inputOf(history).customers,
      todayDay: T,
      baseCurrency: "AUD",
      fittedToday: new Set(),
      runRate: 200_000,
    });
    expect(check).toMatchObject({
      quarters: CHECK_QUARTERS,
      othersAnalogue: 120_000,
      othersInvoices: 48,
      fittedExpected: 0,
      fittedActual: 0,
      fittedScale: 1,
      from: T - 364 + 1,
      to: T,
    });
    const m = Math.log(1200 / 2000);
    // Invoices' own errors: Σv² ÷ (quarters² · mean²) + Σv² ÷ run rate², in any unit.
    const se2 = (48 * 100 ** 2) / (16 * 1200 ** 2) + (20 * 100 ** 2) / 2000 ** 2;
    expect(check.othersLogRatio).toBeCloseTo(m, 12);
    expect(check.othersSe).toBeCloseTo(Math.sqrt(se2), 12);
    // Five quarters of books: no year before the oldest replayed quarter, nothing served.
    expect(check).toMatchObject({ enoughBooks: false, served: false, othersFactor: 1 });
    // Nine quarters: a year before the oldest; served only if leaving each quarter out, the
    // factors learned on the other three forecast it better than the engine did.
    const nine = oneOffs([20, 10, 10, 8, 5, 5, 5, 5, 5]);
    const long = checkNewSales({
      history: nine,
      customers: inputOf(nine).customers,
      todayDay: T,
      baseCurrency: "AUD",
      fittedToday: new Set(),
      runRate: 200_000,
    });
    expect(long.enoughBooks).toBe(true);
    expect(long.served).toBe(long.replayCorrectedError < long.replayEngineError);
    const lm = long.othersLogRatio;
    const lse2 = long.othersSe ** 2;
    expect(long.othersFactor).toBeCloseTo(
      long.served ? Math.exp(lm ** 3 / (lm ** 2 + lse2)) : 1,
      12,
    );
  });

  it("replays only quarters with a quarter of books before them, and changes nothing without one", () => {
    const history = oneOffs([20, 10, 10]);
    const base = {
      history,
      customers: inputOf(history).customers,
      todayDay: T,
      baseCurrency: "AUD",
      fittedToday: new Set<string>(),
      runRate: 200_000,
    };
    // Books from T − 272: quarters starting T − 91 and T − 182 have a quarter before them.
    expect(checkNewSales(base)).toMatchObject({ quarters: 2, othersAnalogue: 150_000 });
    const young = oneOffs([20]);
    expect(checkNewSales({ ...base, history: young })).toMatchObject({
      quarters: 0,
      othersFactor: 1,
      fittedScale: 1,
      from: null,
      to: null,
    });
  });

  it("scales fitted customers who stopped by what they sold against what was expected, and lists its evidence", () => {
    // Twelve weekly customers since T − 600; half of them stop a year ago. The replayed
    // quarters expected all twelve (each fitted at its quarter's start) and got six.
    const ids = Array.from({ length: 12 }, (_, i) => `C${i}`);
    const history = ids.flatMap((id, i) => {
      const end = i < 6 ? T - 364 : T;
      const out: SalesHistoryEntry[] = [];
      for (let d = T - 600; d <= end; d += 7) out.push(sale(id, d));
      return out;
    });
    const model = buildForecastModel(inputOf(history));
    const n = model.newSales;
    expect(n.quarters).toBe(CHECK_QUARTERS);
    // The six who stopped lapse within a few weeks of their last order, so only the first
    // replayed quarter (from T − 364) expected them: actual < expected, scale below 1.
    expect(n.fittedActual).toBe(6 * 52 * 10_000);
    expect(n.fittedExpected).toBeGreaterThan(n.fittedActual);
    expect(n.fittedLogRatio).toBeLessThan(0);
    // Books from T − 600: no year before the oldest replayed quarter (T − 364), not served.
    expect(n).toMatchObject({ enoughBooks: false, served: false, fittedScale: 1 });
    const learned = learnedParameters(model, {
      lines: [],
      predictions: [],
      runRates: [],
    } as never);
    expect(learned.newSales).toEqual([
      expect.objectContaining({
        contactId: null,
        fittedScale: Math.round(n.fittedScale * 1000) / 1000,
        fittedInvoices: 6 * 52,
        quarters: CHECK_QUARTERS,
        from: addDays(TODAY, -364 + 1),
        to: TODAY,
      }),
    ]);
  });
});
