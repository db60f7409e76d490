import { describe, expect, it } from "vitest";
import { buildForecastModel, computeForecast } from "./compute-forecast.ts";
import { addDays } from "./dates.ts";
import { fitFirstInvoices, MIN_FIRST_INVOICES } from "./first-invoices.ts";
import { learnedParameters } from "./learned.ts";
import { linesOf, pastInvoice, receivablesInput } from "./receivables-ledger.test-support.ts";
import type { OpenItem, SalesHistoryEntry } from "./types.ts";

/*
 * A hand-built ledger with a known answer (receivables-ledger.test-support.ts): today is Wednesday
 * 11 March 2026 (Sydney); 20 March is in week 2 (index 1), 17 April in week 6 (index 5).
 */
const invoice = pastInvoice;

/** A, a customer since the books began (first invoice issued 2 May 2025), pays 20 on the day. */
const REGULAR = Array.from({ length: 20 }, (_, i) =>
  invoice("A", addDays("2025-06-01", 14 * i), 0),
);

/**
 * `n` customers who arrived later (first invoices issued from 2 September 2025, four months into
 * the books): the first `late` of them paid their first invoice 28 days late, the others on the
 * day; every later invoice of theirs (two each) on the day.
 */
function newcomers(n: number, late: number): SalesHistoryEntry[] {
  return Array.from({ length: n }, (_, i) => {
    const id = `N${i}`;
    const first = addDays("2025-10-02", 3 * i);
    return [
      invoice(id, first, i < late ? 28 : 0),
      invoice(id, addDays(first, 60), 0),
      invoice(id, addDays(first, 90), 0),
    ];
  }).flat();
}

/** F's first invoice, 1,200 due 20 March: F has nothing else in the books. */
const FIRST: OpenItem = {
  id: "f",
  source: "LEDGER_INVOICE",
  ledgerStatus: "AUTHORISED",
  amount: "1200",
  currency: "AUD",
  currencyRate: null,
  expectedDate: "2026-03-20",
  dueDate: "2026-03-20",
  issueDate: "2026-02-18",
  contactId: "F",
  accountId: "acc_sales",
  probability: null,
};
const OPEN_FIRST = invoice("F", "2026-03-20", null);

describe("a first invoice is judged by the organisation's past first invoices", () => {
  it("9 of 12 newcomers paid their first invoice on the day, 3 of 12 28 days late", () => {
    // Every payment of the organisation: 20 + 24 + 9 on the day, 3 late (53 to 3). The first
    // invoices: A's is left out (issued when the books begin: A may have been a customer before),
    // the twelve newcomers' count once each (9 to 3). F's own invoice, open and not yet due, is a
    // censored first invoice earlier than every value: the shares stay 9/12 and 3/12.
    const history = [...REGULAR, ...newcomers(12, 3), OPEN_FIRST];
    const input = receivablesInput([FIRST], history);
    expect(linesOf(input, "f")).toEqual([
      [1, "2026-03-20", "900"],
      [5, "2026-04-17", "300"],
    ]);
    const result = computeForecast(input);
    expect(result.lines.filter((l) => l.itemId === "f").map((l) => l.note)).toEqual([
      "9 of 12 of the organisation's new customers' past first invoices at least this late were paid in this week",
      "3 of 12 of the organisation's new customers' past first invoices at least this late were paid in this week",
    ]);
    // The evidence in `forecast explain`: 12 paid first invoices and F's open one, issued from
    // 2 September 2025 (N0's) to 18 February 2026 (F's).
    const model = buildForecastModel(input);
    expect(learnedParameters(model, result).firstInvoices).toEqual([
      {
        contactId: null,
        medianDaysLate: 0,
        unpaidAfter91Days: 0,
        open: 1,
        observations: 13,
        from: "2025-09-02",
        to: "2026-02-18",
      },
    ]);
  });

  it("with fewer than MIN_FIRST_INVOICES first invoices, every payment of the organisation", () => {
    // 11 newcomers: 20 + 22 + 8 on the day and 3 late, 50 to 3 of 1,200.
    expect(MIN_FIRST_INVOICES).toBe(12);
    const history = [...REGULAR, ...newcomers(11, 3), OPEN_FIRST];
    expect(linesOf(receivablesInput([FIRST], history), "f")).toEqual([
      [1, "2026-03-20", "1132.08"],
      [5, "2026-04-17", "67.92"],
    ]);
  });

  it("a customer who has paid an invoice is not judged by first invoices", () => {
    // F paid one invoice on the day: the customers like F decide (similar-customers.ts), whose
    // records are all prompt but the newcomers' first invoices: nothing placed 28 days late by
    // the first-invoice pool's 3 of 12.
    const history = [...REGULAR, ...newcomers(12, 3), invoice("F", "2026-02-01", 0), OPEN_FIRST];
    const lines = linesOf(receivablesInput([FIRST], history), "f");
    expect(lines[0]?.[2]).not.toBe("900");
  });

  it("leaves out customers first seen within a quarter of the history's first invoice", () => {
    const firsts = fitFirstInvoices([...REGULAR, ...newcomers(2, 1)], "2026-03-11");
    expect(Array.from(firsts.paid)).toEqual([0, 28]);
    expect(firsts.from).toBe("2025-09-02");
  });
});
