import { describe, expect, it } from "vitest";
import { classifyIntervals, detectRecurring, projectRecurring } from "./recurring.ts";
import type { RecurringHistoryEntry } from "./types.ts";

const spend = (date: string, amount = "100", contactId = "C"): RecurringHistoryEntry => ({
  kind: "spend",
  contactId,
  contactName: contactId,
  accountId: "acc",
  date,
  dueDate: null,
  amount,
  currency: "AUD",
  currencyRate: null,
});

describe("recurring detection", () => {
  it.each([
    [[7, 7, 7, 7], "weekly"],
    [[14, 14, 13, 15], "fortnightly"],
    [[31, 28, 31, 30, 31], "monthly"],
    [[91, 92, 123, 59, 91, 92, 123], "quarterly"], // the BAS: 28 Feb breaks the rhythm, the mean holds
    [[365], "yearly"],
    [[30], null], // one interval is not a habit (except yearly)
    [[5, 60, 2, 30, 21], null], // irregular
    [[20, 20, 20], null], // no cadence at 20 days
  ])("classifies %j as %s", (intervals, cadence) => {
    expect(classifyIntervals(intervals)?.name ?? null).toBe(cadence);
  });

  it("uses the median of the last three amounts and stops projecting a stream that stopped", () => {
    const history = [
      spend("2025-10-05", "100"),
      spend("2025-11-05", "100"),
      spend("2025-12-05", "120"),
      spend("2026-01-05", "130"),
      spend("2026-02-05", "200"),
    ];
    const [stream] = detectRecurring(history, "2026-03-01", "AUD");
    expect(stream).toMatchObject({
      cadence: { name: "monthly" },
      amount: 13000,
      lastDate: "2026-02-05",
    });
    // Last seen 5 Feb; by 1 May it is more than 1.5 months late: stopped.
    expect(detectRecurring(history, "2026-05-01", "AUD")).toEqual([]);
  });

  it("groups by kind, contact and account, and a day's split lines are one occurrence", () => {
    const history = [
      spend("2026-01-01", "50", "A"),
      spend("2026-01-01", "50", "A"),
      spend("2026-01-08", "100", "A"),
      spend("2026-01-15", "100", "A"),
      spend("2026-01-22", "100", "A"),
      spend("2026-01-03", "9", "B"),
      spend("2026-01-10", "9", "B"),
    ];
    const streams = detectRecurring(history, "2026-01-25", "AUD");
    expect(streams.map((s) => [s.contactId, s.cadence.name, s.amount])).toEqual([
      ["A", "weekly", 10000],
    ]);
  });

  it("skips an occurrence an open bill of the same contact stands for, once", () => {
    const history = ["2025-11-01", "2025-12-01", "2026-01-01", "2026-02-01"].map((d) => ({
      ...spend(d, "500", "RENT"),
      kind: "bill" as const,
      dueDate: d.replace(/-01$/, "-10"),
    }));
    const streams = detectRecurring(history, "2026-02-20", "AUD");
    expect(streams[0]).toMatchObject({ termDays: 9 });
    const bills = [{ contactId: "RENT", issueDate: "2026-03-02", cashDate: "2026-03-11" }];
    const { occurrences, skipped } = projectRecurring(streams, "2026-02-20", "2026-05-31", bills);
    expect(skipped.map((o) => o.cashDate)).toEqual(["2026-03-10"]);
    expect(occurrences.map((o) => o.cashDate)).toEqual(["2026-04-10", "2026-05-10"]);
    // A bill that is the stream's own last occurrence (issued before it) is not a candidate.
    const old = [{ contactId: "RENT", issueDate: "2026-02-01", cashDate: "2026-03-09" }];
    expect(projectRecurring(streams, "2026-02-20", "2026-05-31", old).skipped).toEqual([]);
  });
});

describe("calendar-aligned quarterly and yearly charges", () => {
  it("keeps last year's dates: a quarterly return due on 28 Feb for December, the 28th after other quarters", () => {
    const bas = [
      "2024-04-28",
      "2024-07-28",
      "2024-10-28",
      "2025-02-28",
      "2025-04-28",
      "2025-07-28",
      "2025-10-28",
    ].map((d) => ({ ...spend(d, "5000", "ATO") }));
    const streams = detectRecurring(bas, "2026-01-20", "AUD");
    expect(streams[0]?.cadence.name).toBe("quarterly");
    const { occurrences } = projectRecurring(streams, "2026-01-20", "2026-08-31", []);
    // A plain quarterly step from 28 Oct would say 28 Jan, 28 Apr, 28 Jul.
    expect(occurrences.map((o) => o.cashDate)).toEqual(["2026-02-28", "2026-04-28", "2026-07-28"]);
  });
});

describe("recurring detection: two obligations on one contact and account", () => {
  it("finds a tax office's monthly withholding and its quarterly return, and projects both", () => {
    const history: RecurringHistoryEntry[] = [];
    // PAYG withholding on the 21st of every month, about 3,000; the BAS on the 28th after each
    // quarter, about 25,000; both paid to the tax office from one account.
    for (let m = 0; m < 14; m++) {
      const month = new Date(Date.UTC(2025, m, 21)).toISOString().slice(0, 10);
      history.push(spend(month, String(3000 + (m % 3) * 40), "ATO"));
    }
    for (const d of ["2025-01-28", "2025-04-28", "2025-07-28", "2025-10-28", "2026-01-28"])
      history.push(spend(d, "25000", "ATO"));
    const streams = detectRecurring(history, "2026-03-01", "AUD");
    expect(streams.map((s) => [s.cadence.name, Number(s.amount) / 100])).toEqual(
      expect.arrayContaining([
        ["monthly", 3040],
        ["quarterly", 25000],
      ]),
    );
    expect(streams).toHaveLength(2);
    const { occurrences } = projectRecurring(streams, "2026-03-01", "2026-05-31", []);
    expect(occurrences.map((o) => [o.cashDate, Number(o.stream.amount) / 100])).toEqual(
      expect.arrayContaining([
        ["2026-03-21", 3040],
        ["2026-04-21", 3040],
        ["2026-04-28", 25000],
      ]),
    );
  });

  it("leaves a contact with one irregular obligation alone", () => {
    const history = [
      "2025-01-03",
      "2025-02-20",
      "2025-03-02",
      "2025-05-30",
      "2025-06-04",
      "2025-09-09",
    ].map((d, i) => spend(d, String(100 + i * 7), "X"));
    expect(detectRecurring(history, "2025-10-01", "AUD")).toEqual([]);
  });
});

describe("recurring bills: paid when this business pays them", () => {
  const bill = (date: string, dueDate: string, paidDate: string | null): RecurringHistoryEntry => ({
    kind: "bill",
    contactId: "POWER",
    contactName: "Power Co",
    accountId: "acc_power",
    date,
    dueDate,
    paidDate,
    amount: "300",
    currency: "AUD",
    currencyRate: null,
  });

  it("projects on the median days from issue to payment of its paid bills, not its terms", () => {
    // 30-day terms, paid 27, 28 and 30 days after issue: the median lag is 28 days.
    const history = [
      bill("2025-12-01", "2025-12-31", "2025-12-28"),
      bill("2026-01-01", "2026-01-31", "2026-01-29"),
      bill("2026-02-01", "2026-03-03", "2026-03-03"),
      bill("2026-03-01", "2026-03-31", null), // open: no lag yet
    ];
    const [stream] = detectRecurring(history, "2026-03-10", "AUD");
    expect(stream?.termDays).toBe(28);
    const { occurrences } = projectRecurring(
      stream ? [stream] : [],
      "2026-03-10",
      "2026-05-31",
      [],
    );
    // The open 1 March bill is the last occurrence (forecast as an open bill); the next ones,
    // 1 April and 1 May, are paid 28 days later (on their terms: 1 and 31 May).
    expect(occurrences.map((o) => o.cashDate)).toEqual(["2026-04-29", "2026-05-29"]);
  });

  it("keeps its terms until three bills are paid", () => {
    const history = [
      bill("2026-01-01", "2026-01-31", "2026-01-20"),
      bill("2026-02-01", "2026-03-03", "2026-02-20"),
      bill("2026-03-01", "2026-03-31", null),
    ];
    expect(detectRecurring(history, "2026-03-10", "AUD")[0]?.termDays).toBe(30);
  });
});
