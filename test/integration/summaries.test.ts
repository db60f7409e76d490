import { describe, expect, it } from "vitest";
import { ContactsSummaryResponseSchema } from "../../src/contracts/agent/contacts-summary.ts";
import {
  ExpensesSummaryResponseSchema,
  type RevenueSummaryResponse,
  RevenueSummaryResponseSchema,
} from "../../src/contracts/agent/revenue-summary.ts";
import type { ContactsSummaryResponse } from "../../src/http/routes/agent/contacts-summary/index.ts";
import { getJson } from "../helpers/api.ts";
import { testDriver } from "../helpers/test-db.ts";
import { CON, type ExportSpec, insightsWorld, qs } from "./insights-helpers.ts";

/*
 * Known answers of the revenue, expenses and contacts summaries from a hand-made export. "Now"
 * is 2026-02-28T14:30Z: already 1 March in Sydney (UTC+11), still 28 February in UTC, so the
 * organisation's timezone decides the default window, the months and the gross-profit window.
 */
const NOW = new Date("2026-02-28T14:30:00.000Z");

const SPEC: ExportSpec = {
  contacts: [
    { n: 1, name: "Harbour Cafe", customer: true },
    { n: 2, name: "Secret Client", customer: true },
    { n: 3, name: "Pacific Imports", customer: true },
    { n: 4, name: "Bean Supply", supplier: true },
    { n: 5, name: "Harbourside Property", supplier: true },
    { n: 6, name: "Dormant Pty", customer: false, supplier: false },
  ],
  docs: [
    // Paid before the window (2025-07-01..2026-03-01) but in it by payment date.
    {
      n: 1,
      contact: 1,
      date: "2025-06-20",
      status: "PAID",
      lines: [{ account: "sales", amount: "1000", tax: "100" }],
      payments: [{ n: 1, date: "2025-07-02", amount: "1100" }],
    },
    // Two payments in two months.
    {
      n: 2,
      contact: 1,
      date: "2025-09-10",
      status: "PAID",
      lines: [{ account: "sales", amount: "2000", tax: "200" }],
      payments: [
        { n: 2, date: "2025-09-30", amount: "1100" },
        { n: 3, date: "2025-10-15", amount: "1100" },
      ],
    },
    // A sensitive customer.
    {
      n: 3,
      contact: 2,
      date: "2026-01-05",
      status: "PAID",
      lines: [{ account: "sales", amount: "500", tax: "50" }],
      payments: [{ n: 4, date: "2026-01-20", amount: "550" }],
    },
    // USD, no tax: 1000 USD at the payment's rate 0.64 = 1562.50 AUD.
    {
      n: 4,
      contact: 3,
      date: "2026-02-01",
      status: "PAID",
      currency: "USD",
      rate: "0.65",
      lines: [{ account: "sales", amount: "1000" }],
      payments: [{ n: 5, date: "2026-02-20", amount: "1000", rate: "0.64" }],
    },
    // Paid on 1 March: today in Sydney, tomorrow in UTC.
    {
      n: 5,
      contact: 1,
      date: "2026-02-25",
      status: "PAID",
      lines: [{ account: "sales", amount: "300", tax: "30" }],
      payments: [{ n: 6, date: "2026-03-01", amount: "330" }],
    },
    // Part paid: AUTHORISED, 680 still owed; the part payment is cash received (PAID), ex-tax
    // 200 × 800/880 = 181.82.
    {
      n: 6,
      contact: 1,
      date: "2026-02-10",
      status: "AUTHORISED",
      lines: [{ account: "sales", amount: "800", tax: "80" }],
      payments: [{ n: 7, date: "2026-02-15", amount: "200" }],
    },
    {
      n: 7,
      contact: 2,
      date: "2025-12-01",
      status: "VOIDED",
      lines: [{ account: "sales", amount: "100", tax: "10" }],
    },
    {
      n: 8,
      contact: 1,
      date: "2026-02-27",
      status: "DRAFT",
      lines: [{ account: "sales", amount: "400", tax: "40" }],
    },
    {
      n: 9,
      contact: 1,
      date: "2026-02-28",
      status: "SUBMITTED",
      lines: [{ account: "sales", amount: "50", tax: "5" }],
    },
    {
      n: 10,
      contact: 1,
      date: "2025-08-01",
      status: "DELETED",
      lines: [{ account: "sales", amount: "10", tax: "1" }],
    },
    // Paid before the window.
    {
      n: 11,
      contact: 3,
      date: "2025-05-01",
      status: "PAID",
      lines: [{ account: "sales", amount: "900" }],
      payments: [{ n: 8, date: "2025-05-30", amount: "900" }],
    },
    // PAID without a payment row: counted on its paid date for its paid amount.
    {
      n: 12,
      contact: 1,
      date: "2025-11-01",
      status: "PAID",
      lines: [{ account: "sales", amount: "700", tax: "70" }],
      paidOn: "2025-11-20",
    },
    // Tax-inclusive: 1100 including 100 tax = 1000 ex-tax.
    {
      n: 13,
      contact: 1,
      date: "2025-10-01",
      status: "PAID",
      amountTypes: "Inclusive",
      lines: [{ account: "sales", amount: "1100", tax: "100" }],
      payments: [{ n: 9, date: "2025-10-05", amount: "1100" }],
    },
    // A deleted payment never counts.
    {
      n: 14,
      contact: 3,
      date: "2025-12-10",
      status: "AUTHORISED",
      lines: [{ account: "sales", amount: "100" }],
      payments: [{ n: 10, date: "2025-12-11", amount: "100", status: "DELETED" }],
    },
    // Bills: cost of goods 600 of 1000 ex-tax in January; rent only in February; one outside.
    {
      n: 101,
      type: "ACCPAY",
      contact: 4,
      date: "2026-01-10",
      status: "PAID",
      lines: [
        { account: "cogs", amount: "600", tax: "60" },
        { account: "rent", amount: "400", tax: "40" },
      ],
      payments: [{ n: 101, date: "2026-01-31", amount: "1100" }],
    },
    {
      n: 102,
      type: "ACCPAY",
      contact: 4,
      date: "2025-11-10",
      status: "PAID",
      lines: [{ account: "cogs", amount: "300", tax: "30" }],
      payments: [{ n: 102, date: "2025-11-30", amount: "330" }],
    },
    {
      n: 103,
      type: "ACCPAY",
      contact: 5,
      date: "2026-02-01",
      status: "PAID",
      lines: [{ account: "rent", amount: "2000", tax: "200" }],
      payments: [{ n: 103, date: "2026-02-03", amount: "2200" }],
    },
    {
      n: 104,
      type: "ACCPAY",
      contact: 4,
      date: "2026-02-20",
      status: "AUTHORISED",
      lines: [{ account: "cogs", amount: "100", tax: "10" }],
    },
  ],
};

const zero = { count: 0, amount: "0" };

describe(`revenue and expenses summaries (${testDriver})`, () => {
  it("answers the known revenue figures in Sydney months, by payment date, ex-tax", async () => {
    const w = await insightsWorld(SPEC, { now: NOW, sensitiveContacts: [2] });
    const r = await getJson<RevenueSummaryResponse>(
      w.t.app,
      "/api/agent/revenue/summary",
      w.sensitive,
    );
    expect(r.status, r.text).toBe(200);
    expect(RevenueSummaryResponseSchema.parse(r.body)).toEqual(r.body);
    expect(r.body).toEqual({
      asOfDate: "2026-03-01",
      currency: "AUD",
      window: { from: "2025-07-01", to: "2026-03-01" },
      grandTotal: { count: 8, amount: "7244.32" },
      byStatus: {
        DRAFT: { count: 1, amount: "440" },
        SUBMITTED: { count: 1, amount: "55" },
        AUTHORISED: { count: 2, amount: "780" },
        PAID: { count: 8, amount: "7244.32" },
        VOIDED: { count: 1, amount: "110" },
        DELETED: { count: 1, amount: "11" },
      },
      byMonth: [
        { month: "2025-07", count: 1, amount: "1000" },
        { month: "2025-08", ...zero },
        { month: "2025-09", count: 1, amount: "1000" },
        { month: "2025-10", count: 2, amount: "2000" },
        { month: "2025-11", count: 1, amount: "700" },
        { month: "2025-12", ...zero },
        { month: "2026-01", count: 1, amount: "500" },
        { month: "2026-02", count: 2, amount: "1744.32" },
        { month: "2026-03", count: 1, amount: "300" },
      ],
      topContacts: [
        { contactId: CON(1), name: "Harbour Cafe", count: 6, amount: "5181.82" },
        { contactId: CON(3), name: "Pacific Imports", count: 1, amount: "1562.5" },
        { contactId: CON(2), name: "Secret Client", count: 1, amount: "500" },
      ],
      redactedItemCount: 0,
      grossProfit: {
        revenue: "2244.32",
        costOfGoods: "600",
        grossProfit: "1644.32",
        marginPercent: 0.7327,
        window: { from: "2025-12-01", to: "2026-02-28" },
      },
    });
  });

  it("renames a sensitive contact without READ_SENSITIVE and never changes an amount", async () => {
    const w = await insightsWorld(SPEC, { now: NOW, sensitiveContacts: [2] });
    const shown = await getJson<RevenueSummaryResponse>(
      w.t.app,
      "/api/agent/revenue/summary",
      w.sensitive,
    );
    const hidden = await getJson<RevenueSummaryResponse>(
      w.t.app,
      "/api/agent/revenue/summary",
      w.plain,
    );
    expect(hidden.status, hidden.text).toBe(200);
    expect(hidden.body.topContacts[2]).toEqual({
      contactId: "",
      name: "Sensitive contact",
      count: 1,
      amount: "500",
    });
    expect(hidden.body.redactedItemCount).toBe(1);
    expect(hidden.text).not.toContain("Secret Client");
    expect(hidden.text).not.toContain(CON(2));
    // Everything but the renamed row is identical.
    const strip = (b: RevenueSummaryResponse) => ({
      ...b,
      topContacts: b.topContacts.map((c) => [c.count, c.amount]),
      redactedItemCount: 0,
    });
    expect(strip(hidden.body)).toEqual(strip(shown.body));
  });

  it("takes the window, topN and a timezone-local default window", async () => {
    const w = await insightsWorld(SPEC, { now: NOW });
    const r = await getJson<RevenueSummaryResponse>(
      w.t.app,
      `/api/agent/revenue/summary${qs({ dateFrom: "2025-10-01", dateTo: "2025-10-31", topN: 1 })}`,
      w.plain,
    );
    expect(r.status, r.text).toBe(200);
    expect(r.body.window).toEqual({ from: "2025-10-01", to: "2025-10-31" });
    expect(r.body.grandTotal).toEqual({ count: 2, amount: "2000" });
    expect(r.body.byMonth).toEqual([{ month: "2025-10", count: 2, amount: "2000" }]);
    expect(r.body.topContacts).toEqual([
      { contactId: CON(1), name: "Harbour Cafe", count: 2, amount: "2000" },
    ]);
    // grossProfit ignores the window.
    expect(r.body.grossProfit.window).toEqual({ from: "2025-12-01", to: "2026-02-28" });

    // The same instant read in UTC would end the default window on 28 February.
    const utc = await insightsWorld({ ...SPEC, timezone: "UTC" }, { now: NOW });
    const u = await getJson<RevenueSummaryResponse>(
      utc.t.app,
      "/api/agent/revenue/summary",
      utc.plain,
    );
    expect(u.body.window).toEqual({ from: "2025-07-01", to: "2026-02-28" });
    expect(u.body.byMonth.map((m) => m.month).at(-1)).toBe("2026-02");
    expect(u.body.grandTotal.amount).toBe("6944.32");
    expect(u.body.grossProfit.window).toEqual({ from: "2025-11-01", to: "2026-01-31" });
  });

  it("refuses bad parameters with 400 invalid_parameter", async () => {
    const w = await insightsWorld(SPEC, { now: NOW });
    for (const [query, parameter] of [
      [{ topN: 0 }, "topN"],
      [{ topN: 101 }, "topN"],
      [{ topN: "ten" }, "topN"],
      [{ dateFrom: "2026-02-30" }, "dateFrom"],
      [{ dateFrom: "2026-03-01", dateTo: "2026-02-01" }, "dateFrom"],
      [{ dateFrom: "1990-01-01", dateTo: "2026-01-01" }, "dateFrom"],
    ] as const) {
      const r = await getJson(w.t.app, `/api/agent/revenue/summary${qs(query)}`, w.plain);
      expect([r.status, r.body.error, r.body.parameter], r.text).toEqual([
        400,
        "invalid_parameter",
        parameter,
      ]);
    }
  });

  it("mirrors the revenue summary for bills", async () => {
    const w = await insightsWorld(SPEC, { now: NOW });
    const r = await getJson(w.t.app, "/api/agent/expenses/summary", w.plain);
    expect(r.status, r.text).toBe(200);
    expect(ExpensesSummaryResponseSchema.parse(r.body)).toEqual(r.body);
    expect(r.body).toMatchObject({
      grandTotal: { count: 3, amount: "3300" },
      byStatus: { PAID: { count: 3, amount: "3300" }, AUTHORISED: { count: 1, amount: "110" } },
      topContacts: [
        { contactId: CON(5), name: "Harbourside Property", count: 1, amount: "2000" },
        { contactId: CON(4), name: "Bean Supply", count: 2, amount: "1300" },
      ],
    });
    expect(r.body).not.toHaveProperty("grossProfit");
  });

  it("needs READ_SUMMARY", async () => {
    const w = await insightsWorld(SPEC, { now: NOW });
    const { createTestKey } = await import("../helpers/api.ts");
    const k = await createTestKey(
      w.t.db,
      { kind: "ORG", orgId: w.orgId, label: "x", scopes: ["READ_INVOICES"] },
      NOW,
    );
    for (const path of [
      "/api/agent/revenue/summary",
      "/api/agent/expenses/summary",
      "/api/agent/contacts/summary",
    ]) {
      const r = await getJson(w.t.app, path, k.key);
      expect([r.status, r.body.error]).toEqual([403, "insufficient_scope"]);
    }
  });
});

describe(`contacts summary (${testDriver})`, () => {
  it("counts by type and ABC class and ranks customers by LTV and suppliers by spend", async () => {
    const w = await insightsWorld(SPEC, { now: NOW, sensitiveContacts: [2] });
    const r = await getJson<ContactsSummaryResponse>(
      w.t.app,
      "/api/agent/contacts/summary",
      w.plain,
    );
    expect(r.status, r.text).toBe(200);
    expect(ContactsSummaryResponseSchema.parse(r.body)).toEqual(r.body);
    expect(r.body.byType).toEqual({ customer: 3, supplier: 2, both: 0, neither: 1 });
    // Harbour Cafe and Pacific Imports have paid invoices older than 90 days: classified, both A
    // (Pacific's revenue starts at 69% of the total, under 80%). Secret Client's first paid
    // invoice (2026-01-05) is too recent: unclassified.
    expect(r.body.abcDistribution).toEqual({ A: 2, B: 0, C: 0, unclassified: 1 });
    // LTV = all paid revenue (gross, base currency) x the 12-month margin.
    expect(r.body.topByRevenue.map((c) => c.name)).toEqual([
      "Harbour Cafe",
      "Pacific Imports",
      "Sensitive contact",
    ]);
    expect(r.body.topByRevenue[2]?.contactId).toBe("");
    expect(r.body.topBySpend).toEqual([
      { contactId: CON(5), name: "Harbourside Property", count: 1, amount: "2200" },
      { contactId: CON(4), name: "Bean Supply", count: 3, amount: "1540" },
    ]);
    expect(r.body.redactedItemCount).toBe(1);
    const one = await getJson<ContactsSummaryResponse>(
      w.t.app,
      "/api/agent/contacts/summary?topN=1",
      w.sensitive,
    );
    expect(one.body.topByRevenue).toHaveLength(1);
    expect(one.body.topBySpend).toHaveLength(1);
    expect(one.body.redactedItemCount).toBe(0);
  });
});
