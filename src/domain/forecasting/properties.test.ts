import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonical, money, sum } from "../money.ts";
import { computeForecast } from "./compute-forecast.ts";
import { addDays } from "./dates.ts";
import { redactWeeks } from "./redact.ts";
import type { ForecastInput, OpenItem, OpenPurchaseOrder } from "./types.ts";

const TODAY = "2026-03-11";
const ACCOUNTS = ["acc_a", "acc_b", "acc_c"];

const amountArb = fc.integer({ min: 1, max: 50_000_000 }).map((c) => (c / 100).toFixed(2));
const dateArb = fc.integer({ min: -120, max: 120 }).map((d) => addDays(TODAY, d));
const itemArb: fc.Arbitrary<OpenItem> = fc.record({
  id: fc.uuid(),
  source: fc.constantFrom("LEDGER_INVOICE", "LEDGER_BILL", "MANUAL", "PIPELINE"),
  ledgerStatus: fc.constantFrom("AUTHORISED", "SUBMITTED", "DRAFT"),
  amount: fc.tuple(amountArb, fc.boolean()).map(([a, neg]) => (neg ? `-${a}` : a)),
  currency: fc.constantFrom("AUD", "AUD", "USD"),
  currencyRate: fc.constantFrom(null, "0.65", "1.1"),
  expectedDate: dateArb,
  dueDate: fc.option(dateArb, { nil: null }),
  issueDate: fc.option(dateArb, { nil: null }),
  contactId: fc.constantFrom(null, "C1", "C2"),
  accountId: fc.constantFrom(null, ...ACCOUNTS),
  probability: fc.constantFrom(null, "0.25", "0.9"),
});
const poArb: fc.Arbitrary<OpenPurchaseOrder> = fc.record({
  id: fc.uuid(),
  status: fc.constantFrom("AUTHORISED", "SUBMITTED", "BILLED"),
  total: amountArb,
  currency: fc.constant("AUD"),
  currencyRate: fc.constant(null),
  issueDate: fc.option(dateArb, { nil: null }),
  deliveryDate: fc.option(dateArb, { nil: null }),
  expectedArrivalDate: fc.option(dateArb, { nil: null }),
  contactId: fc.constant(null),
  accountId: fc.constantFrom(null, ...ACCOUNTS),
  suppressedReason: fc.constantFrom(null, null, "REFERENCE"),
});
const inputArb: fc.Arbitrary<ForecastInput> = fc
  .record({
    items: fc.array(itemArb, { maxLength: 60 }),
    pos: fc.array(poArb, { maxLength: 5 }),
    start: fc.tuple(amountArb, fc.boolean()).map(([a, neg]) => (neg ? `-${a}` : a)),
    kind: fc.constantFrom("BASE", "BEST", "WORST", "CUSTOM"),
    lag: fc.integer({ min: -10, max: 30 }),
  })
  .map(({ items, pos, start, kind, lag }) => ({
    now: new Date(`${TODAY}T01:00:00Z`),
    timezone: "Australia/Sydney",
    baseCurrency: "AUD",
    startingCash: start,
    openItems: items,
    purchaseOrders: pos,
    salesHistory: [],
    recurringHistory: [],
    customers: [],
    accounts: ACCOUNTS.map((id) => ({ id, name: `Account ${id}` })),
    scenario: {
      id: "s",
      name: kind,
      kind,
      assumptions:
        kind === "CUSTOM"
          ? {
              paymentLagDays: lag,
              arHaircutPercent: 20,
              arHaircutAfterDays: 30,
              billStretchDays: 5,
            }
          : {},
    },
  }));

describe("computeForecast properties", () => {
  it("chains weeks exactly: opening = previous closing, net = inflow − outflow, closing = opening + net", () => {
    fc.assert(
      fc.property(inputArb, (input) => {
        const r = computeForecast(input);
        expect(r.weeks[0]?.opening).toBe(canonical(input.startingCash));
        r.weeks.forEach((w, i) => {
          if (i > 0) expect(w.opening).toBe(r.weeks[i - 1]?.closing);
          expect(canonical(money(w.inflow).minus(w.outflow))).toBe(w.net);
          expect(canonical(money(w.opening).plus(w.net))).toBe(w.closing);
          expect(canonical(money(w.guaranteedInflow).plus(w.forecastInflow))).toBe(w.inflow);
        });
      }),
      { numRuns: 150 },
    );
  });

  it("weeks sum to the totals, and lines to the weeks", () => {
    fc.assert(
      fc.property(inputArb, (input) => {
        const r = computeForecast(input);
        expect(canonical(sum(r.weeks.map((w) => w.inflow)))).toBe(r.totalInflow);
        expect(canonical(sum(r.weeks.map((w) => w.outflow)))).toBe(r.totalOutflow);
        expect(canonical(money(r.startingCash).plus(r.totalInflow).minus(r.totalOutflow))).toBe(
          r.endingCash,
        );
        const min = r.weeks.reduce(
          (m, w) => (money(w.closing).lt(m) ? money(w.closing) : m),
          money(r.weeks[0]?.closing),
        );
        expect(r.minClosingCash).toBe(canonical(min));
        expect(r.weeks[r.minClosingCashWeekIndex]?.closing).toBe(r.minClosingCash);
        r.weeks.forEach((w, i) => {
          const lines = r.lines.filter((l) => l.weekIndex === i);
          expect(lines.map((l) => l.itemId)).toEqual(w.itemIds);
          expect(
            canonical(sum(lines.filter((l) => l.direction === "in").map((l) => l.amount))),
          ).toBe(w.inflow);
          expect(
            canonical(sum(lines.filter((l) => l.direction === "out").map((l) => l.amount))),
          ).toBe(w.outflow);
          // Sources cover every line; accounts cover the categorised ones.
          const src = Object.values(w.categories.sources);
          expect(canonical(sum(src.map((s) => s.inflow)))).toBe(w.inflow);
          expect(canonical(sum(src.map((s) => s.outflow)))).toBe(w.outflow);
        });
      }),
      { numRuns: 150 },
    );
  });

  it("is deterministic: the same input gives the same output", () => {
    fc.assert(
      fc.property(inputArb, (input) => {
        expect(computeForecast(input)).toEqual(computeForecast(structuredClone(input)));
      }),
      { numRuns: 50 },
    );
  });

  it("redaction renames, counts (week, account) pairs, and never changes an amount", () => {
    fc.assert(
      fc.property(inputArb, fc.subarray(ACCOUNTS), (input, sensitive) => {
        const r = computeForecast(input);
        const { weeks, redactedItemCount } = redactWeeks(r.weeks, new Set(sensitive));
        const strip = (ws: typeof r.weeks) =>
          ws.map((w) => ({
            ...w,
            categories: {
              ...w.categories,
              accounts: Object.fromEntries(
                Object.entries(w.categories.accounts).map(([id, a]) => [
                  id,
                  { inflow: a.inflow, outflow: a.outflow },
                ]),
              ),
            },
          }));
        expect(strip(weeks)).toEqual(strip(r.weeks));
        let pairs = 0;
        weeks.forEach((w, i) => {
          for (const [id, a] of Object.entries(w.categories.accounts)) {
            const hidden = sensitive.includes(id);
            if (hidden) pairs += 1;
            expect(a.name).toBe(
              hidden ? "Sensitive account" : r.weeks[i]?.categories.accounts[id]?.name,
            );
          }
        });
        expect(redactedItemCount).toBe(pairs);
      }),
      { numRuns: 100 },
    );
  });
});
