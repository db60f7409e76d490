import { describe, expect, it } from "vitest";
import { instantOn } from "./backtest.ts";
import { booksOf } from "./books.test-support.ts";
import { type BookDocument, booksAsOf } from "./books.ts";
import { buildForecastModel, computeForecast } from "./compute-forecast.ts";
import { addDays } from "./dates.ts";
import { learnedParameters } from "./learned.ts";
import { fitPartialPayments, partsEntry } from "./partial-payments.ts";
import { linesOf, pastInvoice, receivablesInput } from "./receivables-ledger.test-support.ts";
import type { OpenItem, SalesHistoryEntry } from "./types.ts";

/*
 * A hand-built ledger with a known answer. Today is Wednesday 11 March 2026 (Sydney): week 1 is
 * Mon 9 – Sun 15 March (index 0), week 2 starts 16 March, week 6 (index 5) is 13 – 19 April.
 */

/** A past invoice of 1000 due `due`, paid in the parts given (days after due, amount). */
function paid(
  contactId: string,
  due: string,
  parts: readonly [number, string][],
): SalesHistoryEntry {
  const last = parts[parts.length - 1] as [number, string];
  const first = parts[0] as [number, string];
  return {
    ...pastInvoice(contactId, due, last[0]),
    ...(parts.length > 1
      ? {
          parts: {
            count: parts.length,
            firstDate: addDays(due, first[0]),
            firstAmount: first[1],
            lastDate: addDays(due, last[0]),
            paid: "1000",
          },
        }
      : {}),
  };
}

/** Customer A always pays half on the due date and half 30 days later (six invoices). */
const HALVES = Array.from({ length: 6 }, (_, i) =>
  paid("A", addDays("2025-09-01", 21 * i), [
    [0, "500"],
    [30, "500"],
  ]),
);

function open(p: Partial<OpenItem> & Pick<OpenItem, "id" | "amount" | "expectedDate">): OpenItem {
  return {
    source: "LEDGER_INVOICE",
    ledgerStatus: "AUTHORISED",
    currency: "AUD",
    currencyRate: null,
    dueDate: p.expectedDate,
    issueDate: null,
    contactId: "A",
    accountId: "acc_sales",
    probability: null,
    ...p,
  };
}

const input = receivablesInput;

describe("partial payments: a part-paid invoice's remainder follows its first part", () => {
  it("times the remainder from its first part by the learnt lag, not its due date", () => {
    // Due 10 February, 500 paid on 25 February (15 days late), 500 still due: the rest follows
    // the first part by A's 30 days, on 27 March (week 3). Timed as a fresh invoice 29 days
    // overdue it went on due + 30 days (A's invoices were paid in full 30 days late), 12 March
    // (week 1), where none of it would come.
    const item = open({ id: "part", amount: "500", expectedDate: "2026-02-10" });
    const partPaid = { ...item, firstPaidDate: "2026-02-25" };
    expect(linesOf(input([partPaid], HALVES), "part")).toEqual([[2, "2026-03-27", "500"]]);
    expect(linesOf(input([item], HALVES), "part")).toEqual([[0, "2026-03-12", "500"]]);
    // An invoice with nothing paid yet is timed as one amount, as before (on due + 30 days).
    const fresh = open({ id: "inv", amount: "1000", expectedDate: "2026-03-16" });
    expect(linesOf(input([fresh], HALVES), "inv")).toEqual([[5, "2026-04-15", "1000"]]);
  });

  it("spreads the remainder over the lags longer than the days since the first part, cents exact", () => {
    // A's invoices paid in parts had the rest 10, 20, 30 and 40 days after the first part. The
    // first part came 14 days ago (25 February): the rest of 100.01 a third each on 17 March
    // (week 2), 27 March (week 3) and 6 April (week 5), allocated by cumulative rounding.
    const lags = [10, 20, 30, 40].map((lag, k) =>
      paid("A", addDays("2025-10-01", 14 * k), [
        [0, "500"],
        [lag, "500"],
      ]),
    );
    const item = open({
      id: "part",
      amount: "100.01",
      expectedDate: "2026-02-10",
      firstPaidDate: "2026-02-25",
    });
    const lines = computeForecast(input([item], lags)).lines.filter((l) => l.itemId === "part");
    expect(lines.map((l) => [l.weekIndex, l.date, l.amount, l.weight])).toEqual([
      [1, "2026-03-17", "33.34", "0.333333"],
      [2, "2026-03-27", "33.33", "0.333333"],
      [4, "2026-04-06", "33.34", "0.333333"],
    ]);
    expect(lines[0]?.note).toBe(
      "1 of 3 of the customer's past invoices paid in parts had the rest paid this long after the first part",
    );
  });

  it("counts the rests still open as censored: their weight passes to the longer lags", () => {
    // A's rests came 10, 20, 30 and 40 days after the first part; two more invoices had their
    // first part on 14 February and their rest has not come 25 days on (still open, undecided).
    // Left out, the quick rests are counted and the slow ones are not. Kaplan–Meier: each open
    // rest's weight passes to the lags longer than 25 days (30 and 40 weigh 2 each, 20 weighs 1).
    // The first part of 25 February is 14 days old: the rest of 500 over 20/30/40 days as
    // 1/5, 2/5, 2/5 (each a third, 166.67, when the open rests were ignored).
    const lags = [10, 20, 30, 40].map((lag, k) =>
      paid("A", addDays("2025-10-01", 14 * k), [
        [0, "500"],
        [lag, "500"],
      ]),
    );
    const stillOpen = [0, 1].map(
      (k): SalesHistoryEntry => ({
        ...paid("A", addDays("2026-01-20", k), [[25, "400"]]),
        paidDate: null,
        parts: {
          count: 1,
          firstDate: "2026-02-14",
          firstAmount: "400",
          lastDate: "2026-02-14",
          paid: "400",
        },
      }),
    );
    const item = open({
      id: "part",
      amount: "500",
      expectedDate: "2026-02-10",
      firstPaidDate: "2026-02-25",
    });
    const lines = (history: readonly SalesHistoryEntry[]) =>
      computeForecast(input([item], history))
        .lines.filter((l) => l.itemId === "part")
        .map((l) => [l.weekIndex, l.date, l.amount, l.weight]);
    expect(lines([...lags, ...stillOpen])).toEqual([
      [1, "2026-03-17", "100", "0.2"],
      [2, "2026-03-27", "200", "0.4"],
      [4, "2026-04-06", "200", "0.4"],
    ]);
    expect(lines(lags)).toEqual([
      [1, "2026-03-17", "166.67", "0.333333"],
      [2, "2026-03-27", "166.66", "0.333333"],
      [4, "2026-04-06", "166.67", "0.333333"],
    ]);
    const model = fitPartialPayments([...lags, ...stillOpen], "2026-03-11");
    expect(partsEntry(null, model.organisation)).toEqual({
      contactId: null,
      shareInParts: 1,
      firstPartShare: 0.5,
      medianDaysToLastPart: 20,
      paidInParts: 4,
      restNeverPaid: 0,
      restOpen: 2,
      observations: 4,
      from: "2025-09-01",
      to: "2025-10-13",
    });
  });

  it("counts a rest never paid as a share that never arrives", () => {
    // A also has an invoice part-paid on 1 November whose rest has not come 130 days on: of
    // seven, six rests came 30 days after the first part and one never: 6/7 of 700 on 27 March.
    const neverDone: SalesHistoryEntry = {
      ...paid("A", "2025-10-20", [[12, "300"]]),
      paidDate: null,
      parts: {
        count: 1,
        firstDate: "2025-11-01",
        firstAmount: "300",
        lastDate: "2025-11-01",
        paid: "300",
      },
    };
    const item = open({
      id: "part",
      amount: "700",
      expectedDate: "2026-02-10",
      firstPaidDate: "2026-02-25",
    });
    const r = computeForecast(input([item], [...HALVES, neverDone]));
    expect(r.lines.filter((l) => l.itemId === "part").map((l) => [l.date, l.amount])).toEqual([
      ["2026-03-27", "600"],
    ]);
    expect(r.excluded).toEqual([
      {
        itemId: "part",
        reason:
          "1 of 7 of the customer's past invoices paid in parts with the rest at least this long after the first part were paid after the 13-week horizon or not at all",
      },
    ]);
  });

  it("falls back to the organisation's lags, then to the due date, on thin history", () => {
    const item = open({
      id: "part",
      amount: "500",
      expectedDate: "2026-02-10",
      firstPaidDate: "2026-02-25",
    });
    // D has two invoices paid in parts, too few: the organisation's (A's six and D's two) decide.
    const d = [0, 1].map((k) =>
      paid("D", addDays("2025-12-01", 14 * k), [
        [0, "500"],
        [60, "500"],
      ]),
    );
    const withD = [...HALVES, ...d];
    const lines = computeForecast(input([{ ...item, contactId: "D" }], withD)).lines.filter(
      (l) => l.itemId === "part",
    );
    // 6 of 8 at 30 days (27 March, week 3), 2 of 8 at 60 days (26 April, week 7).
    expect(lines.map((l) => [l.weekIndex, l.date, l.amount])).toEqual([
      [2, "2026-03-27", "375"],
      [6, "2026-04-26", "125"],
    ]);
    expect(lines[0]?.note).toBe(
      "6 of 8 of the organisation's past invoices paid in parts had the rest paid this long after the first part",
    );
    // Two invoices paid in parts in the whole organisation: too few to learn from. The
    // remainder is timed as a fresh invoice (due + 30 days, 12 March, week 1).
    expect(linesOf(input([item], HALVES.slice(0, 2)), "part")).toEqual([[0, "2026-03-12", "500"]]);
    // A first part longer ago than any rest ever came: timed as a fresh invoice too.
    const old = { ...item, firstPaidDate: "2026-02-05" };
    expect(linesOf(input([old], HALVES), "part")).toEqual([[0, "2026-03-12", "500"]]);
  });

  it("explain lists the learnt parameter with its evidence", () => {
    const i = input([open({ id: "inv", amount: "1000", expectedDate: "2026-03-16" })], HALVES);
    const model = buildForecastModel(i);
    // Every one of A's six paid invoices was paid in halves, the rest 30 days after the first.
    const entry = {
      shareInParts: 1,
      firstPartShare: 0.5,
      medianDaysToLastPart: 30,
      paidInParts: 6,
      restNeverPaid: 0,
      restOpen: 0,
      observations: 6,
      from: "2025-08-02",
      to: "2025-11-15",
    };
    expect(learnedParameters(model, computeForecast(i, model)).partialPayments).toEqual([
      { contactId: null, ...entry },
      { contactId: "A", ...entry },
    ]);
  });
});

describe("partial payments in the books as of a date", () => {
  const TZ = "Australia/Sydney";
  const doc = (p: Partial<BookDocument> & Pick<BookDocument, "id">): BookDocument => ({
    type: "ACCREC",
    status: "PAID",
    contactId: "A",
    contactName: "A",
    accountId: null,
    issueDate: "2026-01-05",
    dueDate: "2026-02-04",
    expectedDate: "2026-02-04",
    total: "1000",
    amountDue: "0",
    currency: "AUD",
    currencyRate: null,
    paidDate: "2026-03-06",
    updatedOn: "2026-03-06",
    payments: [
      { date: "2026-02-04", amount: "400" },
      { date: "2026-03-06", amount: "600" },
    ],
    credits: [],
    ...p,
  });
  const books = (documents: BookDocument[]) => booksOf(documents);

  it("sees only the payments made by the cutoff: a later part is unseen", () => {
    const b = books([doc({ id: "d1" })]);
    // 20 February: 400 paid, 600 due; its first payment is known, the second is not.
    const mid = booksAsOf(b, "2026-02-20", "0", instantOn("2026-02-20", TZ));
    expect(mid.openItems.map((o) => [o.id, o.amount, o.firstPaidDate])).toEqual([
      ["d1", "600", "2026-02-04"],
    ]);
    expect(mid.salesHistory.map((s) => [s.paidDate, s.parts])).toEqual([
      [
        null,
        {
          count: 1,
          firstDate: "2026-02-04",
          firstAmount: "400",
          lastDate: "2026-02-04",
          paid: "400",
        },
      ],
    ]);
    // The same books with the later payment taken out, as a loader that ran that day saw them.
    const then = books([
      doc({
        id: "d1",
        status: "AUTHORISED",
        amountDue: "600",
        paidDate: null,
        updatedOn: "2026-02-04",
        payments: [{ date: "2026-02-04", amount: "400" }],
      }),
    ]);
    expect(booksAsOf(then, "2026-02-20", "0", instantOn("2026-02-20", TZ))).toEqual(mid);
    // After the second part: paid in two parts.
    const after = booksAsOf(b, "2026-03-10", "0", instantOn("2026-03-10", TZ));
    expect(after.openItems).toEqual([]);
    expect(after.salesHistory.map((s) => s.parts)).toEqual([
      {
        count: 2,
        firstDate: "2026-02-04",
        firstAmount: "400",
        lastDate: "2026-03-06",
        paid: "1000",
      },
    ]);
    expect(fitPartialPayments(after.salesHistory, "2026-03-10").organisation).toMatchObject({
      paid: 1,
      inParts: 1,
      firstShare: 0.4,
    });
  });

  it("counts payments of one day as one part", () => {
    const b = books([
      doc({
        id: "d1",
        payments: [
          { date: "2026-03-06", amount: "400" },
          { date: "2026-03-06", amount: "600" },
        ],
      }),
    ]);
    const after = booksAsOf(b, "2026-03-10", "0", instantOn("2026-03-10", TZ));
    expect(after.salesHistory.map((s) => s.parts)).toEqual([undefined]);
  });
});
