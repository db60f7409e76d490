import { describe, expect, it } from "vitest";
import { instantOn } from "./backtest.ts";
import { type BookDocument, type Books, booksAsOf } from "./books.ts";
import { buildForecastModel, computeForecast } from "./compute-forecast.ts";
import { addDays } from "./dates.ts";
import { learnedParameters } from "./learned.ts";
import { fitPartialPayments } from "./partial-payments.ts";
import type { ForecastInput, OpenItem, SalesHistoryEntry } from "./types.ts";

/*
 * A hand-built ledger with a known answer. Today is Wednesday 11 March 2026 (Sydney): week 1 is
 * Mon 9 – Sun 15 March (index 0), week 2 starts 16 March, week 6 (index 5) is 13 – 19 April.
 */
const NOW = new Date("2026-03-11T01:00:00Z");

/** A past invoice of 1000 due `due`, paid in the parts given (days after due, amount). */
function paid(
  contactId: string,
  due: string,
  parts: readonly [number, string][],
): SalesHistoryEntry {
  const last = parts[parts.length - 1] as [number, string];
  const first = parts[0] as [number, string];
  return {
    contactId,
    issueDate: addDays(due, -30),
    total: "1000",
    currency: "AUD",
    currencyRate: null,
    dueDate: due,
    paidDate: addDays(due, last[0]),
    accountId: "acc_sales",
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

function input(
  openItems: readonly OpenItem[],
  salesHistory: readonly SalesHistoryEntry[],
): ForecastInput {
  return {
    now: NOW,
    timezone: "Australia/Sydney",
    baseCurrency: "AUD",
    startingCash: "0",
    openItems,
    purchaseOrders: [],
    salesHistory,
    recurringHistory: [],
    customers: [],
    accounts: [{ id: "acc_sales", name: "Sales" }],
    scenario: { id: "scn_base", name: "Base", kind: "BASE", assumptions: {} },
  };
}

const linesOf = (i: ForecastInput, id: string) =>
  computeForecast(i)
    .lines.filter((l) => l.itemId === id)
    .map((l) => [l.weekIndex, l.date, l.amount]);

describe("partial payments: learnt from the customer's own invoices paid in parts", () => {
  it("splits an open invoice with nothing paid into the learnt parts at their learnt timings", () => {
    // Due Monday 16 March: half that day (week 2), half 30 days later, 15 April (week 6). As one
    // amount it went whole on 15 April, the day A's invoices were paid in full.
    const i = input([open({ id: "inv", amount: "1000", expectedDate: "2026-03-16" })], HALVES);
    expect(linesOf(i, "inv")).toEqual([
      [1, "2026-03-16", "500"],
      [5, "2026-04-15", "500"],
    ]);
    const withoutParts = HALVES.map(({ parts: _, ...e }) => e);
    expect(linesOf(input(i.openItems, withoutParts), "inv")).toEqual([[5, "2026-04-15", "1000"]]);
  });

  it("times a part-paid invoice's remainder from its first part by the learnt lag, not its due date", () => {
    // Due 10 February, 500 paid on 25 February (15 days late), 500 still due: the rest follows
    // the first part by A's 30 days, on 27 March (week 3). Timed as a fresh invoice 29 days
    // overdue it went on due + 30 days, 12 March (week 1), where none of it would come (with
    // nothing paid, no first part could still come 30 days before a rest due by then: one amount).
    const item = open({ id: "part", amount: "500", expectedDate: "2026-02-10" });
    const partPaid = { ...item, firstPaidDate: "2026-02-25" };
    expect(linesOf(input([partPaid], HALVES), "part")).toEqual([[2, "2026-03-27", "500"]]);
    expect(linesOf(input([item], HALVES), "part")).toEqual([[0, "2026-03-12", "500"]]);
  });

  it("weighs paid in parts against paid whole by what nothing paid yet says", () => {
    // E paid three invoices whole 40 days late and three in halves, 10 and 40 days late: in
    // parts half the time, the first part 30 days before the rest.
    const e = [
      ...[0, 1, 2].map((k) => paid("E", addDays("2025-10-01", 14 * k), [[40, "1000"]])),
      ...[3, 4, 5].map((k) =>
        paid("E", addDays("2025-10-01", 14 * k), [
          [10, "500"],
          [40, "500"],
        ]),
      ),
    ];
    const item = open({ id: "inv", amount: "1000", contactId: "E", expectedDate: "2026-03-06" });
    // 5 days overdue: a first part on due + 10 (16 March, week 2) can still come. Either way is
    // as likely still: a quarter then (half of half), the rest on due + 40 (15 April, week 6).
    expect(linesOf(input([item], e), "inv")).toEqual([
      [1, "2026-03-16", "250"],
      [5, "2026-04-15", "750"],
    ]);
    // 15 days overdue with nothing paid: had it been paid in parts, its first part would have
    // come by now, so it is paid whole, on due + 40 (5 April, week 4).
    const later = { ...item, expectedDate: "2026-02-24", dueDate: "2026-02-24" };
    expect(linesOf(input([later], e), "inv")).toEqual([[3, "2026-04-05", "1000"]]);
  });

  it("cents sum exactly when the parts do not divide evenly", () => {
    // One of A's three paid invoices was paid in parts (A's share in parts: 1/3); A has too few
    // invoices paid in parts for its own first part and lag, so the organisation's (B pays in
    // halves, 30 days apart) give them: 1/3 × 1/2 = 1/6 of 100.01 comes 30 days before the rest.
    const mixed = [
      paid("A", "2025-10-01", [
        [0, "500"],
        [30, "500"],
      ]),
      paid("A", "2025-11-01", [[30, "1000"]]),
      paid("A", "2025-12-01", [[30, "1000"]]),
      ...HALVES.map((e) => ({ ...e, contactId: "B" })),
    ];
    const lines = computeForecast(
      input([open({ id: "inv", amount: "100.01", expectedDate: "2026-03-16" })], mixed),
    ).lines.filter((l) => l.itemId === "inv");
    expect(lines.map((l) => [l.date, l.amount])).toEqual([
      ["2026-03-16", "16.67"],
      ["2026-04-15", "83.34"],
    ]);
  });

  it("falls back to one amount on thin history, and on a customer whose own invoices are paid whole", () => {
    const item = open({ id: "inv", amount: "1000", expectedDate: "2026-03-16" });
    // Two invoices paid in parts in the whole organisation: too few to learn from.
    expect(linesOf(input([item], HALVES.slice(0, 2)), "inv")).toEqual([[5, "2026-04-15", "1000"]]);
    // C paid its last three invoices whole (30 days late); the organisation's others pay in
    // halves, but C's own record decides: one amount.
    const whole = [0, 1, 2].map((k) => paid("C", addDays("2025-12-01", 14 * k), [[30, "1000"]]));
    const withC = [...HALVES.map((e) => ({ ...e, contactId: "B" })), ...whole];
    expect(linesOf(input([{ ...item, contactId: "C" }], withC), "inv")).toEqual([
      [5, "2026-04-15", "1000"],
    ]);
    // D has one paid invoice: the organisation's record (B pays in halves) decides.
    const withD = [...withC, paid("D", "2026-01-05", [[30, "1000"]])];
    const d = linesOf(input([{ ...item, contactId: "D" }], withD), "inv");
    // The organisation: 6 of 10 paid invoices in parts, first parts half of them: 30% comes 30
    // days before the rest. When the rest comes: the organisation's lateness (30 days, all).
    expect(d).toEqual([
      [1, "2026-03-16", "300"],
      [5, "2026-04-15", "700"],
    ]);
    // A part-paid invoice of a customer without three invoices paid in parts, in an organisation
    // without them either: timed as before, from its due date.
    const partPaid = {
      ...item,
      expectedDate: "2026-02-10",
      dueDate: "2026-02-10",
      firstPaidDate: "2026-02-25",
    };
    expect(linesOf(input([partPaid], HALVES.slice(0, 2)), "inv")).toEqual([
      [0, "2026-03-12", "1000"],
    ]);
  });

  it("explain lists the learnt parameter with its evidence", () => {
    const i = input([open({ id: "inv", amount: "1000", expectedDate: "2026-03-16" })], HALVES);
    const model = buildForecastModel(i);
    const entry = {
      shareInParts: 1,
      firstPartShare: 0.5,
      medianDaysToLastPart: 30,
      paidInParts: 6,
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
  const books = (documents: BookDocument[]): Books => ({
    timezone: TZ,
    baseCurrency: "AUD",
    documents,
    purchaseOrders: [],
    manualItems: [],
    bankLines: [],
    customers: [],
    accounts: [],
  });

  it("sees only the payments made by the cutoff: a later part is unseen", () => {
    const b = books([doc({ id: "d1" })]);
    // 20 February: 400 paid, 600 due; its first payment is known, the second is not.
    const mid = booksAsOf(b, "2026-02-20", "0", instantOn("2026-02-20", TZ));
    expect(mid.openItems.map((o) => [o.id, o.amount, o.firstPaidDate])).toEqual([
      ["d1", "600", "2026-02-04"],
    ]);
    expect(mid.salesHistory.map((s) => [s.paidDate, s.parts])).toEqual([[null, undefined]]);
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
    expect(fitPartialPayments(after.salesHistory).organisation).toMatchObject({
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
