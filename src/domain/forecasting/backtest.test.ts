import { describe, expect, it } from "vitest";
import { localDate } from "../timezones.ts";
import {
  type BacktestData,
  dailyCash,
  forecastAtOrigin,
  inputAtOrigin,
  instantOn,
  runBacktest,
} from "./backtest.ts";
import { booksOf } from "./books.test-support.ts";
import { type BookDocument, type BookPurchaseOrder, type Books, booksAsOf } from "./books.ts";
import { computeForecast } from "./compute-forecast.ts";
import { addDays } from "./dates.ts";

const TZ = "Australia/Sydney";

const doc = (
  p: Partial<BookDocument> & Pick<BookDocument, "id" | "issueDate" | "total">,
): BookDocument => ({
  type: "ACCREC",
  status: "AUTHORISED",
  contactId: "C",
  contactName: "C",
  accountId: null,
  dueDate: p.issueDate,
  expectedDate: p.dueDate ?? p.issueDate ?? "",
  amountDue: p.total,
  currency: "AUD",
  currencyRate: null,
  paidDate: null,
  updatedOn: p.issueDate,
  payments: [],
  credits: [],
  ...p,
});

const po = (p: Partial<BookPurchaseOrder> & Pick<BookPurchaseOrder, "id">): BookPurchaseOrder => ({
  status: "AUTHORISED",
  total: "50",
  currency: "AUD",
  currencyRate: null,
  issueDate: "2026-01-02",
  deliveryDate: "2026-01-20",
  expectedArrivalDate: null,
  contactId: "S",
  accountId: null,
  updatedOn: "2026-01-02",
  billedOn: null,
  billId: null,
  ...p,
});

const books = booksOf;

const data = (
  documents: BookDocument[],
  movements: BacktestData["movements"] = [],
  extra: Partial<Books> = {},
): BacktestData => ({
  books: books(documents, extra),
  today: "2026-03-11",
  currentCash: "1000",
  movements,
});

describe("the books as of a date", () => {
  it("rebuilds what was open then: issued by then, less what was paid and credited by then", () => {
    const b = books(
      [
        doc({
          id: "paid-later",
          issueDate: "2026-01-05",
          dueDate: "2026-01-20",
          expectedDate: "2026-02-01",
          total: "100",
          status: "PAID",
          amountDue: "0",
          paidDate: "2026-02-10",
          updatedOn: "2026-02-10",
          payments: [{ date: "2026-02-10", amount: "100" }],
        }),
        doc({
          id: "part",
          issueDate: "2026-01-05",
          total: "100",
          status: "PAID",
          amountDue: "0",
          updatedOn: "2026-02-10",
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
          updatedOn: "2026-01-20",
        }),
        doc({
          id: "voided-early",
          issueDate: "2026-01-05",
          total: "100",
          status: "VOIDED",
          updatedOn: "2026-01-14",
        }),
        doc({ id: "draft", issueDate: "2026-01-05", total: "100", status: "DRAFT" }),
        // Unchanged since before the cutoff: as it stands now, its expected date included.
        doc({
          id: "bill",
          type: "ACCPAY",
          issueDate: "2026-01-02",
          dueDate: "2026-01-30",
          expectedDate: "2026-02-06",
          total: "40",
          updatedOn: "2026-01-03",
        }),
      ],
      {
        purchaseOrders: [
          po({ id: "po-open", billedOn: "2026-01-25", status: "BILLED", updatedOn: "2026-01-25" }),
          po({ id: "po-billed-before", billedOn: "2026-01-10", status: "BILLED" }),
          po({ id: "po-later", issueDate: "2026-01-16" }),
        ],
        manualItems: [
          {
            id: "man-1",
            source: "MANUAL",
            ledgerStatus: null,
            amount: "-20",
            currency: "AUD",
            currencyRate: null,
            expectedDate: "2026-02-01",
            dueDate: null,
            issueDate: null,
            contactId: null,
            accountId: null,
            probability: null,
            enteredOn: "2026-01-16",
          },
        ],
      },
    );
    const input = booksAsOf(b, "2026-01-15", "500", instantOn("2026-01-15", TZ));
    expect(input.startingCash).toBe("500");
    expect(input.openItems.map((i) => [i.id, i.amount, i.expectedDate])).toEqual([
      ["bill", "40", "2026-02-06"],
      ["paid-later", "100", "2026-01-20"], // its due date: the later expected date was unknown
      ["part", "60", "2026-01-05"],
      ["voided-late", "100", "2026-01-05"],
    ]);
    expect(input.purchaseOrders.map((p) => [p.id, p.status])).toEqual([["po-open", "AUTHORISED"]]);
    // Paid dates only for what was fully paid by then.
    expect(input.salesHistory.map((s) => [s.issueDate, s.paidDate])).toEqual([
      ["2026-01-05", null],
      ["2026-01-05", null],
      ["2026-01-05", null],
    ]);
    const later = booksAsOf(b, "2026-02-20", "500", instantOn("2026-02-20", TZ));
    expect(later.openItems.map((i) => i.id)).toEqual(["bill", "future", "man-1"]);
    expect(later.salesHistory.find((s) => s.paidDate !== null)?.paidDate).toBe("2026-02-10");
  });

  it("sees no future: changing anything after the cutoff leaves the forecast as it was", () => {
    const cutoff = "2026-02-09";
    const full = books(
      Array.from({ length: 40 }, (_, i) => {
        const issue = addDays("2025-09-01", i * 7);
        const paid = addDays(issue, 20 + (i % 5));
        const isPaid = paid <= "2026-03-10";
        return doc({
          id: `inv-${String(i).padStart(3, "0")}`,
          contactId: `C${i % 3}`,
          issueDate: issue,
          dueDate: addDays(issue, 14),
          total: String(100 + i),
          status: isPaid ? "PAID" : "AUTHORISED",
          amountDue: isPaid ? "0" : String(100 + i),
          paidDate: isPaid ? paid : null,
          updatedOn: isPaid ? paid : issue,
          payments: isPaid ? [{ date: paid, amount: String(100 + i) }] : [],
        });
      }),
      {
        customers: ["C0", "C1", "C2"].map((c) => ({
          contactId: c,
          name: c,
          active: true,
          updatedOn: "2025-01-01",
        })),
        purchaseOrders: [po({ id: "po-1", issueDate: "2026-02-02", deliveryDate: "2026-02-16" })],
      },
    );
    // The same books cut at the origin: every later document, payment and change removed, and
    // what was changed later put back as it stood then.
    const truncated: Books = {
      ...full,
      documents: full.documents
        .filter((d) => (d.issueDate ?? "") <= cutoff)
        .map((d) => {
          const payments = d.payments.filter((p) => p.date <= cutoff);
          if ((d.updatedOn ?? "") <= cutoff) return d;
          // Edited or paid after the cutoff: a loader that ran that day saw it open and as issued.
          return {
            ...d,
            status: "AUTHORISED",
            amountDue: d.total,
            paidDate: null,
            expectedDate: d.dueDate ?? d.expectedDate,
            updatedOn: cutoff,
            payments,
          };
        }),
    };
    const now = instantOn(cutoff, TZ);
    const scenario = { id: "b", name: "Base", kind: "BASE" as const, assumptions: {} };
    const a = computeForecast({ ...booksAsOf(full, cutoff, "1000", now), scenario });
    const b = computeForecast({ ...booksAsOf(truncated, cutoff, "1000", now), scenario });
    expect(b.weeks).toEqual(a.weeks);
    expect(a.lines.length).toBeGreaterThan(0);
    // And later facts do change a later origin's forecast (the test can fail).
    const c = computeForecast({
      ...booksAsOf(truncated, "2026-03-02", "1000", instantOn("2026-03-02", TZ)),
      scenario,
    });
    const d = computeForecast({
      ...booksAsOf(full, "2026-03-02", "1000", instantOn("2026-03-02", TZ)),
      scenario,
    });
    expect(d.weeks).not.toEqual(c.weeks);
  });

  it("gives the same forecast for the same books on the same local date, whatever the hour or row order", () => {
    const list = Array.from({ length: 30 }, (_, i) =>
      doc({
        id: `d${String(i).padStart(2, "0")}`,
        contactId: `C${i % 4}`,
        issueDate: addDays("2025-12-01", i * 3),
        total: String(50 + ((i * 37) % 90)),
        status: i < 20 ? "PAID" : "AUTHORISED",
        amountDue: i < 20 ? "0" : String(50 + ((i * 37) % 90)),
        paidDate: i < 20 ? addDays("2025-12-01", i * 3 + 18) : null,
      }),
    );
    const b1 = books(list, {
      customers: ["C0", "C1", "C2", "C3"].map((c) => ({
        contactId: c,
        name: c,
        active: true,
        updatedOn: null,
      })),
    });
    const b2 = { ...b1, documents: [...list].reverse(), customers: [...b1.customers].reverse() };
    const scenario = { id: "b", name: "Base", kind: "BASE" as const, assumptions: {} };
    const early = computeForecast({
      ...booksAsOf(b1, "2026-03-11", "1000", new Date("2026-03-10T13:05:00Z")),
      scenario,
    });
    const late = computeForecast({
      ...booksAsOf(b2, "2026-03-11", "1000", new Date("2026-03-11T12:55:00Z")),
      scenario,
    });
    expect(localDate(new Date("2026-03-10T13:05:00Z"), TZ)).toBe("2026-03-11");
    expect(late).toEqual(early);
  });
});

describe("backtest", () => {
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

  it("scores every horizon: a business whose cash never moves is forecast perfectly by all", () => {
    const r = runBacktest(data([]), { origins: 20 });
    expect(r.origins).toHaveLength(20);
    // Origins 20 Oct … 2 Mar; a 13th week ends 84 days after its Monday, less one.
    expect(r.scores.BASE[12]?.count).toBe(8);
    expect(r.scores.BASE[0]).toMatchObject({ horizon: 1, count: 20, mae: "0", bias: "0" });
    expect(r.scores.flat[12]?.mae).toBe("0");
  });

  it("scores a known error: a receivable that never arrives costs BASE and due dates, not flat", () => {
    // An invoice due on 2 Feb, never paid; cash 1000 throughout.
    const d = data([
      doc({ id: "x", issueDate: "2026-01-01", dueDate: "2026-02-02", total: "100" }),
    ]);
    const r = runBacktest(d, { origins: 6 });
    // Origins from 26 Jan: the week of 26 Jan does not hold 2 Feb; from 2 Feb on it is in week 1.
    const due = r.scores.due_dates[0];
    expect(due).toMatchObject({ count: 6, bias: "83.33" });
    expect(due?.mape).toBeCloseTo((5 * 0.1) / 6, 10);
    expect(r.scores.flat[0]).toMatchObject({ mae: "0", bias: "0" });
    expect(r.residuals[1]).toHaveLength(6);
    expect(r.baselineResiduals).toBeUndefined();
  });

  it("keeps the baselines' errors per origin only when asked: the never-paid receivable's", () => {
    const d = data([
      doc({ id: "x", issueDate: "2026-01-01", dueDate: "2026-02-02", total: "100" }),
    ]);
    const r = runBacktest(d, { origins: 6, keepBaselineResiduals: true });
    // The first origin's week 1 ends before 2 Feb; every later origin expects the 100 in week 1.
    expect(r.baselineResiduals?.due_dates[1]).toEqual(["0", "100", "100", "100", "100", "100"]);
    expect(r.baselineResiduals?.flat[1]).toEqual(["0", "0", "0", "0", "0", "0"]);
    expect(r.baselineResiduals?.due_dates[13]).toEqual([]);
  });

  it("the forecast at an origin is the served engine on the books then", () => {
    const d = data([
      doc({ id: "x", issueDate: "2026-01-01", dueDate: "2026-03-20", total: "100" }),
    ]);
    const f = forecastAtOrigin(d, "2026-03-11", 100000);
    const input = inputAtOrigin(d, "2026-03-11", 100000);
    expect(f.weeks).toEqual(
      computeForecast({
        ...input,
        scenario: { id: "BASE", name: "Base", kind: "BASE", assumptions: {} },
      }).weeks,
    );
    expect(f.lines.find((l) => l.itemId === "x")).toMatchObject({ weekIndex: 1, amount: "100" });
  });
});
