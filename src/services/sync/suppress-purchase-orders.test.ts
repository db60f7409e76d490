import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type BillToMatch,
  MATCH_DAYS_AFTER,
  MATCH_DAYS_BEFORE,
  matchPurchaseOrders,
  type OrderToMatch,
} from "./suppress-purchase-orders.ts";

const order = (id: string, o: Partial<OrderToMatch> = {}): OrderToMatch => ({
  id,
  externalId: `ext-${id}`,
  status: "AUTHORISED",
  contactId: "sup",
  number: null,
  reference: null,
  issueDate: "2024-04-01",
  total: "100",
  currency: "AUD",
  ...o,
});
const bill = (id: string, b: Partial<BillToMatch> = {}): BillToMatch => ({
  id,
  externalId: `ext-${id}`,
  ledgerStatus: "AUTHORISED",
  contactId: "sup",
  number: null,
  issueDate: "2024-04-10",
  total: "100",
  currency: "AUD",
  ...b,
});
const addDays = (date: string, days: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

describe("matchPurchaseOrders", () => {
  it("matches by the order's number, then its reference, ignoring case and spaces", () => {
    const m = matchPurchaseOrders(
      [
        order("a", { number: "PO-1", total: "1" }),
        order("b", { reference: "Spring Stock", total: "2" }),
      ],
      [bill("x", { number: " po-1 " }), bill("y", { number: "SPRING STOCK" })],
    );
    expect(Object.fromEntries(m)).toEqual({ a: "REFERENCE", b: "REFERENCE" });
  });

  it("prefers a number match over another order's reference match for the same bill", () => {
    // Order a's reference and order b's number both name the bill; numbers go first.
    const m = matchPurchaseOrders(
      [
        order("a", { reference: "PO-2", issueDate: "2024-01-01", total: "1" }),
        order("b", { number: "PO-2", total: "2" }),
      ],
      [bill("x", { number: "PO-2", total: "3" })],
    );
    expect(Object.fromEntries(m)).toEqual({ b: "REFERENCE" });
  });

  it(`matches contact and amount from ${MATCH_DAYS_BEFORE} days before to ${MATCH_DAYS_AFTER} days after, not beyond`, () => {
    for (const [offset, matched] of [
      [-MATCH_DAYS_BEFORE - 1, false],
      [-MATCH_DAYS_BEFORE, true],
      [0, true],
      [MATCH_DAYS_AFTER, true],
      [MATCH_DAYS_AFTER + 1, false],
    ] as const) {
      const m = matchPurchaseOrders(
        [order("a")],
        [bill("x", { issueDate: addDays("2024-04-01", offset) })],
      );
      expect([offset, m.get("a") ?? null]).toEqual([offset, matched ? "CONTACT_AMOUNT" : null]);
    }
  });

  it("needs the same supplier, total and currency, a live bill and a live dated order", () => {
    const none = (o: Partial<OrderToMatch>, b: Partial<BillToMatch>) =>
      expect(matchPurchaseOrders([order("a", o)], [bill("x", b)]).size).toBe(0);
    none({}, { contactId: "other" });
    none({}, { total: "100.01" });
    none({}, { currency: "NZD" });
    none({}, { ledgerStatus: "VOIDED" });
    none({}, { ledgerStatus: "DELETED" });
    none({ status: "DELETED" }, {});
    none({ issueDate: null }, {});
    none({ number: "PO-9" }, { number: "PO-9", contactId: "other", total: "5" });
    // Equal totals written differently still match.
    expect(
      matchPurchaseOrders([order("a", { total: "100.00" })], [bill("x", { total: "100" })]).get(
        "a",
      ),
    ).toBe("CONTACT_AMOUNT");
  });

  it("lets each bill suppress one order: the oldest order takes the closest bill", () => {
    const m = matchPurchaseOrders(
      [order("late", { issueDate: "2024-04-05" }), order("early", { issueDate: "2024-04-01" })],
      [bill("far", { issueDate: "2024-05-20" }), bill("near", { issueDate: "2024-04-02" })],
    );
    expect(Object.fromEntries(m)).toEqual({ early: "CONTACT_AMOUNT", late: "CONTACT_AMOUNT" });
    const one = matchPurchaseOrders(
      [order("b", { issueDate: "2024-04-05" }), order("a")],
      [bill("x")],
    );
    expect(Object.fromEntries(one)).toEqual({ a: "CONTACT_AMOUNT" });
  });

  it("is deterministic whatever the input order, and never uses a bill twice", () => {
    const dates = ["2024-03-25", "2024-04-01", "2024-04-10", "2024-05-01", null];
    const arbOrder = fc.record({
      contactId: fc.constantFrom("s1", "s2"),
      number: fc.constantFrom(null, "PO-1", "PO-2"),
      reference: fc.constantFrom(null, "PO-2", "ref"),
      issueDate: fc.constantFrom(...dates),
      total: fc.constantFrom("10", "20"),
      status: fc.constantFrom("AUTHORISED", "BILLED", "DELETED"),
    });
    const arbBill = fc.record({
      contactId: fc.constantFrom("s1", "s2"),
      number: fc.constantFrom(null, "PO-1", "PO-2", "ref"),
      issueDate: fc.constantFrom(...dates),
      total: fc.constantFrom("10", "20"),
      ledgerStatus: fc.constantFrom("AUTHORISED", "PAID", "VOIDED"),
    });
    fc.assert(
      fc.property(
        fc.array(arbOrder, { maxLength: 8 }),
        fc.array(arbBill, { maxLength: 8 }),
        fc.nat(),
        (os, bs, seed) => {
          const orders = os.map((o, i) => order(`o${i}`, o));
          const bills = bs.map((b, i) => bill(`b${i}`, b));
          const m = matchPurchaseOrders(orders, bills);
          const shuffle = <T>(xs: T[]) =>
            xs
              .map((x, i) => [x, (i * 7919 + seed) % 101] as const)
              .sort((a, b) => a[1] - b[1])
              .map(([x]) => x);
          expect(matchPurchaseOrders(shuffle(orders), shuffle(bills))).toEqual(m);
          const liveBills = bills.filter((b) => b.ledgerStatus !== "VOIDED").length;
          expect(m.size).toBeLessThanOrEqual(liveBills);
          for (const id of m.keys())
            expect(orders.find((o) => o.id === id)?.status).not.toBe("DELETED");
        },
      ),
      { numRuns: 300 },
    );
  });
});
