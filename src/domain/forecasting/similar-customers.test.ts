import { describe, expect, it } from "vitest";
import { fitCollection } from "./collection.ts";
import { computeForecast } from "./compute-forecast.ts";
import { addDays } from "./dates.ts";
import { linesOf, pastInvoice, receivablesInput } from "./receivables-ledger.test-support.ts";
import { MAX_RECORDS, similarCustomersSpread } from "./similar-customers.ts";
import type { ForecastInput, OpenItem, SalesHistoryEntry } from "./types.ts";

/*
 * A hand-built ledger with a known answer. Today is Wednesday 11 March 2026 (Sydney): week 1 is
 * Mon 9 – Sun 15 March (index 0); 20 March is in week 2 (index 1), 17 April in week 6 (index 5).
 */
const TODAY = "2026-03-11";

const invoice = pastInvoice;

/** P always pays on the due date, L always 28 days late: six invoices each. */
const REGULARS = [
  ...Array.from({ length: 6 }, (_, i) => invoice("P", addDays("2025-09-01", 14 * i), 0)),
  ...Array.from({ length: 6 }, (_, i) => invoice("L", addDays("2025-09-01", 14 * i), 28)),
];

function open(id: string, contactId: string, amount: string): OpenItem {
  return {
    id,
    source: "LEDGER_INVOICE",
    ledgerStatus: "AUTHORISED",
    amount,
    currency: "AUD",
    currencyRate: null,
    expectedDate: "2026-03-20",
    dueDate: "2026-03-20",
    issueDate: "2026-02-18",
    contactId,
    accountId: "acc_sales",
    probability: null,
  };
}

function input(item: OpenItem, salesHistory: readonly SalesHistoryEntry[]): ForecastInput {
  return receivablesInput([item], salesHistory);
}

describe("a customer with too few invoices is judged by the customers like them", () => {
  it("one payment on its due date: the prompt payer's record weighs 19 to 1", () => {
    // N paid one invoice, on its due date (week 0 of lateness). Outcomes any record has: weeks
    // 0 and 4 late, and never paid (3; one pseudo-invoice, a third on each). P's record makes a
    // payment in week 0 (6 + 1/3) / 7 likely, L's (1/3) / 7: weighed by their 6 invoices each,
    // P 38/7 against L 2/7. So 95% of N's invoice on its due date (20 March), 5% 28 days later.
    // The organisation's pool (seven payments on the day, six 28 days late) gave 7/13 and 6/13.
    const history = [...REGULARS, invoice("N", "2026-02-02", 0), invoice("N", "2026-03-20", null)];
    expect(linesOf(input(open("n", "N", "1000"), history), "n")).toEqual([
      [1, "2026-03-20", "950"],
      [5, "2026-04-17", "50"],
    ]);
    // The explanation names whose invoices these are: the customers like N, not the organisation.
    const notes = computeForecast(input(open("n", "N", "1000"), history))
      .lines.filter((l) => l.itemId === "n")
      .map((l) => l.note);
    expect(notes).toEqual([
      "6 of 12 of the similar customers' past invoices at least this late were paid in this week, each customer weighed by how like this one they are",
      "6 of 12 of the similar customers' past invoices at least this late were paid in this week, each customer weighed by how like this one they are",
    ]);
  });

  it("an invoice of theirs 10 days overdue and unpaid: the late payer's record weighs 10 to 1", () => {
    // M has paid nothing; another invoice of theirs is 10 days overdue (due 1 March), open. Not
    // paid by 10 days late: P's record (6 · 0 + 2/3) / 7, the pseudo-invoice's weeks 4 and never;
    // L's (6 · 1 + 2/3) / 7. Weighed by their 6 invoices: 1 to 10.
    const history = [
      ...REGULARS,
      invoice("M", "2026-03-01", null),
      invoice("M", "2026-03-20", null),
    ];
    expect(linesOf(input(open("m", "M", "1100"), history), "m")).toEqual([
      [1, "2026-03-20", "100"],
      [5, "2026-04-17", "1000"],
    ]);
  });

  it("without evidence, keeps the organisation's pool of every payment", () => {
    // F paid 20 invoices on the due date, L six 28 days late. Z has paid nothing and has nothing
    // else open: nothing to weigh the records by, so the organisation's pool of every payment
    // spreads it, 20 to 6 (pooling the records, F's last 12 to L's 6, raised the demo's 4-week
    // bias; docs/forecast.md, "Customers like this one").
    const history = [
      ...Array.from({ length: 20 }, (_, i) => invoice("F", addDays("2025-05-01", 14 * i), 0)),
      ...REGULARS.filter((e) => e.contactId === "L"),
      invoice("Z", "2026-03-20", null),
    ];
    expect(linesOf(input(open("z", "Z", "1200"), history), "z")).toEqual([
      [1, "2026-03-20", "923.08"],
      [5, "2026-04-17", "276.92"],
    ]);
    expect(similarCustomersSpread(fitCollection(history, TODAY), "Z", -9)).toBeNull();
  });
});

describe("an organisation with more customers than MAX_RECORDS", () => {
  it("mixes an even sample of their records, which keeps their habits' mix", () => {
    // 900 customers always pay on the due date and 300 always 28 days late, three invoices each:
    // 1,200 records, sampled every third in content order (the prompt ones sort first): 300 and
    // 100. N paid once, on its due date: a prompt record weighs 3 · (3 + 1/3) / 4, a late one
    // 3 · (1/3) / 4, so 900 · 2.5 against 300 · 0.25 in full and 300 · 2.5 against 100 · 0.25
    // in the sample: 30/31 of 1,000 on the due date either way.
    const payer = (prefix: string, count: number, late: number) =>
      Array.from({ length: count }, (_, c) =>
        Array.from({ length: 3 }, (_, i) =>
          invoice(`${prefix}${c}`, addDays("2025-09-01", 14 * i), late),
        ),
      ).flat();
    const history = [
      ...payer("P", 900, 0),
      ...payer("L", 300, 28),
      invoice("N", "2026-02-02", 0),
      invoice("N", "2026-03-20", null),
    ];
    expect(MAX_RECORDS).toBeLessThan(1200);
    expect(linesOf(input(open("n", "N", "1000"), history), "n")).toEqual([
      [1, "2026-03-20", "967.74"],
      [5, "2026-04-17", "32.26"],
    ]);
  });
});
