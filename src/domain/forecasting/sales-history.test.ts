import { describe, expect, it } from "vitest";
import { baseCents } from "./cents.ts";
import { dayNumber } from "./dates.ts";
import { inHistoryOrder, NO_DAY, salesByContact, salesCents, salesDays } from "./sales-history.ts";
import type { SalesHistoryEntry } from "./types.ts";

const entry = (over: Partial<SalesHistoryEntry>): SalesHistoryEntry => ({
  contactId: "A",
  issueDate: "2026-03-01",
  total: "100.5",
  currency: "AUD",
  currencyRate: null,
  dueDate: "2026-03-15",
  paidDate: null,
  accountId: null,
  ...over,
});

describe("sales history parsed once", () => {
  const history = [
    entry({ paidDate: "2026-03-20" }),
    entry({ issueDate: "2025-12-31", dueDate: null, total: "-12.345" }),
    entry({ currency: "USD", currencyRate: "0.654321", total: "1000" }),
    entry({ paidDate: "", dueDate: "" }),
  ];

  it("holds each invoice's day numbers (NO_DAY when missing) and base cents, as parsed one by one", () => {
    const days = salesDays(history);
    const cents = salesCents(history, "AUD");
    history.forEach((e, i) => {
      expect(days.issue[i]).toBe(dayNumber(e.issueDate));
      expect(days.due[i]).toBe(e.dueDate ? dayNumber(e.dueDate) : NO_DAY);
      expect(days.paid[i]).toBe(e.paidDate ? dayNumber(e.paidDate) : NO_DAY);
      expect(cents[i]).toBe(baseCents(e.total, e.currency, "AUD", e.currencyRate));
    });
    expect(Array.from(cents)).toEqual([10050, -1235, 152830, 10050]);
  });

  it("parses a history once, per base currency for amounts", () => {
    expect(salesDays(history)).toBe(salesDays(history));
    expect(salesCents(history, "AUD")).toBe(salesCents(history, "AUD"));
    expect(salesCents(history, "USD")[2]).toBe(100000);
    expect(salesDays([...history])).not.toBe(salesDays(history));
  });
});

describe("sales history grouped by contact once", () => {
  // Interleaved, as a hand-built history may be: B's invoices come before and after C's.
  const history = ["B", "C", "B", "A", "C", "B"].map((contactId) => entry({ contactId }));

  it("lists contacts by first invoice and each contact's invoices in history order", () => {
    const { contactIds, start, entries } = salesByContact(history);
    expect(contactIds).toEqual(["B", "C", "A"]);
    expect(Array.from(start)).toEqual([0, 3, 5, 6]);
    expect(Array.from(entries)).toEqual([0, 2, 5, 1, 4, 3]);
  });

  it("groups a history already grouped by contact as itself, and groups a history once", () => {
    const grouped = ["A", "A", "B", "C", "C"].map((contactId) => entry({ contactId }));
    expect(Array.from(salesByContact(grouped).entries)).toEqual([0, 1, 2, 3, 4]);
    expect(salesByContact(history)).toBe(salesByContact(history));
    expect(salesByContact([])).toEqual({
      contactIds: [],
      start: Int32Array.of(0),
      entries: new Int32Array(0),
    });
  });

  it("keeps per-contact values in the order of the invoice that first counted for each", () => {
    const values = [
      { first: 4, contactId: "C", value: "c" },
      { first: 1, contactId: "A", value: "a" },
      { first: 2, contactId: "B", value: "b" },
    ];
    expect([...inHistoryOrder(values).keys()]).toEqual(["A", "B", "C"]);
    expect([...inHistoryOrder(values.slice(1)).entries()]).toEqual([
      ["A", "a"],
      ["B", "b"],
    ]);
  });
});
