import { describe, expect, it } from "vitest";
import { localDate } from "../timezones.ts";
import {
  type BacktestData,
  type DocumentHistory,
  dailyCash,
  inputAsOf,
  instantOn,
  runBacktest,
} from "./backtest.ts";

const doc = (
  p: Partial<DocumentHistory> & Pick<DocumentHistory, "id" | "issueDate" | "total">,
): DocumentHistory => ({
  type: "ACCREC",
  status: "AUTHORISED",
  contactId: "C",
  contactName: "C",
  accountId: null,
  dueDate: p.issueDate,
  currency: "AUD",
  currencyRate: null,
  voidedOn: null,
  payments: [],
  credits: [],
  ...p,
});

const data = (
  documents: DocumentHistory[],
  movements: BacktestData["movements"] = [],
): BacktestData => ({
  timezone: "Australia/Sydney",
  baseCurrency: "AUD",
  today: "2026-03-11",
  currentCash: "1000",
  movements,
  documents,
  bankHistory: [],
  customers: [],
  accounts: [],
});

describe("backtest: documents as they stood", () => {
  it("rebuilds what was open at a cutoff: issued by then, less what was paid and credited by then", () => {
    const d = data([
      doc({
        id: "paid-later",
        issueDate: "2026-01-05",
        dueDate: "2026-01-20",
        total: "100",
        status: "PAID",
        payments: [{ date: "2026-02-10", amount: "100" }],
      }),
      doc({
        id: "part",
        issueDate: "2026-01-05",
        total: "100",
        status: "PAID",
        payments: [
          { date: "2026-01-10", amount: "30" },
          { date: "2026-02-10", amount: "70" },
        ],
        credits: [{ date: "2026-01-12", amount: "10" }],
      }),
      doc({ id: "future", issueDate: "2026-02-01", total: "100" }),
      doc({
        id: "voided-late",
        issueDate: "2026-01-05",
        total: "100",
        status: "VOIDED",
        voidedOn: "2026-01-20",
      }),
      doc({
        id: "voided-early",
        issueDate: "2026-01-05",
        total: "100",
        status: "VOIDED",
        voidedOn: "2026-01-14",
      }),
      doc({ id: "draft", issueDate: "2026-01-05", total: "100", status: "DRAFT" }),
      doc({ id: "bill", type: "ACCPAY", issueDate: "2026-01-02", total: "40" }),
    ]);
    const input = inputAsOf(d, "2026-01-15", 50000, instantOn("2026-01-19", "Australia/Sydney"));
    expect(input.startingCash).toBe("500");
    expect(input.openItems.map((i) => [i.id, i.amount, i.expectedDate])).toEqual([
      ["paid-later", "100", "2026-01-20"], // its due date, not a later expected date
      ["part", "60", "2026-01-05"],
      ["voided-late", "100", "2026-01-05"],
      ["bill", "40", "2026-01-02"],
    ]);
    // Paid dates only for what was fully paid by then.
    expect(input.salesHistory.map((s) => [s.issueDate, s.paidDate])).toEqual([
      ["2026-01-05", null],
      ["2026-01-05", null],
      ["2026-01-05", null],
    ]);
  });

  it("rebuilds cash backwards from today and finds instants on a local date", () => {
    const d = data(
      [],
      [
        { date: "2026-03-10", amount: "200" },
        { date: "2026-03-01", amount: "-50" },
        { date: "2026-03-12", amount: "999" },
      ],
    );
    const cash = dailyCash(d, "2026-02-28", "2026-03-11");
    expect([cash.get("2026-03-11"), cash.get("2026-03-09"), cash.get("2026-02-28")]).toEqual([
      100000, 80000, 85000,
    ]);
    for (const zone of ["Australia/Sydney", "Pacific/Auckland", "America/Los_Angeles", "Etc/UTC"]) {
      expect(localDate(instantOn("2026-03-09", zone), zone)).toBe("2026-03-09");
    }
  });

  it("scores the methods: a business whose cash never moves is forecast perfectly by all", () => {
    const r = runBacktest(data([]), { weeks: 20 });
    expect(r.nows).toHaveLength(20);
    expect(r.samples[13]?.count).toBe(8); // nows 20 Oct … 8 Dec: their 13th week ended by 10 Mar
    expect(r.errorShare.BASE[1]).toBe(0);
    expect(r.errorShare.flat[13]).toBe(0);
  });

  it("scores a known error: a receivable that never arrives costs BASE and due dates, not flat", () => {
    // An invoice due on 2 Feb, never paid; cash 1000 throughout.
    const d = data([
      doc({ id: "x", issueDate: "2026-01-01", dueDate: "2026-02-02", total: "100" }),
    ]);
    const r = runBacktest(d, { weeks: 6, horizons: [1] });
    // Nows from 26 Jan: the week of 26 Jan does not hold 2 Feb; from 2 Feb on it is in week 1 (overdue).
    expect(r.samples[1]?.count).toBe(6);
    expect(r.errorShare.flat[1]).toBe(0);
    expect(r.errorShare.due_dates[1]).toBeCloseTo((5 * 100) / 6 / 1000, 10);
  });
});
