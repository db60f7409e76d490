import { describe, expect, it } from "vitest";
import {
  expectedLateness,
  fitCollection,
  kaplanMeier,
  latenessSpread,
  medianLateness,
  spreadWeight,
  unpaidWeight,
} from "./collection.ts";
import { addDays } from "./dates.ts";
import type { SalesHistoryEntry } from "./types.ts";

const paid = (contactId: string, late: number, issue = "2025-10-01"): SalesHistoryEntry => {
  const due = addDays(issue, 14);
  return {
    contactId,
    issueDate: issue,
    total: "100",
    currency: "AUD",
    currencyRate: null,
    dueDate: due,
    paidDate: addDays(due, late),
    accountId: null,
  };
};

describe("collection model: when open receivables are paid", () => {
  // A pays 0, 2, 4, 30 days late; B once on time; the organisation: −3, 0, 0, 2, 4, 30.
  const model = fitCollection([
    paid("A", 0),
    paid("A", 2),
    paid("A", 4),
    paid("A", 30),
    paid("B", 0),
    paid("C", -3),
  ]);

  it.each([
    // [contact, days overdue, expected lateness]
    ["A", -10, 2], // not yet due: A's median (lower middle of 0, 2, 4, 30)
    ["A", 3, 4], // 3 days late already: among A's payments > 3 (4, 30) → 4
    ["A", 10, 30], // only the 30-day one was that late
    ["A", 31, null], // nobody ever paid 31 days late: doubtful
    ["B", -5, 0], // one payment of its own is too few: the organisation's (−3, 0, 0, 2, 4, 30) → 0
    ["B", 1, 4], // organisation ≥ 1: 2, 4, 30 → 4
    ["Z", 0, 4], // unknown customer, due today and unpaid tonight: the organisation's > 0 → 4
    ["A", 4, 30], // 4 days late at the end of today: a 4-day payment would have come today
  ] as const)("customer %s, %s days overdue → %s", (contact, overdue, expected) => {
    expect(expectedLateness(model, contact, overdue)).toBe(expected);
  });

  it("falls back to the organisation when the customer was never this late, and knows no history", () => {
    const m = fitCollection([paid("A", 0), paid("A", 1), paid("A", 2), paid("B", 40)]);
    expect(expectedLateness(m, "A", 5)).toBe(40);
    expect(expectedLateness(fitCollection([]), "A", 5)).toBeUndefined();
  });

  it("uses the customer's last 12 payments, and the median lateness is never negative", () => {
    const old = Array.from({ length: 12 }, (_, i) => paid("A", 50, addDays("2024-01-01", i)));
    const recent = Array.from({ length: 12 }, (_, i) => paid("A", 1, addDays("2025-06-01", i)));
    expect(medianLateness(fitCollection([...recent, ...old]), "A")).toBe(1);
    expect(medianLateness(fitCollection([paid("E", -5), paid("E", -4), paid("E", -6)]), "E")).toBe(
      0,
    );
  });
});

describe("latenessSpread: an open receivable spread over past payments, never-paid ones included", () => {
  const open = (contactId: string, issue: string): SalesHistoryEntry => ({
    ...paid(contactId, 0, issue),
    paidDate: null,
  });
  // A paid 0, 2, 4, 30 days late; one of A's invoices is still open 100 days after its due date
  // (unpaid: a share that never arrives), another only 10 days (undecided: left out).
  const today = "2026-03-01";
  const model = fitCollection(
    [
      paid("A", 0),
      paid("A", 2),
      paid("A", 4),
      paid("A", 30),
      open("A", addDays(today, -114)),
      open("A", addDays(today, -24)),
    ],
    today,
  );

  it("not yet due: every past payment and the unpaid invoice share it equally", () => {
    const s = latenessSpread(model, "A", -5);
    expect(s && [...s.values]).toEqual([0, 2, 4, 30]);
    expect(s).toMatchObject({ unpaid: 1, own: true });
  });

  it("3 days overdue: only payments at least that late, and the unpaid one", () => {
    const s = latenessSpread(model, "A", 3);
    expect(s && [...s.values]).toEqual([4, 30]);
    expect(s?.unpaid).toBe(1);
  });

  it("with ownLater, the own record decides only with that many values this late", () => {
    // A paid 0, 2, 4, 30 days late: 3 days overdue leaves two of A's (4, 30), too few for 3;
    // the organisation's (A's and B's: 4, 5, 6, 30) decide, its unpaid one included.
    const m = fitCollection(
      [...[0, 2, 4, 30].map((d) => paid("A", d)), ...[5, 6].map((d) => paid("B", d))],
      today,
    );
    expect(latenessSpread(m, "A", 3)).toMatchObject({ own: true });
    const s = latenessSpread(m, "A", 3, 3);
    expect(s && [...s.values]).toEqual([4, 5, 6, 30]);
    expect(s).toMatchObject({ own: false, unpaid: 0 });
  });

  it("a customer who never paid an invoice this late is judged on their own record", () => {
    // D paid once on time and left three invoices unpaid for over 91 days: three of four
    // invoices on their record, so a fresh invoice of D's is theirs to judge, not the
    // organisation's (whose payers all paid).
    const m = fitCollection(
      [
        paid("D", 0),
        open("D", addDays(today, -150)),
        open("D", addDays(today, -130)),
        open("D", addDays(today, -120)),
        paid("P", 1),
        paid("P", 2),
        paid("P", 3),
      ],
      today,
    );
    const fresh = latenessSpread(m, "D", -10);
    expect(fresh && [...fresh.values]).toEqual([0]);
    expect(fresh).toMatchObject({ unpaid: 3, own: true });
    // 10 days overdue: D never paid one that late; every share is unpaid.
    const late = latenessSpread(m, "D", 10);
    expect(late && [...late.values]).toEqual([]);
    expect(late).toMatchObject({ unpaid: 3, own: true });
  });

  it("an invoice still open weighs on the later payments (Kaplan–Meier), not on the earlier ones", () => {
    // A paid 0, 2, 4, 30 days late; one invoice open 3 days past due was not paid by 3 days
    // late: its weight passes in equal halves to the 4- and 30-day payments (1.5 each).
    expect(kaplanMeier(Int32Array.from([0, 2, 4, 30]), [3], 0)).toEqual({
      cumulative: Float64Array.from([0, 1, 2, 3.5, 5]),
      unpaid: 1.5,
    });
    // With one never-paid invoice as well: the open one's weight is shared three ways.
    const w = kaplanMeier(Int32Array.from([0, 2, 4, 30]), [3], 1);
    expect(w?.unpaid).toBeCloseTo(4 / 3, 12);
    expect(kaplanMeier(Int32Array.from([0, 2]), [], 0)).toBeNull();
  });

  it("the spread of a fresh invoice carries those weights: a slow payer's open invoice counts", () => {
    // The model above: A's open invoice 10 days past due (undecided) passes its weight to the
    // 30-day payment and the never-paid invoice, which weigh 1.5 each; 0, 2 and 4 weigh 1.
    const s = latenessSpread(model, "A", -5);
    if (!s) throw new Error("no spread");
    expect(spreadWeight(s, 0, 3)).toBe(3);
    expect(spreadWeight(s, 3, 4)).toBe(1.5);
    expect(unpaidWeight(s)).toBe(1.5);
  });

  it("without the date, no invoice is judged unpaid (the model as before)", () => {
    expect(fitCollection([open("A", "2025-01-01")]).unpaidAll.length).toBe(0);
  });
});
